"""``nn.functional``: PyTorch's functional API over the op table.

Activations with ``inplace=True`` call the table's in-place op (``relu_`` ...), so the
leaf rule, the version bump and the "saves result / saves input" lesson are exactly
those of ``x.relu_()``. Layers without a cheap composition are table ops of
``inplace_lab.ops.nn_ops`` (``ConvolutionBackward0``, ``NllLossBackward0`` ...);
the rest are compositions of table ops with PyTorch's node names (``linear`` is
``addmm``: ``AddmmBackward0``; ``dropout`` multiplies by a Bernoulli mask:
``MulBackward0``; ``cross_entropy`` is ``log_softmax`` then ``nll_loss``).
"""
from __future__ import annotations

import math
import warnings

import numpy as _np

import inplace_lab as _il

from ..autograd import no_grad
from ..ops import dispatch as _dispatch
from ..ops.elementwise import SCALAR as _SCALAR
from ..ops.table import OPS as _OPS
from ..ops.nn_norm_ops import check_mixed_dtypes
from .arg_parse import parsed as _parsed
from .arg_parse import pool_params as _pool_params


def _op(name, *args, **kwargs):
    return _dispatch.call(_OPS[name], args, kwargs)


# ---- activations ------------------------------------------------------------------------------

def relu(input, inplace: bool = False):
    return _il.relu_(input) if inplace else _il.relu(input)


def relu_(input):
    return _il.relu_(input)


def relu6(input, inplace: bool = False):
    return hardtanh(input, 0.0, 6.0, inplace) if inplace else _il.relu6(input)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    return (_il.leaky_relu_ if inplace else _il.leaky_relu)(input, negative_slope)


def leaky_relu_(input, negative_slope: float = 0.01):
    return _il.leaky_relu_(input, negative_slope)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    return (_il.elu_ if inplace else _il.elu)(input, alpha)


def elu_(input, alpha: float = 1.0):
    return _il.elu_(input, alpha)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    if min_val > max_val:  # (PyTorch's Python check; torch.nn.functional.hardtanh_ has none)
        raise ValueError("min_val cannot be greater than max_val")
    return (_il.hardtanh_ if inplace else _il.hardtanh)(input, min_val, max_val)


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    return _il.hardtanh_(input, min_val, max_val)


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """``x if x > threshold else value``: the table's ``threshold`` op (ThresholdBackward0);
    ``inplace=True`` is ``threshold_`` (ThresholdBackward1, one version bump, leaf rule)."""
    return (_il.threshold_ if inplace else _il.threshold)(input, threshold, value)


def threshold_(input, threshold: float, value: float):
    """In place through the dispatcher's ``call_inplace``: it saves the input, so the old
    value is cloned before the overwrite (as PyTorch's codegen does)."""
    return _il.threshold_(input, threshold, value)


def sigmoid(input):
    return _il.sigmoid(input)


def tanh(input):
    return _il.tanh(input)


def gelu(input, approximate: str = "none"):
    return _il.gelu(input, approximate=approximate)


def silu(input, inplace: bool = False):
    return (_il.silu_ if inplace else _il.silu)(input)


def softmax(input, dim=None, dtype=None):
    return _il.softmax(input, _default_dim(input, dim), dtype=dtype)


def log_softmax(input, dim=None, dtype=None):
    return _il.log_softmax(input, _default_dim(input, dim), dtype=dtype)


def _default_dim(input, dim):
    if dim is not None:
        return dim
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if input.ndim in (0, 1, 3) else 1


# ---- linear, convolution, pooling, normalization ---------------------------------------------------

def linear(input, weight, bias=None):
    """ATen's ``linear``: ``addmm`` for a 2-D input with a bias (AddmmBackward0); a contiguous
    input with a bias flattened to 2-D, through addmm, and viewed back; anything else is
    ``matmul(input, weight.t())`` (its folds: UnsafeViewBackward0, SqueezeBackward4 for a
    1-D input) and the bias added in place (AddBackward0)."""
    nd = input.ndim
    if nd == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{nd}D and {weight.ndim}D")
    if nd == 2 and bias is not None:
        return _il.addmm(bias, input, weight.t())
    if bias is not None and input.is_contiguous() and (nd == 3 or bias.ndim == 1):
        shape = tuple(input.shape)
        y = _il.addmm(bias, input.reshape(math.prod(shape[:-1]), shape[-1]), weight.t())
        return y.view(*shape[:-1], y.shape[1])
    y = _il.matmul(input, weight.t())
    return y if bias is None else y.add_(bias)


