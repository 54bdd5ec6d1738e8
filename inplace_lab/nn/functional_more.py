"""More of ``nn.functional``: the losses, layers and dropouts the first files lacked.

Where PyTorch's Python composes ops (``gaussian_nll_loss``, ``multilabel_soft_margin_loss``,
``triplet_margin_with_distance_loss``, ``bilinear``'s reference maths, the dropouts), the same
ops are composed here, so the graph has torch's nodes. Where one ATen kernel does the work
(``multi_margin_loss``, ``multilabel_margin_loss``, ``_ctc_loss``, ``embedding_bag``), it is
one table op with torch's node name (``MultiMarginLossBackward0`` ...), whose backward is
another table op on the saved tensors, as ATen's ``*_backward`` kernels are. Kernels are
written against the array module ``xp`` (numpy or cupy).
"""
from __future__ import annotations

import math
import warnings

import inplace_lab as _il

from .. import backend
from ..ops.table import OpSpec, register
from .functional import _check_reduction, _legacy, _op, _scalar
from .functional_layers import pairwise_distance

__all__ = ["gaussian_nll_loss", "multilabel_soft_margin_loss", "triplet_margin_with_distance_loss",
           "multi_margin_loss", "multilabel_margin_loss", "ctc_loss"]


def _errstate():
    return backend.np.errstate(divide="ignore", invalid="ignore", over="ignore")


def _long_target(spec, ins, params):
    """ATen's margin kernels take Long targets only and keep the input's dtype."""
    t = ins[1]._dtype
    if t.name != "int64":
        raise RuntimeError(f"expected scalar type Long but found {t.torch_name}")
    return ins[0]._dtype


def _grad_dtype(spec, ins, params):
    return ins[1]._dtype


def _kernel_op(name, fwd, bw, node_name, doc, args, params, **kw):
    return register(OpSpec(name=name, forward=fwd, backward=bw, args=args, params=params,
                           method=False, function=False, out=False, node_name=node_name,
                           doc=doc, **kw))


# ---- composed losses ----------------------------------------------------------------------------

def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean"):
    """``0.5 (log var + (input - target)^2 / var)`` (+ ``0.5 log 2pi`` with ``full``); ``var``
    is clamped at ``eps`` under no_grad, so its gradient passes the clamp unchanged."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _il.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(
                y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _il.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    """Per class a logistic loss, averaged over the classes (the last dim), then reduced."""
    from .functional_layers import logsigmoid

    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean"):
    """``clamp_min(margin + d(a, p) - d(a, n), 0)`` for any distance (pairwise by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p and p == n):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {p}D, and "
                           f"negative {n}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = _il.minimum(dist_neg, distance_function(positive, negative))
    loss = _il.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss


# ---- multi_margin_loss: one ATen kernel -----------------------------------------------------------

def _mm_prep(xp, x, t):
    if x.ndim not in (1, 2) or x.size == 0 and x.ndim == 1 or x.ndim == 2 and x.shape[1] == 0:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(x.shape)}")
    x2 = x.reshape(1, -1) if x.ndim == 1 else x
    n = x2.shape[0]
    if not (t.ndim <= 1 and t.size == n):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the "
                           f"number of input samples (batch size). Expected target size [{n}], but "
                           f"got {list(t.shape)}. Input has shape {list(x.shape)}.")
    t1 = t.reshape(-1)
    if t1.size and (int(t1.min()) < 0 or int(t1.max()) >= x2.shape[1]):
        raise RuntimeError("target out of range")
    return x2, t1


def _mm_terms(xp, x2, t1, w, p, margin):
    """Per (sample, class) ``max(0, margin - x[y] + x[j])^p * w[y] / C`` (0 at j = y), and z."""
    c = x2.shape[1]
    z = margin - xp.take_along_axis(x2, t1[:, None], 1) + x2
    is_y = xp.arange(c)[None, :] == t1[:, None]
    h = xp.where(is_y | (z <= 0), 0, z if p == 1 else z * z)
    if w is not None:
        h = h * w[t1][:, None]
    return h / c, z, is_y


