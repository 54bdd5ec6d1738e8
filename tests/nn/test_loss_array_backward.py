"""cross_entropy's two nodes (LogSoftmaxBackward0, NllLossBackward0) have array-level backward
formulas (ops/backward_arrays.py): bit-identical to the tensor formulas for every reduction,
class weights, ignore_index and 1-D input, and equal to torch 2.13's gradients."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab as il
import inplace_lab.nn.functional as F
from inplace_lab.ops.table import OPS

NAMES = ("log_softmax", "_nll_loss")

CASES = [
    {}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 1},
    {"weight": True}, {"weight": True, "reduction": "sum"}, {"weight": True, "reduction": "none"},
    {"weight": True, "ignore_index": 2}, {"one_d": True}, {"one_d": True, "reduction": "sum"},
    {"label_smoothing": 0.1},
]


def _run(lib, fn, case, dt, use_arrays=None):
    rng = np.random.default_rng(1)
    kw = dict(case)
    one_d = kw.pop("one_d", False)
    shape = (5,) if one_d else (6, 5)
    x = lib.tensor(rng.normal(size=shape).astype(dt), requires_grad=True)
    t = lib.tensor(np.array(3) if one_d else rng.integers(0, 5, 6))
    if kw.pop("weight", False):
        kw["weight"] = lib.tensor(rng.uniform(0.5, 2.0, 5).astype(dt))
    saved = {n: OPS[n].backward_array for n in NAMES}
    taken = []
    try:
        if use_arrays is not None:
            for n, f in saved.items():
                OPS[n].backward_array = (lambda node, g, f=f: taken.append(f(node, g)) or taken[-1]) \
                    if use_arrays else None
        loss = fn(x, t, **kw)
        loss.backward(lib.ones_like(loss) * 0.5)
    finally:
        for n, f in saved.items():
            OPS[n].backward_array = f
    return loss, x.grad, sum(r is not None for r in taken)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_array_formulas_equal_tensor_formulas_and_torch(case, dt):
    al, ag, n = _run(il, F.cross_entropy, case, dt, use_arrays=True)
    _tl, tg, _ = _run(il, F.cross_entropy, case, dt, use_arrays=False)
    assert n >= 2  # both nodes took the array lane
    assert ag.dtype == tg.dtype and ag.stride() == tg.stride()
    assert np.array_equal(ag.numpy(), tg.numpy())
    ol, og, _ = _run(torch, torch.nn.functional.cross_entropy, case, dt)
    tol = 1e-6 if dt == np.float32 else 1e-12
    np.testing.assert_allclose(al.detach().numpy(), ol.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(ag.numpy(), og.numpy(), rtol=tol, atol=tol)
    assert al.grad_fn.name() == ol.grad_fn.name()


def test_nll_array_lane_keeps_the_saved_tensor_version_check():
    x = il.randn(4, 3, requires_grad=True)
    logp = x.log_softmax(1)
    loss = F.nll_loss(logp, il.tensor([0, 1, 2, 0]))
    with il.no_grad():
        logp.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_log_softmax_zero_dim_falls_back():
    for lib in (il, torch):
        x = lib.tensor(1.5, requires_grad=True)
        x.log_softmax(0).backward()
        assert float(x.grad) == 0.0
