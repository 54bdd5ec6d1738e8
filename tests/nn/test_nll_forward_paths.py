"""nll_loss's forward kernel (ops/nn_ops.py ``_nll_fwd``): the common batch (every target kept
and in range, 2-D input) picks with one fancy index and skips the mask arithmetic; other
batches take the general path. Both give the bits of the general formula and torch's values,
errors and texts."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
from inplace_lab import dtypes  # noqa: E402
from inplace_lab.ops.table import OPS  # noqa: E402

rng = np.random.default_rng(4)


def _general(x, t, w, ignore_index, reduction):
    """The kernel's general formula (the pre-existing code), written out."""
    if x.ndim == 1:
        x, t = x[None], t.reshape(1)
    keep = t != ignore_index
    tt = np.where(keep, t, 0)
    wt = (w[tt] if w is not None else np.ones(tt.shape, dtype=x.dtype)) * keep
    loss = -np.take_along_axis(x, np.expand_dims(tt, 1), axis=1).squeeze(1) * wt
    if reduction == "mean":
        return np.asarray(loss.sum() / wt.sum(), dtype=x.dtype)
    return loss.sum() if reduction == "sum" else loss


CASES = [((256, 10), None, -100), ((1, 3), None, -100), ((7,), None, -100),
         ((6, 4), "w", -100), ((6, 4), None, 2), ((5, 3, 4), None, -100), ((5, 3, 4), "w", 1)]


@pytest.mark.parametrize("shape,weighted,ignore", CASES, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("npd", [np.float32, np.float64], ids=["f32", "f64"])
def test_values_match_the_general_formula_and_torch(shape, weighted, ignore, reduction, npd):
    c = shape[1] if len(shape) > 1 else shape[0]
    x = rng.standard_normal(shape).astype(npd)
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    t = rng.integers(0, c, tshape).astype(np.int64)
    w = rng.uniform(0.5, 2, c).astype(npd) if weighted else None
    kernel = OPS["_nll_loss"].forward
    got, total = kernel(np, x, t, w, dt=dtypes.from_any(npd), ignore_index=ignore,
                        reduction=reduction)
    kept = (t != ignore) * (w[np.where(t != ignore, t, 0)] if w is not None else 1)
    assert total.shape == () and total == (np.sum(kept, dtype=npd) if reduction != "none" else 0)
    if len(shape) <= 2:
        gen = _general(x, t, w, ignore, reduction)
        assert np.array_equal(got.reshape(-1), np.reshape(gen, -1)) and got.dtype == x.dtype
    ref = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(t),
                                       None if w is None else torch.tensor(w),
                                       ignore_index=ignore, reduction=reduction)
    ours = il.nn.functional.nll_loss(il.tensor(x), il.tensor(t), None if w is None else il.tensor(w),
                                     ignore_index=ignore, reduction=reduction)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    assert ours.shape == tuple(ref.shape)  # (an unbatched 'none' loss is 0-dim, as torch's)
    assert ours.dtype == (il.float32 if npd is np.float32 else il.float64)


@pytest.mark.parametrize("bad", [10, -1, 11])
def test_out_of_range_targets_raise_torchs_error(bad):
    x = rng.standard_normal((4, 10)).astype(np.float32)
    t = np.array([1, bad, 2, 3])
    with pytest.raises(IndexError) as ti:
        torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(t))
    with pytest.raises(IndexError) as ii:
        il.nn.functional.nll_loss(il.tensor(x), il.tensor(t))
    assert str(ii.value) == str(ti.value)


def test_all_ignored_and_empty_batches_match_torch():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    t = np.array([-100, -100, -100])
    for red in ("mean", "sum", "none"):
        ref = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(t), reduction=red)
        ours = il.nn.functional.nll_loss(il.tensor(x), il.tensor(t), reduction=red)
        np.testing.assert_array_equal(ours.numpy(), ref.numpy())
    e = np.zeros((0, 4), np.float32)
    for red in ("sum", "none"):
        ref = torch.nn.functional.nll_loss(torch.tensor(e), torch.tensor(np.zeros(0, np.int64)),
                                           reduction=red)
        ours = il.nn.functional.nll_loss(il.tensor(e), il.tensor(np.zeros(0, np.int64)),
                                         reduction=red)
        np.testing.assert_array_equal(ours.numpy(), ref.numpy())


def test_cross_entropy_step_grads_match_torch():
    x = rng.standard_normal((256, 10)).astype(np.float32)
    t = rng.integers(0, 10, 256)
    out = {}
    for lib in (torch, il):
        xx = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(xx, lib.tensor(t))
        loss.backward()
        out[lib] = (loss, xx.grad)
    np.testing.assert_allclose(out[il][0].item(), out[torch][0].item(), rtol=1e-6)
    np.testing.assert_allclose(out[il][1].numpy(), out[torch][1].numpy(), rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
def test_unbatched_none_loss_is_0_dim_with_torchs_grad(fn):
    x = rng.standard_normal(6).astype(np.float32)
    out = {}
    for lib in (torch, il):
        xx = lib.tensor(x, requires_grad=True)
        loss = getattr(lib.nn.functional, fn)(xx, lib.tensor(np.array(4)), reduction="none")
        loss.backward()
        out[lib] = (tuple(loss.shape), loss.detach().numpy(), xx.grad.numpy())
    assert out[il][0] == out[torch][0] == ()
    np.testing.assert_allclose(out[il][1], out[torch][1], rtol=1e-6)
    np.testing.assert_allclose(out[il][2], out[torch][2], rtol=1e-6, atol=1e-8)