def _mm_fwd(xp, x, t, w, out=None, dt=None, p=1, margin=1.0, reduction="mean"):
    x2, t1 = _mm_prep(xp, x, t)
    h, _, _ = _mm_terms(xp, x2, t1, w, p, margin)
    loss = h.sum(1)
    if reduction == "none":
        return xp.asarray(loss.reshape(t.shape), dtype=dt.np)
    return xp.asarray(loss.mean() if reduction == "mean" else loss.sum(), dtype=dt.np)


def _mm_bw_fwd(xp, g, x, t, w, out=None, dt=None, p=1, margin=1.0, reduction="mean"):
    x2, t1 = _mm_prep(xp, x, t)
    c = x2.shape[1]
    _, z, is_y = _mm_terms(xp, x2, t1, w, p, margin)
    d = xp.where(is_y | (z <= 0), 0, 1.0 if p == 1 else 2 * z) / c
    if w is not None:
        d = d * w[t1][:, None]
    if reduction == "none":
        d = d * g.reshape(-1, 1)
    else:
        d = d * (g / x2.shape[0] if reduction == "mean" else g)
    gx = xp.where(is_y, -d.sum(1, keepdims=True), d)
    return xp.asarray(gx.reshape(x.shape), dtype=dt.np)


_kernel_op("_multi_margin_loss_backward", _mm_bw_fwd, None, "MultiMarginLossBackwardBackward0",
           "multi_margin_loss's gradient (ATen's multi_margin_loss_backward).",
           ("grad_output", "self", "target", "weight"),
           {"p": 1, "margin": 1.0, "reduction": "mean"}, optional_args=("weight",),
           dtype_rule=_grad_dtype)


def _mm_bw(c, g):
    gx = _op("_multi_margin_loss_backward", g, c["self"], c["target"],
             c["weight"] if "weight" in c.saved else None, p=c["p"], margin=c["margin"],
             reduction=c["reduction"])
    return (gx, None, None)


_kernel_op("_multi_margin_loss", _mm_fwd, _mm_bw, "MultiMarginLossBackward0",
           "multi_margin_loss(input, target, weight=None, p=1, margin=1, reduction='mean').",
           ("self", "target", "weight"), {"p": 1, "margin": 1.0, "reduction": "mean"},
           optional_args=("weight",), saves=("self", "target", "weight"),
           dtype_rule=_long_target, nondiff=("target", "weight"))


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean"):
    """Multi-class hinge loss: ``sum_{j != y} max(0, margin - x[y] + x[j])^p / C`` per sample."""
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    return _op("_multi_margin_loss", input, target, weight, p=p, margin=float(margin),
               reduction=reduction)


# ---- multilabel_margin_loss: one ATen kernel --------------------------------------------------------

