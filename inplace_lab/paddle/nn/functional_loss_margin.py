"""Paddle's margin, embedding, distribution and detection losses.

Paddle writes most of these in Python from elementwise ops; each function here follows
Paddle's composition step for step (same order of operations, same ``where``/``clip``
masks) so values and gradients agree, and raises Paddle's ``ValueError`` texts first.
Two places where Paddle's gradients are not what one expects, kept on purpose:

* ``gaussian_nll_loss`` clips ``variance`` under ``no_grad``: the variance gets no gradient.
* ``multi_label_margin_loss`` counts only the targets before the first -1 of each row.
"""
from __future__ import annotations

import math

import numpy as np

import inplace_lab as _il
from inplace_lab.nn import functional as _core

from .functional_loss_ce import _with_softmax

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "multi_label_soft_margin_loss",
           "multi_margin_loss", "multi_label_margin_loss", "sigmoid_focal_loss", "dice_loss",
           "npair_loss"]


def _check(fname, reduction, which_is_not_allowed=True):
    """Paddle has two wordings of the same check, depending on the function."""
    if reduction in ("sum", "mean", "none"):
        return
    if which_is_not_allowed:
        raise ValueError(f"The value of 'reduction' in {fname} should be 'sum', 'mean' or "
                         f"'none', but received {reduction}, which is not allowed.")
    raise ValueError(f"'reduction' in '{fname}' should be 'sum', 'mean' or 'none', but "
                     f"received {reduction}.")


