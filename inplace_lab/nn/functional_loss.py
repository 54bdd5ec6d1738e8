"""More ``nn.functional`` losses, with PyTorch 2.13's signatures, checks and graphs.

Losses with an ATen kernel are one table op (``binary_cross_entropy``,
``smooth_l1_loss``, ``huber_loss``, ``soft_margin_loss``); the others are ATen's own
compositions, op for op, in-place steps included: ``margin_ranking_loss`` ends in
``clamp_min_`` and ``poisson_nll_loss(full=True)`` in ``loss += ...``, so their results
sit at ``_version`` 1 as in torch. A C++ ``number - tensor`` is
``empty_like(t).fill_(number).sub_(t)`` there, so it is here (SubBackward0, version 2).
"""
from __future__ import annotations

import math
import warnings

import numpy as np

import inplace_lab as _il

from .functional import _check_reduction, _legacy, _op, _scalar
from .functional_layers import pairwise_distance

_EPSILON = 1e-12


def _size_warning(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)


def _broadcast(input, target):
    """torch.broadcast_tensors: both expanded to the common shape (unchanged if already)."""
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(target.shape)))
    return (input if tuple(input.shape) == shape else input.expand(shape),
            target if tuple(target.shape) == shape else target.expand(shape))


def _apply_reduction(loss, reduction):
    """ATen's apply_loss_reduction: ``mean()`` / ``sum()`` / the loss itself."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _rsub(number, t):
    """A C++ ``number - t``: ``empty_like(t).fill_(number).sub_(t)`` (SubBackward0)."""
    return _il.empty_like(t).fill_(number).sub_(t)


def _weighted(loss, weight, reduction):
    """l1/huber with ``weight``: the per-element loss times weight, then reduced (l1's mean
    divides by the weights' sum, huber's by the element count, as PyTorch's Python code)."""
    w = loss if weight is None else loss * weight
    if reduction == "none":
        return w
    if reduction == "sum":
        return w.sum()
    if reduction == "mean":
        return w.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    """``(input - target).abs()`` then the reduction (MeanBackward0 over AbsBackward0)."""
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    input, target = _broadcast(input, target)
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        errors = (input - target).abs() * weight
        if reduction == "mean":
            return errors.sum() / weight.sum()
        return _weighted(errors, None, reduction)
    _check_reduction(reduction)
    return _apply_reduction((input - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0):
    """Squared below ``beta``, linear above (SmoothL1LossBackward0); ``beta=0`` is l1_loss."""
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    input, target = _broadcast(input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return _apply_reduction((input - target).abs(), reduction)
    return _op("_smooth_l1_loss", input, target, reduction=reduction, beta=beta)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """Squared below ``delta``, ``delta``-scaled linear above (HuberLossBackward0)."""
    _size_warning(input, target)
    input, target = _broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        _check_reduction(reduction)
        return _op("_huber_loss", input, target, reduction=reduction, delta=delta)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    return _weighted(_op("_huber_loss", input, target, reduction="none", delta=delta), weight,
                     reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """``-w (y log x + (1 - y) log(1 - x))``, logs clamped at -100 (BinaryCrossEntropyBackward0).
    The input must be probabilities: outside [0, 1] is an error, not a NaN."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    if weight is not None:
        try:
            shape = tuple(np.broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({list(target.shape)}) must match the size "
                               f"of tensor b ({list(weight.shape)})") from None
        weight = weight.expand(shape)
    return _op("_binary_cross_entropy", input, target, weight, reduction=reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False):
    """``xlogy(target, target) - target * input`` (or ``exp(target) * (target - input)``
    with ``log_target``); ``'batchmean'`` sums and divides by the batch size, the
    mathematically right KL; ``'mean'`` (the default) divides by every element and warns."""
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with the "
                      "KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    if reduction != "batchmean":
        _check_reduction(reduction)
    if log_target:
        out = target.exp() * (target - input)
    else:
        out = _il.xlogy(target, target) - target * input
    reduced = _apply_reduction(out, "sum" if reduction == "batchmean" else reduction)
    if reduction == "batchmean" and input.ndim != 0:
        reduced = reduced / input.shape[0]
    return reduced


def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean"):
    """``(-target * (input1 - input2) + margin).clamp_min_(0)``: ATen clamps in place."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    out = _scalar("add", -target * (input1 - input2), margin).clamp_min_(0)
    return _apply_reduction(out, reduction)


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """``where(target != 1, (margin - x).clamp_min_(0), 0) + where(target != -1, x, 0)``."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    zeros = _il.zeros_like(input)
    margin_clamp = _rsub(margin, input).clamp_min_(0)
    out = _il.where(target != 1, margin_clamp, zeros) + _il.where(target != -1, input, zeros)
    return _apply_reduction(out, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``log(1 + exp(-target * input))`` (SoftMarginLossBackward0; no gradient for target)."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.requires_grad and _il.is_grad_enabled():
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to "
                           "argument 'target'. This input cannot have requires_grad True.")
    return _op("_soft_margin_loss", input, target, reduction=reduction)


def cosine_embedding_loss(input1, input2, target, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean"):
    """ATen's: cos from squared magnitudes (+1e-12), ``1 - cos`` where target is 1,
    ``(cos - margin).clamp_min_(0)`` where it is -1."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    td = target.ndim
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.ndim != want:
        raise RuntimeError(f"{td}D target tensor expects {want}D input tensors, but found inputs "
                           f"with sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(td)
    mag1 = _scalar("add", (input1 * input1).sum(td), _EPSILON)
    mag2 = _scalar("add", (input2 * input2).sum(td), _EPSILON)
    cos = prod_sum / (mag1 * mag2).sqrt_()
    zeros = _il.zeros_like(cos)
    pos = _rsub(1, cos)
    neg = _scalar("sub", cos, margin).clamp_min_(0)
    out = _il.where(target == 1, pos, zeros) + _il.where(target == -1, neg, zeros)
    return _apply_reduction(out, reduction)


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """``clamp_min(margin + d(a, p) - d(a, n), 0)`` with pairwise distances (``swap``: the
    smaller of d(a, n) and d(p, n))."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pp, n = anchor.ndim, positive.ndim, negative.ndim
    if not a == pp == n:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {pp}D, and "
                           f"negative {n}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _il.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    out = (_scalar("add", d_pos, margin) - d_neg).clamp_min(0)
    return _apply_reduction(out, reduction)


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None, reduction: str = "mean"):
    """``exp(x) - y x`` (or ``x - y log(x + eps)``); ``full`` adds Stirling's term in place
    (``loss += ...``) where the target exceeds 1."""
    reduction = _legacy(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * _scalar("add", input, eps).log()
    if full:
        stirling = target * target.log() - target + \
            _scalar("mul", _scalar("mul", target, 2 * math.pi).log(), 0.5)
        loss += stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


__all__ = ["l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "kl_div",
           "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss"]
