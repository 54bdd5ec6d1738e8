"""conv2d as im2col + batched GEMM (groups == 1) and max_pool2d tap by tap (no window copies):
values, gradients, NaN/-inf/signed-zero maxima and first-of-ties argmax vs torch 2.13."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as TF

import inplace_lab as il
import inplace_lab.nn.functional as F

rng = np.random.default_rng(11)


@pytest.mark.parametrize("dt,tol", [(np.float32, 1e-5), (np.float64, 1e-12)], ids=["f32", "f64"])
@pytest.mark.parametrize("kw", [{}, {"stride": 2}, {"padding": 2, "dilation": 2},
                                {"stride": (2, 1), "padding": (1, 0)}, {"padding": "same"}], ids=str)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_groups1_matches_torch(kw, bias, dt, tol):
    x, w = rng.normal(size=(3, 2, 9, 8)).astype(dt), rng.normal(size=(5, 2, 3, 3)).astype(dt)
    b = rng.normal(size=5).astype(dt)
    out = {}
    for lib, fn in ((torch, TF.conv2d), (il, F.conv2d)):
        tx, tw, tb = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        y = fn(tx, tw, tb if bias else None, **kw)
        g = np.random.default_rng(0).normal(size=tuple(y.shape)).astype(dt)
        y.backward(lib.tensor(g))
        out[lib] = (y, tx.grad, tw.grad, tb.grad)
        assert y.is_contiguous()
    for i, t in zip(out[il], out[torch]):
        assert (i is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(i.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
    assert out[il][0].grad_fn.name() == out[torch][0].grad_fn.name()


def _pool_input(kind):
    x = rng.integers(-2, 3, (2, 3, 7, 8)).astype(np.float64)
    if kind == "neg_inf":
        x[rng.random(x.shape) < 0.3] = -np.inf
    elif kind == "signed_zeros":
        x = x * 0.0 * np.sign(rng.normal(size=x.shape))
    return x


@pytest.mark.parametrize("kind", ["ties", "neg_inf", "signed_zeros"])
@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 2, "ceil_mode": True},
                                {"kernel_size": 2, "stride": 1, "dilation": 2},
                                {"kernel_size": (2, 3), "stride": (1, 2), "padding": 1,
                                 "ceil_mode": True}], ids=str)
def test_max_pool2d_matches_torch_bitwise(kw, kind):
    x = _pool_input(kind)
    out = {}
    for lib, fn in ((torch, TF.max_pool2d), (il, F.max_pool2d)):
        tx = lib.tensor(x, requires_grad=True)
        y = fn(tx, **kw)
        g = np.random.default_rng(1).normal(size=tuple(y.shape))
        y.backward(lib.tensor(g))
        out[lib] = (y.detach().numpy(), tx.grad.numpy())
    (iy, ig), (ty, tg) = out[il], out[torch]
    assert np.array_equal(iy, ty) and np.array_equal(np.signbit(iy), np.signbit(ty))
    np.testing.assert_allclose(ig, tg, rtol=1e-12, atol=1e-12)  # overlapping windows: sum order


def test_max_pool2d_nan_propagates_like_torch():
    x = _pool_input("ties")
    x[0, 0, 0, 0] = np.nan
    y = F.max_pool2d(il.tensor(x), 2).numpy()
    t = TF.max_pool2d(torch.tensor(x), 2).numpy()
    assert np.array_equal(y, t, equal_nan=True)


def test_max_pool2d_integer_input_with_zero_maximum():
    x = il.tensor([[[[0, -1], [-2, -3]]]])
    assert F.max_pool2d(x, 2).tolist() == [[[[0]]]]
