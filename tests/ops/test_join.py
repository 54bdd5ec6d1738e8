"""cat, stack, gather, scatter, index_*, masked_*, flip, roll, repeat, put against torch 2.13."""
from __future__ import annotations

import pytest

import inplace_lab as il
from tests.differential.harness import attempt, compare_torch

pytest.importorskip("torch")


def _x(T):
    return T.arange(12.).reshape(3, 4).clone().requires_grad_()


def _src(T):
    return T.arange(100., 112.).reshape(3, 4).requires_grad_()


# (id, f(T, x, s) -> result); x and s are leaves requiring grad, shape [3, 4]
OUT_OF_PLACE = [
    ("cat0", lambda T, x, s: T.cat([x, s])), ("cat1", lambda T, x, s: T.cat((x, s), 1)),
    ("concat", lambda T, x, s: T.concat([x, s], -1)), ("concatenate", lambda T, x, s: T.concatenate([x, s])),
    ("cat_double", lambda T, x, s: T.cat([x, s.double()])), ("cat_skips_empty", lambda T, x, s: T.cat([x, T.ones(0)])),
    ("stack", lambda T, x, s: T.stack([x, s])), ("stack_last", lambda T, x, s: T.stack([x, s], -1)),
    ("hstack", lambda T, x, s: T.hstack([x, s])), ("vstack", lambda T, x, s: T.vstack([x, s])),
    ("hstack_1d", lambda T, x, s: T.hstack([x[0], s[0]])), ("vstack_1d", lambda T, x, s: T.vstack([x[0], s[0]])),
    ("gather_dup", lambda T, x, s: x.gather(0, T.tensor([[0, 1, 2, 0], [0, 0, 0, 0]]))),
    ("gather_small", lambda T, x, s: T.gather(x, 1, T.tensor([[3, 3], [0, 0]]))),
    ("scatter", lambda T, x, s: x.scatter(0, T.tensor([[0, 1, 2, 0]]), s[:1])),
    ("scatter_dup", lambda T, x, s: x.scatter(1, T.tensor([[0, 0], [1, 1]]), s[:2, :2])),
    ("scatter_value", lambda T, x, s: x.scatter(0, T.tensor([[0, 1, 2, 0]]), 2.0)),
    ("scatter_add_dup", lambda T, x, s: x.scatter_add(0, T.tensor([[0, 0, 0, 0], [0, 1, 0, 1]]), s[:2])),
    ("index_select", lambda T, x, s: x.index_select(0, T.tensor([0, 2, 0]))),
    ("index_select_fn", lambda T, x, s: T.index_select(x, 1, T.tensor([3, 1]))),
    ("index_add_dup", lambda T, x, s: x.index_add(0, T.tensor([0, 0, 1]), s)),
    ("index_add_alpha", lambda T, x, s: x.index_add(1, T.tensor([0, 0, 1, 3]), s, alpha=2)),
    ("index_fill", lambda T, x, s: x.index_fill(0, T.tensor([0, 2]), -1.0)),
    ("index_fill_neg", lambda T, x, s: x.index_fill(1, T.tensor([-1]), 5.0)),
    ("index_fill_tensor", lambda T, x, s: x.index_fill(0, T.tensor([1]), s[0, 0])),
    ("index_copy", lambda T, x, s: x.index_copy(0, T.tensor([2, 0, 1]), s)),
    ("masked_fill", lambda T, x, s: x.masked_fill(x > 5, 0.)),
    ("masked_fill_tensor", lambda T, x, s: x.masked_fill(x > 5, s[1, 1])),
    ("masked_fill_broadcast", lambda T, x, s: x.masked_fill(T.ones(2, 3, 4, dtype=T.bool), 1.)),
    ("masked_select", lambda T, x, s: x.masked_select(x > 5)),
    ("masked_select_broadcast", lambda T, x, s: x[0].masked_select(T.tensor([[True], [False], [True]]))),
    ("masked_scatter", lambda T, x, s: x.masked_scatter(x > 5, s)),
    ("take_along_dim", lambda T, x, s: T.take_along_dim(x, T.tensor([[0, 2, 1, 0]]), 0)),
    ("take_along_dim_flat", lambda T, x, s: T.take_along_dim(x, T.tensor([0, 5, 5]))),
    ("take_along_dim_broadcast", lambda T, x, s: x.take_along_dim(T.tensor([[1], [0], [3]]), 1)),
    ("flip", lambda T, x, s: x.flip(0)), ("flip2", lambda T, x, s: x.flip(0, 1)), ("flip_list", lambda T, x, s: T.flip(x, [1])),
    ("roll", lambda T, x, s: x.roll(1, 0)), ("roll_flat", lambda T, x, s: x.roll(5)),
    ("roll_two", lambda T, x, s: T.roll(x, (1, -1), (0, 1))),
    ("repeat", lambda T, x, s: x.repeat(2, 1, 3)), ("repeat_list", lambda T, x, s: x.repeat([1, 2])),
    ("tile", lambda T, x, s: x.tile(2)), ("tile_more", lambda T, x, s: T.tile(x, (2, 1, 1))),
    ("put", lambda T, x, s: x.put(T.tensor([0, 5]), s[0, :2])),
    ("put_acc_dup", lambda T, x, s: x.put(T.tensor([0, 0, -1]), s[0, :3], accumulate=True)),
    ("take", lambda T, x, s: x.take(T.tensor([[0, 11], [0, 3]]))),
]


