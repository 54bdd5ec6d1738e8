"""x[idx] = v and index_put_ against torch 2.13: values, versions, leaf errors, gradients."""
from __future__ import annotations

import pytest

import inplace_lab as il
from tests.differential.harness import attempt, compare_torch

pytest.importorskip("torch")

# (id, statement run with x = arange(12.).reshape(3, 4).clone(), T the library)
WRITES = [
    ("int_scalar", lambda T, x: x.__setitem__(0, 1)),
    ("slice_scalar", lambda T, x: x.__setitem__(slice(None), 2)),
    ("ellipsis_scalar", lambda T, x: x.__setitem__(..., 1)),
    ("none_scalar", lambda T, x: x.__setitem__(None, 3)),
    ("true_scalar", lambda T, x: x.__setitem__(True, 1)),
    ("false_writes_nothing", lambda T, x: x.__setitem__(False, 1)),
    ("list_scalar", lambda T, x: x.__setitem__([0, 2], 5)),
    ("mask_scalar", lambda T, x: x.__setitem__(x > 5, 0)),
    ("empty_mask", lambda T, x: x.__setitem__(x > 100, 1)),
    ("list_broadcast_row", lambda T, x: x.__setitem__([0, 2], T.tensor([1., 2., 3., 4.]))),
    ("basic_casts_long_value", lambda T, x: x.__setitem__(0, T.tensor([1, 2, 3, 4]))),
    ("basic_strips_leading_ones", lambda T, x: x.__setitem__(0, T.ones(1, 1, 4))),
    ("adv_strips_leading_ones", lambda T, x: x.__setitem__([0, 1], T.ones(1, 1, 4))),
    ("zero_dim_tensor", lambda T, x: x.__setitem__((0, 0), T.tensor(5.))),
    ("numpy_scalar", lambda T, x: x.__setitem__(0, __import__("numpy").float64(2))),
    ("duplicates_last_wins", lambda T, x: x.__setitem__([0, 0], T.tensor([[1.] * 4, [2.] * 4]))),
    ("int_then_list", lambda T, x: x.__setitem__((0, [1, 2]), 7)),
    ("slice_then_list", lambda T, x: x.__setitem__((slice(None), [1, 2]), T.tensor([9., 8.]))),
    ("zero_dim_index", lambda T, x: x.__setitem__(T.tensor(1), 4)),
    ("advanced_copy_value", lambda T, x: x.__setitem__([1, 2], x[[0, 1]])),
    ("same_view_value", lambda T, x: x.__setitem__(0, x[0])),
    # errors
    ("list_value", lambda T, x: x.__setitem__(0, [1, 2, 3, 4])),
    ("str_value", lambda T, x: x.__setitem__(0, "a")),
    ("none_value", lambda T, x: x.__setitem__(0, None)),
    ("complex_into_float", lambda T, x: x.__setitem__(0, 1.5j)),
    ("adv_dtype_mismatch", lambda T, x: x.__setitem__([0, 1], T.tensor([1, 2, 3, 4]))),
    ("adv_double_value", lambda T, x: x.__setitem__([0, 1], T.ones(4, dtype=T.float64))),
    ("basic_too_many_value_dims", lambda T, x: x.__setitem__(0, T.ones(2, 4))),
    ("basic_wrong_size", lambda T, x: x.__setitem__(0, T.ones(3))),
    ("adv_value_shape", lambda T, x: x.__setitem__([0, 1], T.ones(3, 4))),
    ("index_oob", lambda T, x: x.__setitem__(5, 1)),
    ("list_oob", lambda T, x: x.__setitem__([5], 1)),
    ("partial_overlap_basic", lambda T, x: x.__setitem__(slice(1, None), x[:-1])),
    ("partial_overlap_adv", lambda T, x: x.__setitem__([1, 2], x[0:2])),
    ("full_overlap_adv", lambda T, x: x.__setitem__([0, 1, 2], x)),
]


@pytest.mark.parametrize("write", [w[1] for w in WRITES], ids=[w[0] for w in WRITES])
def test_setitem_values_versions_errors_match_torch(write):
    def prog(T):
        x = T.arange(12.).reshape(3, 4).clone()
        r = attempt(lambda: write(T, x))
        return {"r": r, "x": x, "v": x._version}

    compare_torch(prog)


def test_augmented_assignment_bumps_twice_for_basic_once_for_advanced():
    def prog(T):
        x = T.zeros(3, 4)
        x[0] += 1
        a = x._version
        x[[0, 1]] += 1
        b = x._version
        x[x > 1] += 1
        return {"versions": [a, b, x._version], "x": x}

    compare_torch(prog)


def test_integer_and_bool_targets_cast_scalars():
    def prog(T):
        x = T.arange(6).reshape(2, 3)
        x[0] = 1.7
        x[[1]] = 2.9
        b = T.zeros(3, dtype=T.bool)
        b[[0]] = 3
        return {"x": x, "b": b, "bad": attempt(lambda: x.__setitem__([0], T.tensor(1.7)))}

    compare_torch(prog)


LEAF_WRITES = [
    ("int", lambda T, L: L.__setitem__(0, 1)), ("list", lambda T, L: L.__setitem__([0], 1)),
    ("mask", lambda T, L: L.__setitem__(L > 3, 1)), ("ellipsis", lambda T, L: L.__setitem__(..., 1)),
    ("slice", lambda T, L: L.__setitem__(slice(None), 1)), ("none", lambda T, L: L.__setitem__(None, 1)),
    ("false", lambda T, L: L.__setitem__(False, 1)), ("true", lambda T, L: L.__setitem__(True, 1)),
    ("zero_dim", lambda T, L: L.__setitem__(T.tensor(0), 1)),
    ("index_put_", lambda T, L: L.index_put_((T.tensor([0]),), T.tensor(1.))),
]