def _same_padding(input, weight, dilation, nd):
    """ATen's ``_convolution_same``: ``padding='same'`` needs ``dilation * (k - 1)`` in all; an
    odd total puts the extra cell on the right by a ``constant_pad_nd`` of the input first
    (ConstantPadNdBackward0 under the convolution), the rest is symmetric padding."""
    dil = (dilation,) * nd if isinstance(dilation, int) else tuple(dilation)
    total = [d * (k - 1) for d, k in zip(dil, weight.shape[-nd:])]
    left = [t // 2 for t in total]
    if all(t % 2 == 0 for t in total):
        return input, tuple(left)
    warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                  "zero-padded copy of the input be created", UserWarning, stacklevel=3)
    extra = []
    for t, lft in zip(reversed(total), reversed(left)):  # F.pad order: last dim first
        extra += [0, t - 2 * lft]
    return pad(input, tuple(extra)), tuple(left)


@_parsed("conv2d")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """ConvolutionBackward0 (saves input and weight); a 3-D input is one unbatched image.
    ATen's checks, in its order, run first (``functional_conv.conv_front``)."""
    from .functional_conv import conv_front

    x, stride, padding, dilation, batched = conv_front("conv2d", 2, input, weight, bias, stride,
                                                       padding, dilation, groups)
    y = _op("_conv2d", x, weight, bias, stride, padding, dilation, groups)
    return y if batched else y.squeeze(0)