def _reduce(loss, reduction, mean_all=False):
    if reduction == "mean":
        if mean_all:  # (margin_ranking_loss, sigmoid_focal_loss: Paddle's mean_all kernel)
            from .functional_loss_ce import mean_all as _mean_all

            return _mean_all(loss)
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _const(value, like, shape=(1,)):
    from .. import full

    return full(list(shape), value, like.dtype)


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """``relu((other - input) * label + margin)``."""
    _check("MarginRankingLoss", reduction)
    out = (other - input) * label
    if margin != 0.0:  # Paddle adds a [1] tensor here
        out = out + _const(margin, out)
    return _reduce(_core.relu(out), reduction, mean_all=True)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """``input`` where label is 1, ``relu(margin - input)`` where it is -1, else 0."""
    _check("hinge_embedding_loss", reduction, False)
    zero = _const(0.0, input)
    loss = _il.where(label == 1.0, input, zero) + \
        _il.where(label == -1.0, _core.relu(margin - input), zero)
    return _reduce(loss, reduction)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """``log(1 + exp(-label * input))``."""
    _check("soft_margin_loss", reduction)
    if list(input.shape) != list(label.shape):
        raise ValueError("input's shape must equal to label's shape")
    label = label.astype(input.dtype)
    return _reduce((1 + (-label * input).exp()).log(), reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """``1 - cos`` where label is 1, ``clip(cos - margin, 0)`` where -1 (1e-11 in the norms)."""
    if label.ndim != 1:
        raise ValueError("1D target tensor expected, multi-target not supported")
    if list(input1.shape) != list(input2.shape):
        raise ValueError("the shape of input tensor 1 should be equal to input tensor 2, but "
                         "found inputs with different sizes")
    if input1.ndim > 2:
        raise ValueError("1D target tensor expects 1D or 2D input tensors, but found inputs "
                         "with different sizes")
    prod_sum = _il.sum(input1 * input2, -1)
    mag1 = _il.sum(input1.square(), -1) + 1e-11
    mag2 = _il.sum(input2.square(), -1) + 1e-11
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = _il.zeros_like(cos)
    out = _il.where(label == 1, 1 - cos, zeros) + \
        _il.where(label == -1, (cos - margin).clip(min=0), zeros)
    if reduction == "none":
        return out
    return _reduce(out, reduction)


def _triplet_checks(fname, reduction, margin, input, positive, negative):
    _check(fname, reduction, False)
    if margin < 0:
        raise ValueError("The margin between positive samples and negative samples should be "
                         "greater than 0.")
    if not list(input.shape) == list(positive.shape) == list(negative.shape):
        raise ValueError("input's shape must equal to positive's shape and negative's shape")


def _pairwise(p, epsilon):
    """``paddle.nn.PairwiseDistance(p, epsilon)``: ``norm(x - y + epsilon, p, axis=-1)``."""
    return lambda x, y: _core.pairwise_distance(x, y, p, epsilon)


def _triplet(input, positive, negative, distance, margin, swap, reduction, check_sign):
    positive_dist = distance(input, positive)
    negative_dist = distance(input, negative)
    if swap:
        negative_dist = _il.minimum(negative_dist, distance(positive, negative))
    if check_sign and (bool((positive_dist < 0).any()) or bool((negative_dist < 0).any())):
        raise ValueError("The positive distance or negative distance should be greater than 0, "
                         "The distance functions should be checked.")
    return _reduce((positive_dist - negative_dist + margin).clip(min=0.0), reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-06, swap=False,
                        reduction="mean", name=None):
    """``clip(d(a, p) - d(a, n) + margin, 0)`` with ``PairwiseDistance(p, epsilon)``."""
    _triplet_checks("triplet_margin_loss", reduction, margin, input, positive, negative)
    return _triplet(input, positive, negative, _pairwise(p, epsilon), margin, swap, reduction,
                    False)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean", name=None):
    """As ``triplet_margin_loss`` with any distance (default ``PairwiseDistance(2)``); a
    negative distance is an error."""
    _triplet_checks("triplet_margin_with_distance_loss", reduction, margin, input, positive,
                    negative)
    distance = distance_function if distance_function is not None else _pairwise(2.0, 1e-6)
    return _triplet(input, positive, negative, distance, margin, swap, reduction, True)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-08, reduction="mean",
                     name=None):
    """``exp(x) - y x`` (or ``x - y log(x + eps)``) plus Stirling's term where y > 1."""
    if epsilon <= 0:
        raise ValueError(f"The value of `epsilon` in poisson_nll_loss should be positive, but "
                         f"received {epsilon:f}, which is not allowed")
    _check("poisson_nll_loss", reduction)
    if list(input.shape) != list(label.shape):
        raise ValueError("input's shape must equal to label's shape")
    if log_input:
        loss = input.exp() - label * input
    else:
        loss = input - label * (input + epsilon).log()
    if full:
        stirling = label * label.log() - label + 0.5 * (2 * math.pi * label).log()
        loss = loss + _il.where(label > 1, stirling, _il.zeros_like(stirling))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-06, reduction="mean",
                      name=None):
    """``0.5 (log var + (x - y)^2 / var)``; ``variance`` is clipped to ``epsilon`` under
    ``no_grad``, so (as in Paddle) no gradient reaches it."""
    if list(variance.shape) != list(input.shape):
        if list(input.shape[:-1]) == list(variance.shape):
            variance = variance.unsqueeze(-1)
        elif list(input.shape[:-1]) == list(variance.shape[:-1]) and variance.shape[-1] == 1:
            pass
        else:
            raise ValueError("variance is of incorrect shape")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    variance = variance.detach().clip(min=epsilon)
    loss = 0.5 * (variance.log() + (input - label).square() / variance)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """Mean over classes of ``-(y logsigmoid(x) + (1 - y) logsigmoid(-x))`` (weight unused
    by Paddle 3.3.1's code)."""
    _check("multi_label_soft_margin_loss", reduction, False)
    if list(input.shape) != list(label.shape):
        raise ValueError(f"The input and label should have same dimension,but received "
                         f"{input.shape}!={label.shape}")
    loss = -(label * _core.logsigmoid(input) + (1 - label) * _core.logsigmoid(-input))
    return _reduce(_il.mean(loss, -1), reduction)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):
    """``mean_k(w_y * clip(margin - x_y + x_k, 0)^p) - w_y * margin^p / C``: Paddle sums
    over every class k and then takes away the k == y term."""
    _check("multi_margin_loss", reduction, False)
    if not input.shape[0] == label.shape[0]:
        raise ValueError("The label's shape[0] should be equal to input's shape[0], but "
                         f"received input's shape[0] {input.shape[0]} and label's "
                         f"shape[0]:{label.shape[0]}. ")
    label = label.reshape([-1, 1]).astype("int64")
    picked = _il.gather(input, 1, label)
    c = input.shape[1]
    terms = (margin - picked + input).clip(min=0.0).pow(p)
    if weight is not None:
        if not input.shape[1] == weight.shape[0]:
            raise ValueError("The weight's shape[0] should be equal to input's shape[1]but "
                             f"received weight's shape[0]: {weight.shape[0]} and input's "
                             f"shape[1]: {input.shape[1]}")
        w = _il.index_select(weight, 0, label.reshape([-1])).reshape([-1, 1])
        loss = _il.mean(w * terms, 1) - (w * (margin ** p / c)).squeeze()
    else:
        loss = _il.mean(terms, 1) - margin ** p / c
    return _reduce(loss, reduction)


