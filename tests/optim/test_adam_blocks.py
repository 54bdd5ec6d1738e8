"""Adam/AdamW's blocked update (optim/algorithms.py ``_adam_blocks``): the same table kernels
as the op sequence (lerp_, mul_, addcmul_, sqrt, div, add_, addcdiv_) on cache-sized blocks.
Bit-identical to the op sequence, same version bumps as torch 2.13, and not taken while a
listener watches (a trace still shows every op)."""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab import hooks
from inplace_lab.optim import algorithms

torch = pytest.importorskip("torch")

SHAPES = [(3,), (70, 1000), (5, 7), (algorithms._BLOCK + 3,)]
CONFIGS = [
    ("Adam", {"lr": 1e-2}),
    ("Adam", {"lr": 1e-2, "weight_decay": 0.1, "betas": (0.8, 0.99), "eps": 1e-6}),
    ("Adam", {"lr": 1e-2, "maximize": True}),
    ("AdamW", {"lr": 1e-2, "weight_decay": 0.05}),
    ("Adam", {"lr": 1e-2, "amsgrad": True}),
]


def _train(lib, opt_name, kw, dt, steps=3, blocked=True, monkeypatch=None):
    rng = np.random.default_rng(7)
    params = [lib.tensor(rng.normal(size=s).astype(dt), requires_grad=True) for s in SHAPES]
    opt = getattr(lib.optim, opt_name)(params, **kw)
    if not blocked:
        monkeypatch.setattr(algorithms, "_plain_block_arrays", lambda *ts: None)
    for k in range(steps):
        opt.zero_grad()
        for p in params:
            p.grad = lib.tensor(rng.normal(size=tuple(p.shape)).astype(dt))
        opt.step()
    if not blocked:
        monkeypatch.undo()
    return params, opt


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("opt_name,kw", CONFIGS, ids=str)
def test_blocked_update_is_bit_identical_to_the_op_sequence(opt_name, kw, dt, monkeypatch):
    bp, bopt = _train(il, opt_name, kw, dt)
    op, oopt = _train(il, opt_name, kw, dt, blocked=False, monkeypatch=monkeypatch)
    for a, b in zip(bp, op):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
        assert a._version == b._version
        sa, sb = bopt.state[a], oopt.state[b]
        assert sa.keys() == sb.keys()
        for k in sa:
            assert np.array_equal(sa[k].numpy(), sb[k].numpy()), k
            assert sa[k]._version == sb[k]._version, k


@pytest.mark.parametrize("opt_name,kw", CONFIGS, ids=str)
def test_values_and_versions_match_torch(opt_name, kw):
    ip, iopt = _train(il, opt_name, kw, np.float64)
    tp, topt = _train(torch, opt_name, kw, np.float64)
    for a, b in zip(ip, tp):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
        assert a._version == b._version
        sa, sb = iopt.state[a], topt.state[b]
        assert sorted(sa) == sorted(sb)
        for k in sa:
            np.testing.assert_allclose(sa[k].numpy(), sb[k].numpy(), rtol=1e-10, atol=1e-12)
            assert sa[k]._version == sb[k]._version, k


def test_a_listener_sees_every_op_of_the_update():
    p = il.randn(4, requires_grad=True)
    opt = il.optim.Adam([p], lr=0.1)
    p.grad = il.randn(4)
    seen = []
    h = hooks.subscribe(seen.append)
    try:
        opt.step()
    finally:
        hooks.unsubscribe(h)
    ops = [e.op for e in seen if e.event == "op" and e.kind == "inplace"]
    assert ops[-5:] == ["lerp", "mul", "addcmul", "add", "addcdiv"]


def test_aliased_or_strided_tensors_take_the_op_sequence():
    base = il.randn(4, 6)
    p = base[:, ::2].detach().requires_grad_()  # strided leaf
    assert algorithms._plain_block_arrays(p, il.randn(4, 3), il.zeros(4, 3), il.zeros(4, 3)) is None
    q = il.randn(8)
    assert algorithms._plain_block_arrays(q, q, il.zeros(8), il.zeros(8)) is None
    assert algorithms._plain_block_arrays(q, il.randn(8), il.zeros(8), il.zeros(8)) is not None