def _mlm_terms(xp, x, t):
    """For each listed target j (up to the first -1) and each non-target k: z = 1 - x[j] + x[k]
    and whether the pair counts; the one-hot of the listed targets."""
    if x.ndim not in (0, 1, 2) or x.ndim == 2 and x.shape[1] == 0 or x.ndim == 1 and x.size == 0:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(x.shape)}")
    if tuple(t.shape) != tuple(x.shape):
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: "
                           f"{list(x.shape)}")
    x2 = x.reshape(-1, x.shape[-1] if x.ndim else 1)
    t2 = t.reshape(x2.shape)
    c = x2.shape[1]
    if t2.size and (int(t2.min()) < -1 or int(t2.max()) >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    listed = xp.cumprod(t2 >= 0, axis=1).astype(bool)
    tt = xp.where(listed, t2, 0)
    onehot = (tt[:, :, None] == xp.arange(c)[None, None, :]) & listed[:, :, None]
    is_target = onehot.any(1)
    z = 1 - xp.take_along_axis(x2, tt, 1)[:, :, None] + x2[:, None, :]
    counts = listed[:, :, None] & ~is_target[:, None, :] & (z > 0)
    return x2, z, counts, onehot, c


def _mlm_fwd(xp, x, t, out=None, dt=None, reduction="mean"):
    x2, z, counts, _, c = _mlm_terms(xp, x, t)
    loss = xp.where(counts, z, 0).sum((1, 2)) / c
    if reduction == "none":
        return xp.asarray(loss.reshape(x.shape[:-1]) if x.ndim else loss.reshape(()),
                          dtype=dt.np)
    return xp.asarray(loss.mean() if reduction == "mean" else loss.sum(), dtype=dt.np)


def _mlm_bw_fwd(xp, g, x, t, out=None, dt=None, reduction="mean"):
    x2, z, counts, onehot, c = _mlm_terms(xp, x, t)
    n = x2.shape[0]
    scale = g.reshape(-1, 1) if reduction == "none" else (g / n if reduction == "mean" else g)
    d = counts.astype(x2.dtype) / c                                # (N, J, C)
    gx = d.sum(1) - (d.sum(2)[:, :, None] * onehot).sum(1)
    return xp.asarray((gx * scale).reshape(x.shape), dtype=dt.np)


_kernel_op("_multilabel_margin_loss_backward", _mlm_bw_fwd, None,
           "MultilabelMarginLossBackwardBackward0",
           "multilabel_margin_loss's gradient (ATen's multilabel_margin_loss_backward).",
           ("grad_output", "self", "target"), {"reduction": "mean"}, dtype_rule=_grad_dtype)


def _mlm_bw(c, g):
    return (_op("_multilabel_margin_loss_backward", g, c["self"], c["target"],
                reduction=c["reduction"]), None)


_kernel_op("_multilabel_margin_loss", _mlm_fwd, _mlm_bw, "MultilabelMarginLossBackward0",
           "multilabel_margin_loss(input, target, reduction='mean'): targets end at a -1.",
           ("self", "target"), {"reduction": "mean"}, saves=("self", "target"),
           dtype_rule=_long_target, nondiff=("target",))


def multilabel_margin_loss(input, target, size_average=None, reduce=None,
                           reduction: str = "mean"):
    """Multi-label hinge loss: ``sum_{j in y, k not in y} max(0, 1 - (x[j] - x[k])) / C``."""
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _op("_multilabel_margin_loss", input, target, reduction=reduction)


# ---- ctc_loss: ATen's _ctc_loss kernel (CtcLossBackward0) and its composite ------------------------

def _lse(xp, *terms):
    """log(sum(exp(terms))) elementwise, -inf where every term is -inf (no NaN)."""
    m = terms[0]
    for t in terms[1:]:
        m = xp.maximum(m, t)
    safe = xp.where(m == -math.inf, 0, m)
    s = 0
    for t in terms:
        s = s + xp.exp(t - safe)
    with _errstate():
        return xp.log(s) + safe


def _ctc_prep(xp, lp, targets, il, tl, blank):
    """The extended label sequences l' (blank, l1, blank, l2, ..., blank) per sample, padded
    to 2 max(target_length) + 1 with blanks, and whether l'(s) may skip from l'(s - 2)."""
    t_len, n, c = lp.shape
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if il.shape != (n,):
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl.shape != (n,):
        raise RuntimeError("target_lengths must be of size batch_size")
    smax = int(tl.max()) if n else 0
    labels = xp.zeros((n, max(smax, 1)), dtype=xp.int64)
    if targets.ndim == 1:  # concatenated targets
        offsets = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(tl)[:-1]])
        for b in range(n):
            k, o = int(tl[b]), int(offsets[b])
            labels[b, :k] = targets[o:o + k]
    else:
        if smax > targets.shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {smax} at dimension 1, "
                               f"but got size {targets.shape[1]} for argument #2 'targets' "
                               "(while checking arguments for ctc_loss_cpu)")
        labels[:, :smax] = targets[:, :smax]
    for b in range(n):
        if int(il[b]) > t_len:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_len}, but got "
                               f"value {int(il[b])} (while checking arguments for ctc_loss_cpu)")
    s = xp.arange(max(smax, 1))[None, :] < tl[:, None]
    labels = xp.where(s, labels, blank)
    ext = xp.full((n, 2 * smax + 1), blank, dtype=xp.int64)
    ext[:, 1::2] = labels[:, :smax]
    skip = xp.zeros(ext.shape, dtype=bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return ext, skip


def _ctc_alpha(xp, lp, ext, skip, il, tl):
    t_len, n, _ = lp.shape
    lpe = xp.take_along_axis(lp, xp.broadcast_to(ext[None], (t_len,) + ext.shape), 2)
    pos = xp.arange(ext.shape[1])[None, :]
    alpha = xp.full((t_len,) + ext.shape, -math.inf, dtype=lp.dtype)
    if t_len:
        alpha[0] = xp.where(pos < xp.minimum(2, 2 * tl[:, None] + 1), lpe[0], -math.inf)
    ninf = xp.full((n, 1), -math.inf, dtype=lp.dtype)
    for t in range(1, t_len):
        a = alpha[t - 1]
        a1 = xp.concatenate([ninf, a[:, :-1]], 1)
        a2 = xp.where(skip, xp.concatenate([ninf, ninf, a[:, :-2]], 1), -math.inf)
        alpha[t] = _lse(xp, a, a1, a2) + lpe[t]
    return alpha, lpe


def _ctc_nll(xp, alpha, il, tl):
    n = alpha.shape[1]
    last = xp.maximum(il - 1, 0)
    fin = alpha[last, xp.arange(n)]                                 # (N, L)
    end = xp.take_along_axis(fin, (2 * tl)[:, None], 1)[:, 0]
    pre = xp.where(tl > 0, xp.take_along_axis(fin, xp.maximum(2 * tl - 1, 0)[:, None], 1)[:, 0],
                   -math.inf)
    return -_lse(xp, end, pre)


def _ctc_fwd(xp, lp, targets, il, tl, out=None, dt=None, blank=0, zero_infinity=False):
    ext, skip = _ctc_prep(xp, lp, targets, il, tl, blank)
    with _errstate():
        alpha, _ = _ctc_alpha(xp, lp.astype(xp.float64), ext, skip, il, tl)
        nll = _ctc_nll(xp, alpha, il, tl)
    return xp.asarray(nll, dtype=dt.np)


def _ctc_bw_fwd(xp, g, lp, targets, il, tl, out=None, dt=None, blank=0, zero_infinity=False):
    """ATen's ctc_loss_backward_cpu: ``exp(lp) - exp(log(sum_{s: l'(s)=c} alpha beta) + nll
    - lp)``, times the incoming gradient; zero after each input's length (and, with
    ``zero_infinity``, for an impossible alignment). It is the gradient through a
    log_softmax that produced ``lp``, as ATen returns it."""
    t_len, n, c = lp.shape
    lp64 = lp.astype(xp.float64)
    ext, skip = _ctc_prep(xp, lp, targets, il, tl, blank)
    with _errstate():
        alpha, lpe = _ctc_alpha(xp, lp64, ext, skip, il, tl)
        nll = _ctc_nll(xp, alpha, il, tl)
        width = ext.shape[1]
        pos = xp.arange(width)[None, :]
        valid = pos <= 2 * tl[:, None]
        skip_next = xp.zeros(ext.shape, dtype=bool)
        skip_next[:, :-2] = skip[:, 2:]
        beta = xp.full(alpha.shape, -math.inf, dtype=xp.float64)
        ninf = xp.full((n, 1), -math.inf, dtype=xp.float64)
        nxt = xp.full(ext.shape, -math.inf, dtype=xp.float64)
        for t in range(t_len - 1, -1, -1):
            b1 = xp.concatenate([nxt[:, 1:], ninf], 1)
            b2 = xp.where(skip_next, xp.concatenate([nxt[:, 2:], ninf, ninf], 1), -math.inf)
            step = _lse(xp, nxt, b1, b2) + lpe[t]
            init = xp.where((pos >= 2 * tl[:, None] - 1) & valid, lpe[t], -math.inf)
            at_end = (il - 1 == t)[:, None]
            inside = (t < il - 1)[:, None]
            cur = xp.where(at_end, init, xp.where(inside & valid, step, -math.inf))
            beta[t] = cur
            nxt = cur
        lcab = alpha + beta                                           # (T, N, L)
        onehot = ext[:, :, None] == xp.arange(c)[None, None, :]       # (N, L, C)
        masked = xp.where(onehot[None], lcab[..., None], -math.inf)   # (T, N, L, C)
        m = masked.max(2)
        safe = xp.where(m == -math.inf, 0, m)
        lsum = xp.log(xp.exp(masked - safe[:, :, None, :]).sum(2)) + safe
        gscale = g.astype(xp.float64).reshape(1, n, 1) if g.ndim else g.astype(xp.float64)
        grad = (xp.exp(lp64) - xp.exp(lsum + nll[None, :, None] - lp64)) * gscale
    keep = xp.arange(t_len)[:, None] < il[None, :]                    # (T, N)
    if zero_infinity:
        keep = keep & (nll != math.inf)[None, :]
    grad = xp.where(keep[:, :, None], grad, 0)
    return xp.asarray(grad, dtype=dt.np)


def _ctc_dtype(spec, ins, params):
    dt = ins[0]._dtype
    if dt.name not in ("float32", "float64"):
        raise RuntimeError(f"\"ctc_loss_cpu\" not implemented for '{dt.torch_name}'")
    return dt


_kernel_op("_ctc_loss_backward", _ctc_bw_fwd, None, "CtcLossBackwardBackward0",
           "ctc_loss's gradient (ATen's _ctc_loss_backward).",
           ("grad_output", "self", "targets", "input_lengths", "target_lengths"),
           {"blank": 0, "zero_infinity": False}, dtype_rule=_grad_dtype)


def _ctc_bw(c, g):
    return (_op("_ctc_loss_backward", g, c["self"], c["targets"], c["input_lengths"],
                c["target_lengths"], blank=c["blank"], zero_infinity=c["zero_infinity"]),
            None, None, None)


_kernel_op("_ctc_loss", _ctc_fwd, _ctc_bw, "CtcLossBackward0",
           "_ctc_loss(log_probs (T, N, C), targets, input_lengths, target_lengths, blank=0, "
           "zero_infinity=False): the negative log likelihood of each target (alpha recursion).",
           ("self", "targets", "input_lengths", "target_lengths"),
           {"blank": 0, "zero_infinity": False},
           saves=("self", "targets", "input_lengths", "target_lengths"), dtype_rule=_ctc_dtype,
           nondiff=("targets", "input_lengths", "target_lengths"))


def _lengths(v, device):
    if isinstance(v, _il.Tensor):
        return v.to(device=device, dtype=_il.int64).reshape(-1)
    return _il.tensor([int(x) for x in v], dtype=_il.int64, device=device)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False):
    """Connectionist Temporal Classification: ``-log p(target | log_probs)`` summed over all
    alignments. ATen's composite: ``_ctc_loss`` (CtcLossBackward0), with ``zero_infinity`` a
    ``where(res == inf, 0, res)``, then ``'mean'`` divides each loss by its target length
    (clamped at 1) and takes the mean; ``'sum'`` sums."""
    _check_reduction(reduction)
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    dev = lp.device
    if not batched:
        if targets.ndim == 1 and isinstance(targets, _il.Tensor):
            targets = targets.unsqueeze(0)
        input_lengths = [int(input_lengths)] if not isinstance(input_lengths, (list, tuple)) \
            else input_lengths
        target_lengths = [int(target_lengths)] if not isinstance(target_lengths, (list, tuple)) \
            else target_lengths
    il_t, tl_t = _lengths(input_lengths, dev), _lengths(target_lengths, dev)
    res = _op("_ctc_loss", lp, targets.to(device=dev, dtype=_il.int64), il_t, tl_t,
              blank=blank, zero_infinity=zero_infinity)
    if zero_infinity:
        res = _il.where(res == math.inf, _il.zeros((), dtype=res.dtype, device=dev), res)
    if reduction == "mean":
        lengths = tl_t.to(res.dtype).clamp_min(1)
        return (res / lengths).mean()
    if reduction == "sum":
        return res.sum()
    return res if batched else res.squeeze(0)