@pytest.mark.parametrize("f", [c[1] for c in OUT_OF_PLACE], ids=[c[0] for c in OUT_OF_PLACE])
def test_out_of_place_values_grads_and_grad_fn_match_torch(f):
    def prog(T):
        x, s = _x(T), _src(T)
        r = f(T, x, s)
        w = T.arange(1., r.numel() + 1.).reshape(r.shape).to(r.dtype)
        (r * w).sum().backward()
        return {"r": r, "fn": r.grad_fn, "view": r._is_view(), "gx": x.grad, "gs": s.grad}

    compare_torch(prog)


ERRORS = [
    ("cat_empty", lambda T, x: T.cat([])), ("cat_0d", lambda T, x: T.cat([T.tensor(1.)])),
    ("cat_sizes", lambda T, x: T.cat([x, T.ones(2, 3)], 1)), ("cat_dim", lambda T, x: T.cat([x, x], 2)),
    ("cat_ndim", lambda T, x: T.cat([x, T.ones(3)])), ("cat_tensor", lambda T, x: T.cat(x)),
    ("stack_empty", lambda T, x: T.stack([])), ("stack_sizes", lambda T, x: T.stack([x, T.ones(2, 4)])),
    ("gather_ndim", lambda T, x: x.gather(0, T.tensor([0]))),
    ("gather_size", lambda T, x: x.gather(0, T.tensor([[0, 1, 2, 0, 1]]))),
    ("gather_oob", lambda T, x: x.gather(0, T.tensor([[5]]))), ("gather_neg", lambda T, x: x.gather(0, T.tensor([[-1]]))),
    ("scatter_oob", lambda T, x: x.scatter(0, T.tensor([[5]]), x)),
    ("scatter_dtype", lambda T, x: x.scatter(0, T.tensor([[0]]), x.double())),
    ("scatter_ndim", lambda T, x: x.scatter(0, T.tensor([0]), x)),
    ("scatter_size", lambda T, x: x.scatter(0, T.zeros(2, 2, dtype=T.long), T.ones(1, 1))),
    ("scatter_add_value", lambda T, x: x.scatter_add(0, T.tensor([[0]]), 1.0)),
    ("index_select_2d", lambda T, x: x.index_select(0, T.tensor([[0]]))),
    ("index_select_float", lambda T, x: x.index_select(0, T.tensor([0.]))),
    ("index_select_oob", lambda T, x: x.index_select(0, T.tensor([5]))),
    ("index_add_count", lambda T, x: x.index_add(0, T.tensor([0, 1]), T.ones(3, 4))),
    ("index_add_shape", lambda T, x: x.index_add(0, T.tensor([0, 1]), T.ones(2, 3))),
    ("index_add_oob", lambda T, x: x.index_add(0, T.tensor([0, 5]), T.ones(2, 4))),
    ("index_add_dtype", lambda T, x: x.index_add(0, T.tensor([0, 1]), T.ones(2, 4).double())),
    ("index_add_2d", lambda T, x: x.index_add(0, T.tensor([[0, 1]]), T.ones(2, 4))),
    ("index_add_float_index", lambda T, x: x.index_add(0, T.tensor([0., 1]), T.ones(2, 4))),
    ("index_fill_oob", lambda T, x: x.index_fill(0, T.tensor([5]), 1.)),
    ("index_fill_value_dim", lambda T, x: x.index_fill(0, T.tensor([0]), T.ones(1))),
    ("index_fill_2d", lambda T, x: x.index_fill(0, T.tensor([[0]]), 1.)),
    ("index_copy_count", lambda T, x: x.index_copy(0, T.tensor([0]), T.ones(2, 4))),
    ("index_copy_oob", lambda T, x: x.index_copy(0, T.tensor([5]), T.ones(1, 4))),
    ("index_copy_dtype", lambda T, x: x.index_copy(0, T.tensor([0]), T.ones(1, 4).double())),
    ("index_copy_slice", lambda T, x: x.index_copy(0, T.tensor([0]), T.ones(1, 3))),
    ("masked_fill_value_dim", lambda T, x: x.masked_fill(x > 3, T.ones(1))),
    ("masked_fill_float_mask", lambda T, x: x.masked_fill((x > 3).float(), 1.)),
    ("masked_fill_shape", lambda T, x: x.masked_fill(T.ones(3, dtype=T.bool), 1.)),
    ("masked_select_float", lambda T, x: x.masked_select(x)),
    ("masked_scatter_few", lambda T, x: x.masked_scatter(x > 3, T.ones(2))),
    ("masked_scatter_dtype", lambda T, x: x.masked_scatter(x > 3, T.ones(2).double())),
    ("take_along_ndim", lambda T, x: T.take_along_dim(x, T.tensor([0]), 0)),
    ("take_along_float", lambda T, x: T.take_along_dim(x, T.tensor([[0.]]), 0)),
    ("flip_dup", lambda T, x: x.flip(0, 0)), ("flip_dim", lambda T, x: x.flip(2)),
    ("roll_align", lambda T, x: x.roll(1, (0, 1))), ("repeat_few", lambda T, x: x.repeat(2)),
    ("put_oob", lambda T, x: x.put(T.tensor([12]), T.tensor([1.]))),
    ("put_count", lambda T, x: x.put(T.tensor([0, 1]), T.tensor([1.]))),
    ("put_dtype", lambda T, x: x.put(T.tensor([0]), T.tensor([1.]).double())),
    ("put_float_index", lambda T, x: x.put(T.tensor([0.]), T.tensor([1.]))),
    ("take_oob", lambda T, x: x.take(T.tensor([12]))),
]


