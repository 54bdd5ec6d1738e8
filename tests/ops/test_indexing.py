"""x[idx] against torch 2.13: values, views vs copies, grad_fn chains, gradients, errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inplace_lab as il
from tests.differential.harness import compare_torch

pytest.importorskip("torch")


def _mask(T, bits, shape=None):
    m = T.tensor(bits)
    return m if shape is None else m.reshape(shape)


# Each case: (id, index builder taking the library T). x is arange(60).reshape(3, 4, 5).
CASES = [
    ("int", lambda T: 0), ("neg_int", lambda T: -1), ("two_ints", lambda T: (1, 2)),
    ("step_slice", lambda T: slice(None, None, 2)), ("lone_full_slice", lambda T: slice(None)),
    ("full_slices_skipped", lambda T: (slice(None), slice(None))),
    ("full_slice_then_int", lambda T: (slice(0, 100), 0)),
    ("neg_start_slice", lambda T: (slice(-3, None), 0)),
    ("slice_none_int", lambda T: (slice(1, None, 2), None, 0)),
    ("ellipsis", lambda T: ...), ("ellipsis_int", lambda T: (..., 0)),
    ("none_ellipsis_none", lambda T: (None, ..., None)), ("none", lambda T: None),
    ("zero_dim_int_tensor", lambda T: T.tensor(1)), ("two_zero_dim", lambda T: (T.tensor(1), T.tensor(2))),
    ("np_int", lambda T: np.int64(2)), ("np_0d_array", lambda T: np.array(1)),
    ("list", lambda T: [0, 2, 0]), ("long_tensor", lambda T: T.tensor([0, 2, 0])),
    ("int32_tensor", lambda T: T.tensor([1, 0], dtype=T.int32)),
    ("np_array", lambda T: np.array([1, 2])), ("np_2d_array", lambda T: np.array([[0, 1], [1, 2]])),
    ("float_list_truncates", lambda T: (slice(None), [1.7])),
    ("slice_adv_adv", lambda T: (slice(None), [0, 1], [1, 2])),
    ("int_slice_adv", lambda T: (0, slice(None), [0, 1])),
    ("adv_slice_int", lambda T: ([0, 1], slice(None), 0)),
    ("broadcast_adv", lambda T: (T.tensor([[0], [1]]), T.tensor([1, 2]))),
    ("separated_adv", lambda T: ([0, 1], slice(None), [1, 2])),
    ("adv_none_adv", lambda T: ([0, 1], None, [0, 1])),
    ("none_adv_none", lambda T: (None, [0, 1], None)),
    ("ellipsis_adv", lambda T: (..., [0, 1])), ("int_ellipsis_adv", lambda T: (1, ..., [0, 1])),
    ("mask", lambda T: _mask(T, [True, False, True])), ("bool_list", lambda T: [True, False, True]),
    ("np_mask", lambda T: np.array([True, False, True])),
    ("mask_2d_then_int", lambda T: (_mask(T, [True, False, False, True] * 3, (3, 4)), 0)),
    ("mask_after_slice", lambda T: (slice(None), _mask(T, [[True, False, True, True, False]] * 4))),
    ("mask_then_adv", lambda T: (_mask(T, [True, False, True]), slice(None), [0, 1])),
    ("all_false_mask", lambda T: T.zeros(3, 4, 5, dtype=T.bool)),
    ("py_true", lambda T: True), ("py_false", lambda T: False), ("true_adv", lambda T: (True, [0, 1])),
    ("zero_dim_true", lambda T: T.tensor(True)), ("zero_dim_false", lambda T: T.tensor(False)),
    ("nested_list_is_tuple", lambda T: [[0, 1], [1, 2]]), ("tuple_in_tuple", lambda T: ((0, 1),)),
    ("range", lambda T: range(2)), ("empty_list", lambda T: []), ("two_empty", lambda T: ([], [])),
    ("repeated", lambda T: ([0, 0, 0],)), ("list_of_tensors_is_tuple", lambda T: [T.tensor(0), T.tensor(1)]),
    ("tensor_slice_bounds", lambda T: slice(T.tensor(0), T.tensor(2))),
]

ERRORS = [
    ("int_out_of_bounds", lambda T: 5), ("neg_out_of_bounds", lambda T: -4),
    ("second_dim_oob", lambda T: (0, 7)), ("zero_dim_tensor_oob", lambda T: T.tensor(7)),
    ("list_oob", lambda T: [5]), ("neg_list_oob", lambda T: [-4]),
    ("adv_oob_names_position", lambda T: ([0], slice(None), [9])),
    ("adv_oob_after_slices", lambda T: (slice(None), slice(None), [9])),
    ("too_many", lambda T: (0, 0, 0, 0)), ("too_many_adv", lambda T: (0, 0, 0, [0])),
    ("mask_too_short", lambda T: _mask(T, [True, False])),
    ("mask_wrong_dim", lambda T: (slice(None), _mask(T, [True, False]))),
    ("mask_2d_wrong", lambda T: T.ones(3, 3, dtype=T.bool)),
    ("mask_leading_one", lambda T: _mask(T, [[True, False, True]])),
    ("float", lambda T: 1.5), ("object", lambda T: object()), ("str", lambda T: "a"),
    ("float_tensor", lambda T: T.tensor([1.0])), ("int16_tensor", lambda T: T.tensor([1], dtype=T.int16)),
    ("float_then_oob", lambda T: (T.tensor([5]), T.tensor([1.0]))),
    ("not_broadcastable", lambda T: ([0, 1], [0, 1, 2])),
    ("negative_step", lambda T: slice(None, None, -1)), ("zero_step", lambda T: slice(0, 1, 0)),
]


def _getitem_program(make_index):
    def prog(T):
        x = T.arange(60.).reshape(3, 4, 5).clone().requires_grad_()
        y = x * 1
        r = y[make_index(T)]
        w = T.arange(float(r.numel())).reshape(r.shape)
        (r * w).sum().backward()
        return {"r": r, "fn": r.grad_fn, "view": r._is_view(), "shares": r._base is y,
                "grad": x.grad, "versions": [y._version, r._version]}

    return prog


@pytest.mark.parametrize("make_index", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_getitem_matches_torch(make_index):
    compare_torch(_getitem_program(make_index))


@pytest.mark.parametrize("make_index", [c[1] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_getitem_errors_match_torch(make_index):
    compare_torch(_getitem_program(make_index))


def test_getitem_chain_of_views_has_torch_grad_fns():
    def prog(T):
        x = T.arange(60.).reshape(3, 4, 5).clone().requires_grad_()
        r = x[None, 0, 1:3]
        f = r.grad_fn
        names = []
        while f is not None and f.next_functions:
            names.append(f.name())
            f = f.next_functions[0][0]
        return {"names": names, "base_is_root": r._base is x}

    compare_torch(prog)


def test_zero_dim_tensor_indexing_matches_torch():
    for make in (lambda T: 0, lambda T: (0,), lambda T: ..., lambda T: None, lambda T: True,
                 lambda T: T.tensor(True), lambda T: [0]):
        compare_torch(lambda T, make=make: {"r": T.tensor(3.)[make(T)]})


def test_repeated_advanced_indices_accumulate_gradient():
    x = il.tensor([1., 2., 3.], requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    assert x.grad.tolist() == [3., 0., 1.]


def test_advanced_index_is_a_fresh_copy():
    x = il.arange(6.).reshape(2, 3)
    r = x[[1, 0]]
    assert r._base is None and r.untyped_storage() is not x.untyped_storage()
    r.add_(100)
    assert x.tolist() == [[0., 1., 2.], [3., 4., 5.]]


def test_basic_index_shares_storage_and_version_counter():
    x = il.arange(6.).reshape(2, 3).clone()
    v = x[1, ::2]
    assert v._base is x and v.untyped_storage() is x.untyped_storage()
    v.add_(1)
    assert x._version == v._version == 1 and x.tolist() == [[0., 1., 2.], [4., 4., 6.]]


def test_saved_index_tensor_is_version_checked():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        idx = T.tensor([0, 1])
        r = (x * 2)[idx]
        idx[0] = 1
        r.sum().backward()
        return {}

    compare_torch(prog)


def test_double_backward_through_index():
    def prog(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        y = (x ** 2)[[0, 2, 2]].sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return {"g": g, "gg": x.grad}

    compare_torch(prog)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_random_mixed_indices_match_numpy_after_selects(data):
    """Random slices and integer arrays: values equal torch's (and numpy's when no int is mixed)."""
    import torch

    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    idx = []
    for n in shape:
        kind = data.draw(st.sampled_from(["slice", "array", "int", "none"]))
        if kind == "slice":
            a, b = data.draw(st.integers(-n, n)), data.draw(st.integers(-n, n))
            idx.append(slice(a, b, data.draw(st.integers(1, 3))))
        elif kind == "array":
            idx.append(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))
        elif kind == "int":
            idx.append(data.draw(st.integers(-n, n - 1)))
        else:
            idx.append(None)
    arrays = [i for i in idx if isinstance(i, list)]
    if len({len(a) for a in arrays}) > 1:
        return  # not broadcastable: covered by the error tests
    a = np.arange(float(np.prod(shape))).reshape(shape)
    try:
        ref = torch.tensor(a)[tuple(idx)]
    except IndexError as e:  # None entries shift dims, so some draws are out of bounds
        with pytest.raises(IndexError) as got_err:
            il.tensor(a)[tuple(idx)]
        assert str(got_err.value) == str(e)
        return
    got = il.tensor(a)[tuple(idx)]
    assert tuple(got.shape) == tuple(ref.shape)
    assert np.array_equal(np.asarray(got), ref.numpy())


@pytest.mark.parametrize("expr", [
    "x[..., 3, 2]", "x[3, 2]", "x[..., 5]", "x[..., 0, 5]", "y[..., 3, 0]", "y[..., 4]",
    "y[0, ..., 5]", "y[..., 2, 0, 0]", "y[5, ...]", "y[1, ..., 4, 0]", "x[..., None, 4]",
    "y[:, ..., 3, 0]", "x[None, 5]", "x[:, None, 5]", "x[T.tensor([0]), 5]", "x[True, 5]",
    "x[0, None, 7]", "x[[0], 5]"])
def test_out_of_bounds_integer_names_its_place_in_the_index(expr):
    """PyTorch's applySelect names the entry's position in the index tuple, not the dim it
    lands on: ``x[..., 3]`` of a [3, 4] says dimension 1 (sweep seed 6551)."""
    torch = pytest.importorskip("torch")
    import inplace_lab.torch as ilt

    texts = []
    for T in (torch, ilt):
        with pytest.raises(IndexError) as e:
            eval(expr, {"T": T, "x": T.ones(3, 4), "y": T.ones(2, 3, 4)})  # noqa: S307
        texts.append(str(e.value))
    assert texts[0] == texts[1]