# ---- bilinear, pdist, gumbel_softmax ------------------------------------------------------------------

def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = x1 W[o] x2 + b[o]``: ATen flattens the batch dims, contracts (its
    ``_trilinear``; an ``einsum`` here), views back and adds the bias (AddBackward0)."""
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out = _il.einsum("ni,oij,nj->no", x1, weight, x2).contiguous()  # (_trilinear's is)
    out = out.view(*input1.shape[:-1], weight.shape[0])
    return out if bias is None else out + bias


def pdist(input, p: float = 2):
    """The p-norm distance of every pair of rows i < j, in row-major order of the pairs
    (one kernel, PdistBackward0, as torch's)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return _op("_pdist", input, p=float(p))


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1):
    """``softmax((logits + g) / tau)`` with Gumbel noise ``g = -log(Exp(1))``; ``hard``
    gives one-hot samples whose gradient is the soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_il.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = _il.zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


__all__ += ["bilinear", "pdist", "gumbel_softmax"]


# ---- the other dropouts: ATen's _dropout_impl (feature and alpha variants) -----------------------

_SELU_ALPHA = 1.7580993408473766  # -SELU's lambda * alpha: the value alpha dropout drops to


def _dropout_impl(input, p, training, inplace, feature, alpha):
    """ATen's ``_dropout_impl``: a Bernoulli(1 - p) noise (one draw per (sample, channel)
    with ``feature``), scaled by 1/(1-p); ``alpha``: dropped cells go to SELU's saturation
    value, then ``a x + b`` restores mean 0 and variance 1 (``mul`` then ``add_``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        zero = _il.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    with _il.no_grad():
        shape = (tuple(input.shape[:2]) + (1,) * (input.ndim - 2)) if feature else input.shape
        noise = _il.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
        if alpha:
            a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
            b = _scalar("add", noise, -1).mul_(_SELU_ALPHA * a).add_(_SELU_ALPHA * a * p)
            noise.mul_(a)
        else:
            noise.div_(1 - p)
    out = input.mul_(noise) if inplace else input * noise
    return out.add_(b) if alpha else out


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Dropout for SELU networks: keeps mean and variance (dropped cells -> -1.758 a + b)."""
    return _dropout_impl(input, p, training, inplace, feature=False, alpha=True)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False,
                          inplace: bool = False):
    """alpha_dropout with one draw per (sample, channel)."""
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)


def _channel_dropout(input, p, training, inplace, batched_ndim):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    batched = input.ndim == batched_ndim
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _dropout_impl(input, p, training, inplace, feature=True, alpha=False)
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, L) or (C, L) inputs."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an optional "
                           "batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout(input, p, training, inplace, 3)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is "
                      "deprecated and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note that "
                      "dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D "
                      "or 5D inputs).", stacklevel=2)
    return _channel_dropout(input, p, training, inplace, 5)


__all__ += ["alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout3d"]