@pytest.mark.parametrize("f", [c[1] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_errors_match_torch(f):
    compare_torch(lambda T: {"r": attempt(lambda: f(T, T.arange(12.).reshape(3, 4)))})


# (id, in-place call on y (a [3, 4] non-leaf), s: a source requiring grad)
IN_PLACE = [
    ("scatter_", lambda T, y, s: y.scatter_(0, T.tensor([[0, 1, 2, 0]]), s[:1])),
    ("scatter_value_", lambda T, y, s: y.scatter_(1, T.tensor([[0, 0], [3, 3]]), -1.0)),
    ("scatter_add_", lambda T, y, s: y.scatter_add_(0, T.tensor([[0, 0, 0, 0], [2, 2, 2, 2]]), s[:2])),
    ("index_add_", lambda T, y, s: y.index_add_(0, T.tensor([0, 0, 2]), s)),
    ("index_fill_", lambda T, y, s: y.index_fill_(1, T.tensor([0, 3]), 7.0)),
    ("index_fill_tensor_", lambda T, y, s: y.index_fill_(1, T.tensor([0, 3]), s[0, 0])),
    ("index_copy_", lambda T, y, s: y.index_copy_(0, T.tensor([2, 0, 1]), s)),
    ("masked_fill_", lambda T, y, s: y.masked_fill_(y > 10, 1.)),
    ("masked_fill_tensor_", lambda T, y, s: y.masked_fill_(y > 10, s[2, 2])),
    ("masked_scatter_", lambda T, y, s: y.masked_scatter_(y > 10, s)),
    ("put_", lambda T, y, s: y.put_(T.tensor([0, 5]), s[1, :2])),
    ("put_acc_", lambda T, y, s: y.put_(T.tensor([0, 0]), s[1, :2], accumulate=True)),
]


@pytest.mark.parametrize("f", [c[1] for c in IN_PLACE], ids=[c[0] for c in IN_PLACE])
def test_inplace_on_non_leaf_matches_torch_and_keeps_storage(f):
    def prog(T):
        x, s = _x(T), _src(T)
        y = x * 2
        ptr, st = y.data_ptr(), y.untyped_storage()
        r = f(T, y, s)
        same = [r is y, y.data_ptr() == ptr, y.untyped_storage() is st]
        (y * T.arange(1., 13.).reshape(3, 4)).sum().backward()
        return {"y": y, "fn": y.grad_fn, "v": y._version, "same": same, "gx": x.grad, "gs": s.grad}

    compare_torch(prog)


@pytest.mark.parametrize("f", [c[1] for c in IN_PLACE], ids=[c[0] for c in IN_PLACE])
def test_inplace_on_a_view_rewrites_base_history(f):
    def prog(T):
        x, s = _x(T), _src(T)
        base = (x * 2).repeat(2, 1)
        y = base[3:]
        f(T, y, s)
        (base * T.arange(1., 25.).reshape(6, 4)).sum().backward()
        return {"base_fn": base.grad_fn, "v": [base._version, y._version], "gx": x.grad, "gs": s.grad}

    compare_torch(prog)


FAILING_INPLACE = [
    ("scatter_oob", lambda T, y: y.scatter_(0, T.tensor([[5]]), y.clone())),
    ("index_add_dtype", lambda T, y: y.index_add_(0, T.tensor([0]), T.ones(1, 4).double())),
    ("index_add_self_source", lambda T, y: y.index_add_(0, T.tensor([0, 1, 2]), y)),
    ("index_copy_oob", lambda T, y: y.index_copy_(0, T.tensor([9]), T.ones(1, 4))),
    ("index_fill_oob", lambda T, y: y.index_fill_(0, T.tensor([9]), 1.)),
    ("masked_fill_grow", lambda T, y: y.masked_fill_(T.ones(2, 3, 4, dtype=T.bool), 1.)),
    ("masked_scatter_grow", lambda T, y: y.masked_scatter_(T.ones(2, 3, 4, dtype=T.bool), T.ones(24))),
    ("put_oob", lambda T, y: y.put_(T.tensor([12]), T.tensor([1.]))),
    ("scatter_add_partial_overlap", lambda T, y: y[1:].scatter_add_(0, T.zeros(2, 4, dtype=T.long), y[:2])),
]


@pytest.mark.parametrize("f", [c[1] for c in FAILING_INPLACE], ids=[c[0] for c in FAILING_INPLACE])
def test_failed_inplace_leaves_data_shape_and_version(f):
    def prog(T):
        y = T.arange(12.).reshape(3, 4).clone()
        r = attempt(lambda: f(T, y))
        return {"r": r, "y": y, "shape": list(y.shape), "v": y._version}

    compare_torch(prog)


def test_masked_scatter_with_short_source_raises_before_writing():
    """PyTorch writes the first elements before it notices; inplace_lab checks first."""
    compare_torch(lambda T: {"r": attempt(
        lambda: T.arange(12.).reshape(3, 4).clone().masked_scatter_(T.ones(3, 4) > 0, T.ones(2)))})
    y = il.arange(12.).reshape(3, 4).clone()
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        y.masked_scatter_(y > 0, il.ones(2))
    assert y.tolist() == il.arange(12.).reshape(3, 4).tolist() and y._version == 0


def test_inplace_on_leaf_requiring_grad_is_refused():
    def prog(T):
        x = _x(T)
        return {"r": attempt(lambda: x.index_add_(0, T.tensor([0]), T.ones(1, 4))),
                "m": attempt(lambda: x[0].masked_fill_(x[0] > 1, 0.)), "v": x._version}

    compare_torch(prog)


def test_saved_index_and_mask_are_version_checked():
    def prog(T):
        x = _x(T)
        idx = T.tensor([[0, 1, 2, 0]])
        g = (x * 1).gather(0, idx)
        idx.add_(0)
        i1 = T.tensor([0, 2])
        sel = (x * 1).index_select(0, i1)
        i1.zero_()
        return {"gather": attempt(lambda: g.sum().backward()),
                "index_select": attempt(lambda: sel.sum().backward())}

    def mask_prog(T):
        x = _x(T)
        m = x > 5
        f = (x * 1).masked_fill(m, 0.)
        m.logical_not_()
        return {"masked_fill": attempt(lambda: f.sum().backward())}

    compare_torch(prog)
    compare_torch(mask_prog, prefix=95)  # torch names a bool tensor "CPUBoolType" in this text


def test_index_add_on_non_leaf_then_index_change_breaks_backward_only_when_index_changes():
    def prog(T):
        x = _x(T)
        y = x * 1
        idx = T.tensor([0, 0, 1])
        y.index_add_(0, idx, T.ones(3, 4))
        y.sum().backward()
        ok = x.grad.clone()
        z = x * 1
        z.index_add_(0, idx, T.ones(3, 4))
        idx[0] = 2
        return {"ok": ok, "broken": attempt(lambda: z.sum().backward())}

    compare_torch(prog)


def test_nonzero_is_not_differentiable_and_long():
    def prog(T):
        x = _x(T)
        n = (x - 5).nonzero()
        t = x.nonzero(as_tuple=True)
        return {"n": n, "fn": n.grad_fn is None, "t": list(t), "z": T.tensor(3.).nonzero()}

    compare_torch(prog)


def test_inplace_variants_exist_exactly_where_torch_has_them():
    import torch

    names = ["cat", "stack", "gather", "index_select", "masked_select", "flip", "roll", "repeat",
             "tile", "take_along_dim", "nonzero", "take", "put", "scatter", "scatter_add",
             "index_add", "index_fill", "index_copy", "masked_fill", "masked_scatter"]
    for n in names:
        assert hasattr(il.Tensor, n + "_") == hasattr(torch.Tensor, n + "_"), n
        assert hasattr(il.Tensor, n) == hasattr(torch.Tensor, n), n
        assert hasattr(il, n) == hasattr(torch, n), n
