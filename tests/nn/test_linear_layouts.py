"""mm / addmm / F.linear with column-major operands (``w.t()``): PyTorch computes such an
operand's gradient transposed (``mm_mat2_backward``: ``(g.t() @ mat1).t()``), so it comes out
in the operand's own layout. The same here (ops/linalg.py layout variants): values, gradient
strides, grad_fn names and versions agree with torch 2.13, and the array-level backward lane
gives the gradients of the tensor formulas bit for bit."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab as il
import inplace_lab.nn.functional as F
from inplace_lab.ops.table import OPS

rng = np.random.default_rng(3)


def _leaf(lib, a, col_major, grad=True):
    """A leaf holding ``a``, stored row-major or column-major (strides (1, rows))."""
    if col_major:
        t = lib.tensor(np.ascontiguousarray(a.T)).t().detach()
    else:
        t = lib.tensor(a)
    return t.requires_grad_(grad)


def _names(fn):
    return [None if n is None else n.name() for n, _ in fn.next_functions]


CASES = list(itertools.product([False, True], [False, True], [False, True], [False, True]))


@pytest.mark.parametrize("cm1,cm2,g1,g2", CASES)
@pytest.mark.parametrize("op", ["mm", "addmm"])
def test_mm_addmm_layouts_match_torch(op, cm1, cm2, g1, g2):
    if not (g1 or g2):
        return
    a, b, s = rng.normal(size=(4, 5)), rng.normal(size=(5, 3)), rng.normal(size=(3,))
    g = rng.normal(size=(4, 3))
    res = {}
    for lib in (torch, il):
        x, w = _leaf(lib, a, cm1, g1), _leaf(lib, b, cm2, g2)
        bias = lib.tensor(s, requires_grad=True)
        y = x.mm(w) if op == "mm" else lib.addmm(bias, x, w, beta=1, alpha=1)
        y.backward(lib.tensor(g))
        res[lib] = (y, x, w, bias)
    (ty, tx, tw, tb), (iy, ix, iw, ib) = res[torch], res[il]
    np.testing.assert_allclose(iy.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    assert iy.grad_fn.name() == ty.grad_fn.name()
    assert _names(iy.grad_fn) == _names(ty.grad_fn)
    for t, i in ((tx, ix), (tw, iw)) + (((tb, ib),) if op == "addmm" else ()):
        assert (i.grad is None) == (t.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(i.grad.numpy(), t.grad.numpy(), rtol=1e-12)
            assert i.grad.stride() == t.grad.stride()
            assert i.grad._version == t.grad._version
        assert i._version == t._version


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x_grad", [True, False])
def test_linear_grads_layouts_versions_match_torch(bias, x_grad):
    a, w, b = rng.normal(size=(6, 5)), rng.normal(size=(4, 5)), rng.normal(size=(4,))
    g = rng.normal(size=(6, 4))
    res = {}
    for lib, fn in ((torch, torch.nn.functional.linear), (il, F.linear)):
        x = lib.tensor(a, requires_grad=x_grad)
        W, B = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
        y = fn(x, W, B if bias else None)
        y.backward(lib.tensor(g))
        res[lib] = (y, x, W, B)
    (ty, tx, tW, tB), (iy, ix, iW, iB) = res[torch], res[il]
    np.testing.assert_allclose(iy.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    assert iy.grad_fn.name() == ty.grad_fn.name()
    assert _names(iy.grad_fn) == _names(ty.grad_fn)
    for t, i in ((tx, ix), (tW, iW)) + (((tB, iB),) if bias else ()):
        if t.grad is None:
            assert i.grad is None
            continue
        np.testing.assert_allclose(i.grad.numpy(), t.grad.numpy(), rtol=1e-12)
        assert i.grad.stride() == t.grad.stride() and i.grad.is_contiguous()
        assert i.grad._version == t.grad._version and i._version == t._version


def test_second_backward_accumulates_like_torch():
    a, w = rng.normal(size=(3, 5)), rng.normal(size=(2, 5))
    out = {}
    for lib, fn in ((torch, torch.nn.functional.linear), (il, F.linear)):
        x, W = lib.tensor(a), lib.tensor(w, requires_grad=True)
        for _ in range(2):
            fn(x, W).sum().backward()
        out[lib] = W
    np.testing.assert_allclose(out[il].grad.numpy(), out[torch].grad.numpy(), rtol=1e-12)
    assert out[il].grad._version == out[torch].grad._version
    assert out[il].grad.stride() == out[torch].grad.stride()


def test_double_backward_through_linear_matches_torch():
    a, w = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    out = {}
    for lib, fn in ((torch, torch.nn.functional.linear), (il, F.linear)):
        x, W = lib.tensor(a, requires_grad=True), lib.tensor(w, requires_grad=True)
        y = fn(x, W).tanh().sum()
        (gw,) = lib.autograd.grad(y, [W], create_graph=True)
        (gw * gw).sum().backward()
        out[lib] = (gw, x.grad, W.grad)
    for i, t in zip(out[il], out[torch]):
        np.testing.assert_allclose(i.detach().numpy(), t.detach().numpy(), rtol=1e-10)


def _grads_with(use_arrays, prog, dt):
    r = np.random.default_rng(0)
    x = _leaf(il, r.uniform(-1, 1, (4, 5)).astype(dt.np), True)
    w = _leaf(il, r.uniform(-1, 1, (3, 5)).astype(dt.np), False)
    b = il.tensor(r.uniform(-1, 1, (3,)).astype(dt.np), requires_grad=True)
    saved = {n: OPS[n].backward_array for n in ("mm", "addmm")}
    taken = []
    try:
        for n, f in saved.items():
            OPS[n].backward_array = (lambda node, g, f=f: taken.append(f(node, g)) or taken[-1]) \
                if use_arrays else None
        out = prog(x, w, b)
        out.backward(il.ones_like(out) * 0.75)
    finally:
        for n, f in saved.items():
            OPS[n].backward_array = f
    return x.grad, w.grad, b.grad, sum(t is not None for t in taken)


PROGRAMS = [
    lambda x, w, b: F.linear(x, w, b),
    lambda x, w, b: F.linear(x, w),
    lambda x, w, b: il.addmm(b, x, w.t(), beta=0.5, alpha=2.0),
    lambda x, w, b: x.t().t().mm(w.t()),
    lambda x, w, b: w.mm(x.t()),  # column-major mat2 = x.t() of a column-major leaf: row-major
    lambda x, w, b: x.t().mm(il.ones(4, 2, dtype=x.dtype)),  # row-major mat1
]


@pytest.mark.parametrize("dt", [il.float32, il.float64], ids=str)
@pytest.mark.parametrize("k", range(len(PROGRAMS)))
def test_array_lane_equals_tensor_formula(dt, k):
    ax, aw, ab, n = _grads_with(True, PROGRAMS[k], dt)
    tx, tw, tb, _ = _grads_with(False, PROGRAMS[k], dt)
    assert n > 0
    for a, t in ((ax, tx), (aw, tw), (ab, tb)):
        assert (a is None) == (t is None)
        if a is not None:
            assert a.dtype == t.dtype and a.stride() == t.stride()
            assert np.array_equal(a.numpy(), t.numpy())


def test_addmm_forward_in_place_add_keeps_values_and_self():
    s = il.tensor(rng.normal(size=(3,)).astype(np.float32))
    before = s.numpy().copy()
    a = il.tensor(rng.normal(size=(2, 4)).astype(np.float32))
    b = il.tensor(rng.normal(size=(4, 3)).astype(np.float32))
    y = il.addmm(s, a, b)
    np.testing.assert_array_equal(s.numpy(), before)
    np.testing.assert_array_equal(y.numpy(), a.numpy() @ b.numpy() + before)
    assert s._version == 0 and y.is_contiguous()


def test_linear_weight_grad_is_stolen_not_copied(monkeypatch):
    from inplace_lab.autograd import engine

    copies = []
    orig = engine.clone_obey_contract
    monkeypatch.setattr(engine, "clone_obey_contract", lambda g, like: copies.append(like.shape)
                        or orig(g, like))
    x = il.randn(6, 5)
    W, B = il.randn(4, 5, requires_grad=True), il.randn(4, requires_grad=True)
    F.linear(x, W, B).sum().backward()
    assert copies == []
    assert W.grad._base is None and W.grad.is_contiguous() and W.grad._version == 0


def test_views_of_held_gradients_are_never_stolen():
    w = il.randn(3, 4, requires_grad=True)
    G = il.randn(4, 3)
    w.t().backward(G)  # the root gradient is the caller's: w.grad must be a copy
    before = w.grad.numpy().copy()
    G.mul_(2)
    np.testing.assert_array_equal(w.grad.numpy(), before)
    a, b = il.randn(3, 4, requires_grad=True), il.randn(3, 4, requires_grad=True)
    (a.t() + b.t()).backward(il.randn(4, 3))  # one gradient, two views of it: two copies
    a.grad.zero_()
    assert b.grad.abs().sum().item() > 0
    x = il.randn(5, 3, requires_grad=True)
    x[:2].sum().backward()  # a slice of a bigger gradient: copied, never the big storage
    assert x.grad._storage.size() == 15
