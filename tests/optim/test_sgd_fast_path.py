"""SGD's parameter update (optim/algorithms.py ``_add_``): the table's add kernel on the flat
arrays, one version bump, no dispatcher. The kernel is BLAS axpy, PyTorch's fused
multiply-add, so plain SGD gives torch 2.13's parameters *bit for bit* (float32 and
float64), and the same bits and versions as the op path a listener sees."""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab import hooks
from inplace_lab.optim import algorithms

torch = pytest.importorskip("torch")

SHAPES = [(3,), (70, 300), (5, 7), (9000,), (1, 1)]
CONFIGS = [
    {"lr": 1e-2},
    {"lr": 0.3, "maximize": True},
    {"lr": 1e-2, "momentum": 0.9},
    {"lr": 1e-2, "momentum": 0.9, "dampening": 0.25, "weight_decay": 1e-3},
    {"lr": 1e-2, "momentum": 0.8, "nesterov": True},
]


def _train(lib, kw, dt, steps=3, fast=True, monkeypatch=None):
    rng = np.random.default_rng(11)
    params = [lib.tensor(rng.normal(size=s).astype(dt), requires_grad=True) for s in SHAPES]
    ptrs = [p.data_ptr() for p in params]
    opt = lib.optim.SGD(params, **kw)
    if not fast:
        monkeypatch.setattr(algorithms, "_plain_block_arrays", lambda *ts: None)
    for _ in range(steps):
        opt.zero_grad()
        for p in params:
            p.grad = lib.tensor(rng.normal(size=tuple(p.shape)).astype(dt))
        opt.step()
    if not fast:
        monkeypatch.undo()
    assert [p.data_ptr() for p in params] == ptrs  # updated in place
    return params, opt


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("kw", CONFIGS, ids=str)
def test_fast_update_is_bit_identical_to_the_op_path(kw, dt, monkeypatch):
    fp, fopt = _train(il, kw, dt)
    op, oopt = _train(il, kw, dt, fast=False, monkeypatch=monkeypatch)
    for a, b in zip(fp, op):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
        assert a._version == b._version
        for k in fopt.state[a]:
            assert np.array_equal(fopt.state[a][k].numpy(), oopt.state[b][k].numpy())
            assert fopt.state[a][k]._version == oopt.state[b][k]._version


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("kw", CONFIGS, ids=str)
def test_values_and_versions_match_torch(kw, dt):
    ip, iopt = _train(il, kw, dt)
    tp, topt = _train(torch, kw, dt)
    for a, b in zip(ip, tp):  # (every op of the update is one rounding, as torch's kernels)
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
        assert a._version == b._version
        assert sorted(iopt.state[a]) == sorted(topt.state[b])
        for k in iopt.state[a]:
            assert np.array_equal(iopt.state[a][k].numpy(), topt.state[b][k].numpy())
            assert iopt.state[a][k]._version == topt.state[b][k]._version


def test_a_listener_sees_the_update_op():
    p = il.randn(4, requires_grad=True)
    opt = il.optim.SGD([p], lr=0.1)
    p.grad = il.randn(4)
    seen = []
    h = hooks.subscribe(seen.append)
    try:
        opt.step()
    finally:
        hooks.unsubscribe(h)
    ops = [e.op for e in seen if e.event == "op" and e.kind == "inplace"]
    assert ops == ["add"]


def test_strided_or_aliased_parameters_take_the_op_path():
    base = il.randn(4, 6)
    p = base[:, ::2].detach().requires_grad_()  # a strided leaf
    before = p.detach().numpy().copy()
    g = il.randn(4, 3)
    p.grad = g
    v = p._version
    il.optim.SGD([p], lr=0.5).step()
    np.testing.assert_allclose(p.detach().numpy(), before - 0.5 * g.numpy(), rtol=1e-6)
    assert p._version == v + 1 and base._version == v + 1  # (a view: one shared counter)
    q = il.randn(5, requires_grad=True)
    q.grad = q.detach()  # the gradient aliases the parameter: the op path's semantics
    qb = q.detach().numpy().copy()
    il.optim.SGD([q], lr=0.5).step()
    np.testing.assert_allclose(q.detach().numpy(), qb * 0.5, rtol=1e-6)
