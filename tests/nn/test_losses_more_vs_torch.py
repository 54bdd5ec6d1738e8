"""More losses vs torch 2.13: values, grads (input and target), grad_fn names, _version,
warnings and error texts; gradcheck of the new kernels' backward formulas (float64)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

import inplace_lab as il  # noqa: E402
import inplace_lab.nn.functional as F  # noqa: E402
from inplace_lab.autograd import gradcheck  # noqa: E402

from .test_functional_more_vs_torch import check, pair, rng  # noqa: E402

REDUCTIONS = ["mean", "sum", "none"]


def run(fn_name, arrays, *args, grads=None, **kw):
    ts, is_ = pair(*arrays)
    for k, (t, i) in enumerate(zip(ts, is_)):
        want = t.is_floating_point() and (grads is None or grads[k])
        t.requires_grad_(want)
        i.requires_grad_(want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tout = getattr(TF, fn_name)(*ts, *args, **kw)
        iout = getattr(F, fn_name)(*is_, *args, **kw)
    check(tout, iout, ts, is_)


def probs(*shape):
    return rng.uniform(0.05, 0.95, size=shape)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pointwise_kernel_losses_match_torch(reduction):
    x, y = rng.normal(size=(4, 5)) * 2, rng.normal(size=(4, 5)) * 2
    run("binary_cross_entropy", [probs(4, 5), probs(4, 5)], reduction=reduction)
    run("binary_cross_entropy", [probs(4, 5), probs(4, 5), rng.uniform(size=5)],
        reduction=reduction, grads=(True, True, False))
    run("smooth_l1_loss", [x, y], reduction=reduction)
    run("smooth_l1_loss", [x, y], reduction=reduction, beta=0.5)
    run("smooth_l1_loss", [x, y], reduction=reduction, beta=0.0)
    run("huber_loss", [x, y], reduction=reduction, delta=1.5)
    run("soft_margin_loss", [x, np.sign(y)], reduction=reduction, grads=(True, False))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_composite_losses_match_torch(reduction):
    x, y = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    sign = np.sign(rng.normal(size=(4, 5)))
    run("l1_loss", [x, y], reduction=reduction)
    run("kl_div", [x, rng.uniform(0.0, 1.0, size=(4, 5))], reduction=reduction)
    run("kl_div", [x, y], reduction=reduction, log_target=True)
    run("margin_ranking_loss", [x[:, 0], y[:, 0], sign[:, 0]], 0.3, reduction=reduction,
        grads=(True, True, False))
    run("hinge_embedding_loss", [x, sign], 0.7, reduction=reduction, grads=(True, False))
    run("cosine_embedding_loss", [x, y, sign[:, 0]], 0.2, reduction=reduction,
        grads=(True, True, False))
    run("cosine_embedding_loss", [x[0], y[0], np.array(-1.0)], reduction=reduction,
        grads=(True, True, False))
    run("triplet_margin_loss", [x, y, rng.normal(size=(4, 5))], reduction=reduction)
    run("triplet_margin_loss", [x, y, rng.normal(size=(4, 5))], 0.5, 1, swap=True,
        reduction=reduction)
    run("poisson_nll_loss", [x, np.abs(y)], reduction=reduction)
    run("poisson_nll_loss", [np.abs(x) + 0.1, np.abs(y) * 3], False, True, reduction=reduction)


def test_kl_div_batchmean_divides_by_the_batch_only():
    x, y = rng.normal(size=(4, 5)), rng.uniform(size=(4, 5))
    run("kl_div", [x, y], reduction="batchmean")
    run("kl_div", [x[0, 0], y[0, 0]], reduction="batchmean")


def test_l1_and_huber_with_weight_match_torch():
    x, y, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.uniform(size=(3, 4))
    ts, is_ = pair(x, y)
    for r in REDUCTIONS:
        tout = TF.l1_loss(ts[0], ts[1], reduction=r, weight=torch.tensor(w))
        iout = F.l1_loss(is_[0], is_[1], reduction=r, weight=il.tensor(w))
        np.testing.assert_allclose(iout.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
        tout = TF.huber_loss(ts[0], ts[1], reduction=r, weight=torch.tensor(w))
        iout = F.huber_loss(is_[0], is_[1], reduction=r, weight=il.tensor(w))
        np.testing.assert_allclose(iout.detach().numpy(), tout.detach().numpy(), rtol=1e-12)


def test_broadcast_target_warns_and_expands_like_torch():
    (tx, ty), (ix, iy) = pair(rng.normal(size=(3, 1)), rng.normal(size=(3,)))
    for name in ("l1_loss", "smooth_l1_loss", "huber_loss"):
        with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[3\]\)\) that is "
                                             r"different to the input size \(torch.Size\(\[3, 1\]\)\)"):
            iout = getattr(F, name)(ix, iy)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tout = getattr(TF, name)(tx, ty)
        check(tout, iout, (tx, ty), (ix, iy))


def test_margin_ranking_and_poisson_full_write_their_result_in_place():
    (tx, ty, tt), (ix, iy, it) = pair(rng.normal(size=4), rng.normal(size=4), np.ones(4))
    tout = TF.margin_ranking_loss(tx, ty, tt, reduction="none")
    iout = F.margin_ranking_loss(ix, iy, it, reduction="none")
    assert iout._version == tout._version == 1
    assert iout.grad_fn.name() == tout.grad_fn.name() == "ClampMinBackward0"


def test_kl_div_mean_warns():
    x = il.randn(2, 3)
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both"):
        F.kl_div(x, x.exp())


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: F.binary_cross_entropy(il.tensor([0.5, 1.5]), il.tensor([0.0, 1.0])), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: F.binary_cross_entropy(il.tensor([float("nan")]), il.tensor([0.5])), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: F.binary_cross_entropy(il.rand(4), il.rand(4, 1)), ValueError,
     r"Using a target size \(torch.Size\(\[4, 1\]\)\) that is different to the input size "
     r"\(torch.Size\(\[4\]\)\) is deprecated"),
    (lambda: F.binary_cross_entropy(il.rand(4), il.ones(4, dtype=il.int64)), RuntimeError,
     "Found dtype Long but expected Float"),
    (lambda: F.l1_loss(il.rand(3), il.rand(3), reduction="foo"), ValueError,
     "foo is not a valid value for reduction"),
    (lambda: F.smooth_l1_loss(il.rand(3), il.rand(3), beta=-1.0), RuntimeError,
     "smooth_l1_loss does not support negative values for beta."),
    (lambda: F.huber_loss(il.rand(3), il.rand(3), delta=0.0), RuntimeError,
     "huber_loss does not support non-positive values for delta."),
    (lambda: F.kl_div(il.rand(3), il.rand(3), reduction="foo"), ValueError,
     "foo is not a valid value for reduction"),
    (lambda: F.soft_margin_loss(il.rand(3), il.rand(3, requires_grad=True)), RuntimeError,
     "The function 'soft_margin_loss' is not differentiable with respect to argument 'target'"),
    (lambda: F.margin_ranking_loss(il.rand(3), il.rand(3), il.rand(3, 1)), RuntimeError,
     "margin_ranking_loss : All input tensors should have same dimension"),
    (lambda: F.triplet_margin_loss(il.rand(3), il.rand(3), il.rand(3), margin=0), ValueError,
     "margin must be greater than 0, got 0"),
    (lambda: F.cosine_embedding_loss(il.rand(2, 3), il.rand(2, 3), il.ones(2, 1)), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (lambda: F.poisson_nll_loss(il.rand(3), il.rand(3), reduction="foo"), ValueError,
     "foo is not a valid value for reduction"),
])
def test_loss_errors_match_torch(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def _gc(fn, *arrays):
    ins = [il.tensor(a, requires_grad=True) for a in arrays]
    assert gradcheck(fn, ins)


def test_new_kernels_pass_gradcheck():
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    _gc(lambda a, b: F.binary_cross_entropy(a, b), probs(3, 4), probs(3, 4))
    _gc(lambda a, b: F.smooth_l1_loss(a, b, beta=0.7, reduction="none"), x, y)
    _gc(lambda a, b: F.huber_loss(a, b, delta=0.6), x, y)
    _gc(lambda a: F.soft_margin_loss(a, il.tensor(np.sign(y))), x)
    _gc(F.logsigmoid, x)
    _gc(F.glu, x)
    _gc(F.prelu, rng.normal(size=(2, 3, 4)), rng.normal(size=3))
    _gc(lambda a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        rng.normal(size=(1, 2, 5, 6)))
    _gc(lambda a: F.adaptive_avg_pool2d(a, (2, 3)), rng.normal(size=(1, 2, 5, 7)))
    _gc(lambda a: F.adaptive_max_pool2d(a, (2, 3)), rng.normal(size=(1, 2, 5, 7)))
    _gc(lambda a, w: F.conv1d(a, w, stride=2, padding=1), rng.normal(size=(2, 3, 7)),
        rng.normal(size=(4, 3, 3)))
    _gc(lambda a: F.pad(a, (2, 1, 1, 2), mode="reflect"), rng.normal(size=(1, 3, 4)))
    _gc(lambda a: F.pad(a, (2, 1), mode="replicate"), rng.normal(size=(2, 3)))
