"""``paddle.nn.functional`` elementwise losses under Paddle's names, argument names and checks.

Where Paddle has a kernel (bce, huber, kl_div) the arithmetic is the core's
(``inplace_lab.nn.functional``, PyTorch's names) with Paddle's shape checks and gradient
rules (labels get none); where Paddle composes ops (mse, l1) so does this file, so a
broadcasting label works silently as there. The cross-entropy family lives in
``functional_loss_ce``, the margin/embedding/distribution losses in ``functional_loss_margin``.
"""
from __future__ import annotations

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "kl_div", "binary_cross_entropy",
           "binary_cross_entropy_with_logits"]


def _core():
    from inplace_lab.nn import functional as core

    return core


def _reduction(fname, reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"The value of 'reduction' in {fname} should be 'sum', 'mean' or "
                         f"'none', but received {reduction}, which is not allowed.")
    return reduction


def _shape_check(kernel, input, label):
    """The shape checks of Paddle's kernels (no broadcasting), each in its own words."""
    x, y = list(input.shape), list(label.shape)
    if x == y:
        return
    if len(x) != len(y):
        raise ValueError({
            "bce": "(InvalidArgument) Input(X) and Input(Label) shall have the same rank.But "
                   f"received: the rank of Input(X) is [{len(x)}], the rank of Input(Label) is "
                   f"[{len(y)}].",
            "kldiv": "(InvalidArgument) Input(X) rank and Input(Target) rank should be same, but "
                     f"received X rank({len(x)}) != Target rank({len(y)})",
            "huber": "(InvalidArgument) Input(input) rank and Input(label) rank should be same, "
                     f"but received input rank({len(x)}) != label rank({len(y)})",
        }[kernel if kernel != "bce_logits" else "bce"])
    if kernel == "kldiv":
        i = next(i for i, (a, b) in enumerate(zip(x, y)) if a != b)
        raise ValueError("(InvalidArgument) Input(X) and Input(Target) should in same shape. but "
                         f"received X dimension[{i}]({x[i]}) != Target dimension[{i}]({y[i]})")
    if kernel == "huber":
        raise ValueError("(InvalidArgument) The Input(input) and Input(label) should have the "
                         f"same shape, but received input shape {x} != label shape {y}")
    extra = " except the last dimension" if kernel == "bce_logits" else ""
    raise ValueError(f"(InvalidArgument) Input(X) and Input(Label) shall have the same "
                     f"shape{extra}. But received: the shape of Input(X) is {x}, the shape of "
                     f"Input(Label) is {y}.")


def _reduce(out, reduction, mean_all=False):
    if reduction == "mean":
        if mean_all:  # (l1_loss, binary_cross_entropy...: Paddle's mean_all kernel)
            from .functional_loss_ce import mean_all as _mean_all

            return _mean_all(out)
        return out.mean()
    if reduction == "sum":
        return out.sum()
    return out


def l1_loss(input, label, reduction="mean", name=None):
    """``abs(input - label)``, reduced (label broadcasts, silently, as in Paddle)."""
    _reduction("L1Loss", reduction)
    return _reduce((input - label).abs(), reduction, mean_all=True)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Paddle: ``is_huber=True`` (the default) is the Huber loss with ``delta``; False is
    PyTorch's smooth L1 with ``beta=delta``."""
    _reduction("smooth_l1_loss", reduction)
    _shape_check("huber", input, label)
    from ...ops import dispatch
    from ...ops.nn_extra_pointwise import PADDLE_HUBER

    out = dispatch.call(PADDLE_HUBER, (input, label), {"delta": delta})  # (Paddle's kernel,
    if not is_huber:  # then its composite: HuberLossGradNode, ScaleGradNode, MeanGradNode)
        out = out / delta
    if reduction == "mean":
        return out.mean()
    if reduction == "sum":
        return out.sum()
    return out


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """The element loss, then 'mean' over every element or 'batchmean' (the sum over the
    batch size). Paddle checks no ``reduction`` text here: an unknown one (or 'batchmean'
    of a 0-D input) returns the loss unreduced. A float32/float64 pair computes in float64."""
    if str(input.dtype).endswith("float32") and str(label.dtype).endswith("float64"):
        input = input.astype("float64")
    elif str(input.dtype).endswith("float64") and str(label.dtype).endswith("float32"):
        label = label.astype("float64")
    import warnings

    with warnings.catch_warnings():  # PyTorch's 'mean' deprecation warning; Paddle has none
        warnings.simplefilter("ignore", UserWarning)
        _shape_check("kldiv", input, label)
        out = _core().kl_div(input, label.detach(), reduction="none", log_target=log_target)
    if reduction == "mean":
        return out.mean()
    if reduction == "sum":
        return out.sum()
    if reduction == "batchmean" and input.ndim > 0:
        return out.sum() / input.shape[0]
    return out


def _times_weight(out, weight, reduction):
    """Paddle multiplies the kernel's loss by ``weight`` as an op (so weight gets a
    gradient), then ``sum`` or ``mean_all``."""
    return _reduce(out if weight is None else out * weight, reduction, mean_all=True)


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """The bce_loss kernel differentiates the input only: the label gets no gradient."""
    _reduction("binary_cross_entropy", reduction)
    _shape_check("bce", input, label)
    out = _core().binary_cross_entropy(input, label.detach(), reduction="none")
    return _times_weight(out, weight, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """The sigmoid_cross_entropy_with_logits kernel (PyTorch's formula with pos_weight)
    gives neither the label nor pos_weight a gradient; weight multiplies afterwards."""
    _reduction("binary_cross_entropy_with_logits", reduction)
    _shape_check("bce_logits", logit, label)
    out = _core().binary_cross_entropy_with_logits(
        logit, label.detach(), reduction="none",
        pos_weight=None if pos_weight is None else pos_weight.detach())
    return _times_weight(out, weight, reduction)


def mse_loss(input, label, reduction="mean", name=None):
    """``square(input - label)``, reduced (label broadcasts, silently, as in Paddle)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("'reduction' in 'mse_loss' should be 'sum', 'mean' or 'none', but "
                         f"received {reduction}.")
    return _reduce((input - label).square(), reduction)


from .functional_loss_ce import *  # noqa: E402,F401,F403  (cross_entropy, nll_loss ...)
from .functional_loss_ce import __all__ as _ce_all  # noqa: E402

from .functional_loss_margin import *  # noqa: E402,F401,F403  (margin, triplet, focal ...)
from .functional_loss_margin import __all__ as _margin_all  # noqa: E402

__all__ += _ce_all + _margin_all