@pytest.mark.parametrize("write", [w[1] for w in LEAF_WRITES], ids=[w[0] for w in LEAF_WRITES])
def test_setitem_on_leaf_requiring_grad_matches_torch(write):
    def prog(T):
        L = T.arange(12.).reshape(3, 4).clone().requires_grad_()
        r = attempt(lambda: write(T, L))
        return {"r": r, "v": L._version, "L": L.detach()}

    compare_torch(prog)


def test_setitem_on_leaf_inside_no_grad_is_allowed():
    def prog(T):
        L = T.zeros(3, requires_grad=True)
        with T.no_grad():
            L[[0, 2]] = 1.
            L[1] = 5.
        return {"L": L.detach(), "v": L._version, "leaf": L.is_leaf}

    compare_torch(prog)


GRAD_WRITES = [
    ("basic_tensor", lambda T, z, w: z.__setitem__(0, w)),
    ("basic_zero_dim", lambda T, z, w: z.__setitem__((slice(None), 1), w[1])),
    ("whole_copy", lambda T, z, w: z.__setitem__(slice(None), w * 1)),
    ("mask", lambda T, z, w: z.__setitem__(z > 10, w[1])),
    ("duplicate_rows", lambda T, z, w: z.__setitem__([0, 0, 1], w)),
    ("iadd_rows", lambda T, z, w: z.__setitem__([0, 2], z[[0, 2]] + w)),
    ("int_then_list", lambda T, z, w: z.__setitem__((1, [0, 2]), w[:2])),
    ("scalar", lambda T, z, w: z.__setitem__((0, 0), 1.0)),
    ("scalar_ellipsis", lambda T, z, w: z.__setitem__(..., 1.0)),
]


@pytest.mark.parametrize("write", [w[1] for w in GRAD_WRITES], ids=[w[0] for w in GRAD_WRITES])
def test_gradients_through_setitem_on_non_leaf_match_torch(write):
    def prog(T):
        x = T.arange(12.).reshape(3, 4).clone().requires_grad_()
        w = T.tensor([1., 2., 3., 4.], requires_grad=True)
        z = x * 2
        write(T, z, w)
        fn = z.grad_fn
        (z * T.arange(12.).reshape(3, 4)).sum().backward()
        return {"fn": fn, "v": z._version, "gx": x.grad, "gw": w.grad, "z": z}

    compare_torch(prog)


def test_advanced_setitem_on_view_rewrites_base_history():
    def prog(T):
        x = T.arange(12.).reshape(3, 4).clone().requires_grad_()
        w = T.tensor([5., 6.], requires_grad=True)
        y = x * 1
        v = y[0:2]
        v[[0, 1], [1, 1]] = w
        (y * T.arange(12.).reshape(3, 4)).sum().backward()
        return {"y_fn": y.grad_fn, "v_fn": v.grad_fn, "gx": x.grad, "gw": w.grad,
                "v": [y._version, v._version]}

    compare_torch(prog)


INDEX_PUT = [
    ("accumulate_repeats", lambda T, x: x.index_put_((T.tensor([0, 0]),), T.tensor(1.), accumulate=True)),
    ("accumulate_2d", lambda T, x: x.index_put_([T.tensor([0, 0]), T.tensor([1, 1])], T.tensor(1.), True)),
    ("mask", lambda T, x: x.index_put_((T.tensor([True, False, True]),), T.tensor(1.))),
    ("list_element", lambda T, x: x.index_put_([[0]], T.tensor(1.))),
    ("none_element", lambda T, x: x.index_put_((None, T.tensor([1])), T.tensor(1.))),
    ("float_value", lambda T, x: x.index_put_((T.tensor([0]),), 1.)),
    ("oob", lambda T, x: x.index_put_((T.tensor([5]),), T.tensor(1.))),
    ("too_many", lambda T, x: x.index_put_((T.tensor([0]),) * 3, T.tensor(1.))),
    ("float_index", lambda T, x: x.index_put_((T.tensor([0.]),), T.tensor(1.))),
    ("value_shape", lambda T, x: x.index_put_((T.tensor([0]),), T.tensor([1., 2.]))),
]


@pytest.mark.parametrize("call", [c[1] for c in INDEX_PUT], ids=[c[0] for c in INDEX_PUT])
def test_index_put_inplace_matches_torch(call):
    def prog(T):
        x = T.arange(12.).reshape(3, 4).clone()
        ptr, st = x.data_ptr(), x.untyped_storage()
        r = attempt(lambda: call(T, x))
        return {"r": r, "x": x, "v": x._version, "same_ptr": x.data_ptr() == ptr}

    compare_torch(prog)


def test_index_put_out_of_place_and_its_gradients():
    def prog(T):
        x = T.arange(6.).reshape(2, 3).clone().requires_grad_()
        v = T.tensor([1., 2., 3.], requires_grad=True)
        idx = (T.tensor([0, 0]),)
        r = T.index_put(x * 1, idx, v * 1, True)
        s = (x * 1).index_put(idx, v * 1)
        (r * T.arange(6.).reshape(2, 3)).sum().backward()
        return {"r": r, "s": s, "fn": r.grad_fn, "gx": x.grad, "gv": v.grad, "xv": x._version}

    compare_torch(prog)


def test_index_put_allocates_no_storage():
    x = il.zeros(3, 4)
    ptr, st = x.data_ptr(), x.untyped_storage()
    x.index_put_((il.tensor([0, 2]),), il.tensor(1.))
    x[[1]] = 2.
    assert x.data_ptr() == ptr and x.untyped_storage() is st and x._version == 2