@_parsed("max_pool2d", _pool_params(False), positional=True)
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """MaxPool2DWithIndicesBackward0 either way; with ``return_indices`` also the flat
    position of each maximum in its input plane (``functional_pool_norm``).

    When a graph records it, ATen computes the indices anyway: its node saves the input and
    the indices (``_saved_self``, ``_saved_result1``) and the gradient goes to each window's
    argmax (the last NaN, as ATen's walk). Without a graph a faster kernel gives the values.
    """
    if return_indices or (input.requires_grad and _il.is_grad_enabled()):
        y, i = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
        return (y, i) if return_indices else y
    from . import pool_checks
    from .functional_layers import _channels_last

    pool_checks.max_pool2d_args(tuple(input.shape), kernel_size, stride, padding, dilation,
                                ceil_mode, _channels_last(input))
    pool_checks.check_kernel_dtype(input._dtype, "max_pool2d")
    return _op("_max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """Normalize over every dim but 1. In training, the running statistics (if given) are
    overwritten in place, but *out of band*: PyTorch's kernel writes them without bumping
    their ``_version`` (checked against torch 2.13), so the write goes through ``.data``
    (a fresh version counter), the same hole as ``y.data.zero_()``."""
    size = input.numel() // input.shape[1]
    if training and size <= 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size "
                         f"{input.shape}")
    stats = (("running_mean", running_mean), ("running_var", running_var))
    if not training:  # (the batch_norm composite's check, before autograd's)
        for name, t in stats:
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, t in stats:
        if t is not None and t.requires_grad and _il.is_grad_enabled():  # (its autograd kernel)
            raise RuntimeError(f"The function 'native_batch_norm' is not differentiable with "
                               f"respect to argument '{name}'. This input cannot have "
                               "requires_grad True.")
    check_mixed_dtypes(input, weight, bias, running_mean, running_var)  # (batch_norm_cpu's order)
    # (the node saves the running statistics in training too, as torch's does: an in-place
    # write to them before backward is refused there as well)
    y = _op("_batch_norm", input, weight, bias, running_mean, running_var, training=training,
            eps=eps)
    if training and running_mean is not None:
        axes = (0,) + tuple(range(2, input.ndim))
        with no_grad():
            x = input.detach()
            mean = x.mean(axes)
            var = x.var(axes, unbiased=False) * (size / (size - 1))
            running_mean.data.copy_(mean * momentum + running_mean * (1 - momentum))
            running_var.data.copy_(var * momentum + running_var * (1 - momentum))
    return y


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """Normalise over the trailing ``normalized_shape`` dims (NativeLayerNormBackward0)."""
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return _op("_layer_norm", input, weight, bias, normalized_shape=ns, eps=eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """Normalise each group of channels of each sample (NativeGroupNormBackward0)."""
    return _op("_group_norm", input, weight, bias, num_groups=num_groups, eps=eps)


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``.

    ``inplace=True`` multiplies the input by the mask in place (``mul_``: one version
    bump; the leaf rule applies). Both record ``MulBackward0``, as PyTorch's CPU path.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    with no_grad():
        noise = _il.empty_like(input).bernoulli_(1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def hardshrink(input, lambd: float = 0.5):
    return _op("hardshrink", input, lambd)


def softshrink(input, lambd: float = 0.5):
    return _op("softshrink", input, lambd)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False):
    """Randomized leaky ReLU: in training each element ``x <= 0`` gets its own slope drawn
    from ``U(lower, upper)`` (kept in a ``noise`` tensor the backward multiplies by), in eval
    the slope ``(lower + upper) / 2``. ``RreluWithNoiseBackward0`` (in place: ``...1``)."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    with no_grad():
        noise = _il.empty_like(input)
        if training and input.device.type == "cpu":  # (torch: a float64 U(lower, upper) per
            from .. import creation                   # element <= 0, in C order; 1 elsewhere)

            neg = (input <= 0).numpy().astype(bool)
            slopes = _np.ones(neg.shape, dtype=noise.numpy().dtype)
            slopes[neg] = creation.cpu_generator().uniform(int(neg.sum()), _np.float64, lower,
                                                          upper)
            noise.copy_(_il.tensor(slopes))
        elif training:
            noise.uniform_(lower, upper)
            noise.masked_fill_((input <= 0).logical_not(), 1.0)
    args = (input, noise, lower, upper, training)
    if inplace:
        return _dispatch.call_inplace(_OPS["_rrelu_with_noise"], args, {})
    return _dispatch.call(_OPS["_rrelu_with_noise"], args, {})


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    return rrelu(input, lower, upper, training, inplace=True)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` (EmbeddingBackward0, which saves only the indices).

    ``max_norm``: first, as PyTorch, the looked-up rows whose ``norm_type``-norm exceeds it
    are scaled down *in the weight itself*, by the in-place table op ``embedding_renorm``
    under no_grad: the weight's ``_version`` goes up by one (even when no row changes) and
    no node is recorded, so the gradient is that of a plain lookup of the new rows.
    """
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    if max_norm is not None:
        input = input.contiguous()
        with no_grad():
            _dispatch.call_inplace(_OPS["embedding_renorm"], (weight, input),
                                   {"max_norm": max_norm, "norm_type": norm_type})
    return _op("_embedding", input, weight, padding_idx, None, norm_type,
               scale_grad_by_freq, sparse)


def flatten(input, start_dim: int = 0, end_dim: int = -1):
    return input.flatten(start_dim, end_dim)


# ---- losses -------------------------------------------------------------------------------------------

def _legacy(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=2)
    if weight is not None:
        d = (input - target) ** 2 * weight
        return d.mean() if reduction == "mean" else d.sum() if reduction == "sum" else d
    return _op("_mse_loss", input, target, reduction=reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean"):
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    if weight is not None and weight.requires_grad and _il.is_grad_enabled():
        kernel = "nll_loss2d_forward" if input.ndim > 2 else "nll_loss_forward"  # (ATen's names)
        raise RuntimeError(f"The function '{kernel}' is not differentiable with respect to "
                           "argument 'weight'. This input cannot have requires_grad True.")
    if input.ndim > 2:
        return _nll_loss_nd(input, target, weight, ignore_index, reduction)
    return _op("_nll_loss", input, target, weight, ignore_index=ignore_index, reduction=reduction)


def _nll_loss_nd(input, target, weight, ignore_index, reduction):
    """ATen's nll_loss_nd: a 4-d input is nll_loss2d's (NllLoss2DBackward0); any other
    rank above 2 is viewed as (N, C, 1, -1) for it, the 'none' result viewed back."""
    from inplace_lab.ops.nn_ops import NLL_LOSS_2D

    params = {"ignore_index": ignore_index, "reduction": reduction}
    n, c = input.shape[0], input.shape[1]
    if target.shape[0] != n:
        raise ValueError(f"Expected input batch_size ({n}) to match target batch_size "
                         f"({target.shape[0]}).")
    if input.ndim == 4:
        if target.ndim != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {target.ndim}")
        if tuple(input.shape[2:]) != tuple(target.shape[1:]):
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                               f"{list(target.shape)}")
        return _dispatch.call(NLL_LOSS_2D, (input, target, weight), params)
    out_size = [n, *input.shape[2:]]
    if tuple(input.shape[2:]) != tuple(target.shape[1:]):
        raise RuntimeError(f"Expected target size {out_size}, got {list(target.shape)}")
    x, t = input.contiguous(), target.contiguous()
    x = x.view(n, c, 1, -1) if x.numel() else x.view(n, c, 0, 0)
    t = t.view(n, 1, -1) if t.numel() else t.view(n, 0, 0)
    out = _dispatch.call(NLL_LOSS_2D, (x, t, weight), params)
    return out.view(out_size) if reduction == "none" else out


def _scalar(name, t, number):
    """ATen's ``at::<name>(t, number)``: the Scalar overload (``DivBackward1`` ...), no edge for
    the number, as PyTorch's C++ composites record it (Python's ``t / 2`` is DivBackward0)."""
    return _dispatch.call(_SCALAR[name], (t, number), {})


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
    """PyTorch's ``cross_entropy_loss``: a target of the input's shape holds class
    probabilities (``_cross_entropy_probs``); otherwise class indices,
    ``nll_loss(log_softmax(input, 1), target)`` (plus the smoothing term)."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    dim = 0 if input.ndim == 1 else 1
    if tuple(target.shape) == tuple(input.shape):
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class probabilities, "
                               f"got {target._dtype.torch_name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing, dim)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    logp = _il.log_softmax(input, dim)
    c = input.shape[dim]
    wshape = [1] * input.ndim
    wshape[dim] = c
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0.0:
        return nll
    # ATen's cross_entropy_loss_label_smoothing, op for op (its graph: MaskedFillBackward0 on
    # the smoothing term, C++ Scalar products MulBackward1, one AddBackward0)
    ignore = target == ignore_index
    smooth = -(logp if weight is None else logp * weight.view(wshape)).sum(dim)
    smooth.masked_fill_(ignore, 0.0)
    if reduction == "mean":
        if weight is None:
            smooth = smooth.sum() / (~ignore).sum()
        else:
            smooth = smooth.sum() / weight.gather(0, target.masked_select(~ignore).flatten()).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return _scalar("mul", nll, 1 - label_smoothing) + _scalar("mul", smooth, label_smoothing / c)


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing, dim):
    """ATen's ``cross_entropy_loss_prob_target``, op for op, so the graph is PyTorch's:
    ``-(log_softmax(input) * target [* weight]).sum() / (numel / C)``. The smoothing
    ``target * (1 - ls) + ls / C`` and the mean's division take a C++ Scalar
    (MulBackward1, AddBackward1, DivBackward1); the mean divides by every position's
    count (N * d1 * ...), not by N."""
    c = input.shape[dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != c):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    logp = _il.log_softmax(input, dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        target = _scalar("add", _scalar("mul", target, 1 - label_smoothing), label_smoothing / c)
    prod = logp * target
    if weight is not None:
        w = weight
        if input.ndim > 1:
            wshape = [1] * input.ndim
            wshape[1] = c
            w = weight.view(wshape)
        prod = prod * w
    if reduction == "none":
        return -prod.sum(dim)
    total = prod.sum()
    if reduction == "sum":
        return -total
    if input.numel() == 0:
        return -total.fill_(math.nan)
    return _scalar("div", -total, input.numel() // c)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None):
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _op("_bce_with_logits", input, target, weight, pos_weight, reduction=reduction)


# ---- the rest of PyTorch's functional API, one file per family -----------------------------------
from .functional_layers import *  # noqa: E402,F401,F403  (pooling, conv1d, pad, distances ...)
from .functional_loss import *  # noqa: E402,F401,F403  (l1, smooth_l1, huber, bce, kl_div ...)
from .functional_resample import *  # noqa: E402,F401,F403  (interpolate, pixel_shuffle ...)
from .attention import scaled_dot_product_attention  # noqa: E402,F401
from .functional_conv import *  # noqa: E402,F401,F403  (conv3d, conv_transpose*, unfold, fold)
from .functional_pool_norm import *  # noqa: E402,F401,F403  (pools with indices, unpool, 3-d, norms)
from .functional_more import *  # noqa: E402,F401,F403  (more losses, dropouts, bilinear, embedding_bag)
from .functional_extra import *  # noqa: E402,F401,F403  (embedding_bag, grid_sample, affine_grid ...)