def multi_label_margin_loss(input, label, reduction="mean", name=None):
    """Each row: sum over its targets j (up to the first -1) and non-target classes k of
    ``relu(1 - x[y_j] + x[k])``, over C. Index bookkeeping in numpy (labels carry no
    gradient); the arithmetic on ``input`` in ops."""
    _check("multi_label_margin_loss", reduction, False)
    if input.ndim != 2:
        raise ValueError(f"Expected 2D input tensor, but got {input.ndim}D")
    if label.ndim != 2:
        raise ValueError(f"Expected 2D label tensor, but got {label.ndim}D")
    n, c = input.shape
    y = label.numpy().astype(np.int64)
    if y.min() < -1:
        raise ValueError("label values should be >= -1")
    if y.max() >= c:
        raise ValueError(f"label values should be < {c}")
    valid = np.cumprod(y != -1, axis=1).astype(bool)
    rows, cols = np.nonzero(valid)
    targets = y[rows, cols]
    not_target = np.ones((n, c), bool)
    not_target[rows, targets] = False
    from .. import to_tensor

    x_rows = _il.index_select(input, 0, to_tensor(rows.astype(np.int64)))
    x_target = _il.gather(x_rows, 1, to_tensor(targets.reshape(-1, 1)))
    margin = 1 - x_target + x_rows
    margin = _il.where(to_tensor(not_target[rows]), margin, _il.zeros_like(margin))
    per_pair = _il.sum(_il.maximum(margin, _il.zeros_like(margin)), 1)
    owner = np.zeros((n, len(rows)), np.float32)
    owner[rows, np.arange(len(rows))] = 1.0
    losses = _il.matmul(to_tensor(owner).astype(input.dtype), per_pair) / c
    return _reduce(losses, reduction)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum",
                       name=None):
    """``alpha_t (1 - p_t)^gamma BCE(logit, label)`` (optionally over ``normalizer``)."""
    _check("sigmoid_focal_loss", reduction)
    if normalizer is not None and normalizer.ndim > 1:
        raise ValueError("Expected zero or one dimension of normalizer in sigmoid_focal_loss "
                         f"but got {normalizer.ndim}.")
    one = _il.ones_like(logit)
    # the sigmoid_cross_entropy_with_logits kernel gives the label no gradient; p_t does
    loss = _core.binary_cross_entropy_with_logits(logit, label.detach(), reduction="none")
    pred = logit.sigmoid()
    p_t = pred * label + (one - pred) * (one - label)
    alpha_t = alpha * label + (one - alpha) * (one - label)
    loss = alpha_t * loss
    loss = (one - p_t).pow(gamma) * loss
    if normalizer is not None:
        loss = loss / normalizer
    return _reduce(loss, reduction, mean_all=True)


def dice_loss(input, label, epsilon=1e-05, name=None):
    """``mean(1 - 2 |X ∩ Y| / (|X| + |Y| + eps))`` with Y the one-hot label (last axis 1)."""
    assert input.ndim >= 2, "The rank of input should be greater than or equal to 2."
    assert input.ndim == label.ndim, (
        f"The rank of input and label should be equal, but received input: {input.ndim}, "
        f"label: {label.ndim}.")
    assert label.shape[-1] == 1, (
        f"The last dimension of label should be 1, but received {label.shape[-1]}.")
    assert list(input.shape[:-1]) == list(label.shape[:-1]), \
        "All dimensions should be equal except the last one."
    from .functional_loss_ce import _one_hot

    one_hot = _one_hot(label.squeeze(-1), input.shape[-1]).astype(input.dtype)
    dims = list(range(1, input.ndim))
    inse = _il.sum(input * one_hot, dims)
    denominator = _il.sum(input, dims) + _il.sum(one_hot, dims)
    return (1 - inse * 2 / (denominator + epsilon)).mean()


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """Soft-label cross entropy over the anchor . positive similarities (rows of equal
    labels share the target mass) plus ``0.25 * l2_reg`` times the mean squared norms."""
    if anchor.size == 0:
        raise ValueError("The dims of anchor should be greater than 0.")
    if positive.size == 0:
        raise ValueError("The dims of positive should be greater than 0.")
    batch = labels.shape[0]
    labels = labels.reshape([batch, 1]).tile([1, batch])
    labels = (labels == labels.t()).astype("float32")
    labels = labels / _il.sum(labels, 1, keepdim=True)
    l2loss = _il.sum(anchor.square(), 1).mean() + _il.sum(positive.square(), 1).mean()
    l2loss = l2loss * 0.25 * l2_reg
    similarity = _il.matmul(anchor, positive.t())
    ce = _with_softmax(similarity, labels, True, True, -100, -1)
    return l2loss + _il.sum(labels * ce, 0).mean()
