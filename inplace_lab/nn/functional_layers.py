"""``nn.functional`` pooling, conv1d, padding, more activations, dropout2d, one_hot and the
distances (cosine_similarity, pairwise_distance, normalize).

Each is either one table op of ``ops/nn_extra*`` or PyTorch's own composition of table ops,
op for op, so the graph has PyTorch's nodes: ``avg_pool1d`` is ``unsqueeze`` ->
``avg_pool2d`` -> ``squeeze`` (SqueezeBackward1 on top, as in torch); ``softmin`` is
``softmax(-x)``; ``cosine_similarity`` clamps cloned norms *in place under no_grad* (ATen's
trick: the clamp is invisible to autograd, the version counter still sees it).
"""
from __future__ import annotations

import warnings

import numpy as np

import inplace_lab as _il

from .. import dtypes as _dtypes
from ..autograd import no_grad
from ..ops import dispatch as _dispatch
from ..ops.elementwise import overload as _overload
from ..ops.nn_extra_pad import CONSTANT_PAD as _CONSTANT_PAD
from ..ops.nn_extra_pad import INDEX_PADS as _INDEX_PADS
from ..ops.table import OPS as _OPS
from . import pool_checks as _pc
from .arg_parse import check_int_list as _check_int_list
from .arg_parse import parsed as _parsed
from .arg_parse import pool_params as _pool_params
from .functional import _op

# ATen's at::norm(x, p, dim, keepdim): the vector norm under its own node name (Python's
# Tensor.norm records LinalgVectorNormBackward0; ATen composites such as pairwise_distance
# call at::norm and record NormBackward1).
_NORM1 = _overload(_OPS["norm"], "NormBackward1")


def _one(v, name="kernel_size"):
    v = (v,) if isinstance(v, int) else tuple(v)
    if len(v) != 1:
        raise RuntimeError(f"{name} must be a single int, or a tuple of one int")
    return v[0]


# ---- pooling --------------------------------------------------------------------------------
# ATen's argument checks (``pool_checks``) run first, in ATen's order, then the kernel's dtype
# dispatch ("avg_pool2d" not implemented for 'Int'), then the op.

def _channels_last(input):
    from .. import layout

    return input.ndim == 4 and layout.suggests_channels_last(input._shape, input._strides)


def _int_list_arg(fn, name, pos, v):
    """The argument parser's ``int[]`` argument (given by position): an int, or a sequence
    of ints; anything else is its TypeError."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, (tuple, list)):
        for i, e in enumerate(v):
            if not isinstance(e, int) or isinstance(e, bool):
                raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be tuple of "
                                f"ints, but found element of type {type(e).__name__} at pos {i}")
        return v
    raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be tuple of ints, not "
                    f"{type(v).__name__}")


def _list_with_default(out_size, defaults):
    """torch's ``_list_with_default``: an int stays, a Nones in a sequence take the input's
    sizes (the input must have more dims than the sequence has entries)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


@_parsed("avg_pool2d", _pool_params(True))
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Window means (AvgPool2DBackward0: the gradient is spread evenly; it saves the input, as
    torch, though the backward reads only its shape)."""
    _pc.avg_pool2d_args(tuple(input.shape), kernel_size, stride, padding, ceil_mode,
                        divisor_override, _channels_last(input))
    _pc.check_kernel_dtype(input._dtype, "avg_pool2d")
    return _op("_avg_pool2d", input, kernel_size=kernel_size, stride=stride, padding=padding,
               ceil_mode=ceil_mode, count_include_pad=count_include_pad,
               divisor_override=divisor_override)


@_parsed("avg_pool1d", _pool_params(True, divisor=False))
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """``avg_pool2d`` on ``input.unsqueeze(-2)``, then ``squeeze(-2)``, as ATen."""
    k, s, p = (_pc.as_list(v, 1) for v in (kernel_size, stride, padding))
    s = s or k
    _pc.check_dim_range(tuple(input.shape), 2, 4, "avg_pool1d")
    for name, v in (("kernel_size", k), ("stride", s), ("padding", p)):
        _pc.check1d("avg_pool1d", name, v)
    x = input.unsqueeze(-2)
    _pc.avg_pool2d_args(tuple(x.shape), (1, k[0]), (1, s[0]), (0, p[0]), ceil_mode)
    _pc.check_kernel_dtype(input._dtype, "avg_pool2d")
    y = _op("_avg_pool2d", x, kernel_size=(1, k[0]), stride=(1, s[0]), padding=(0, p[0]),
            ceil_mode=ceil_mode, count_include_pad=count_include_pad)
    return y.squeeze(-2)


@_parsed("max_pool1d", _pool_params(False), positional=True)
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d`` on ``input.unsqueeze(-2)``, then ``squeeze(-2)``, as ATen (whose
    kernel without indices has checks and messages of its own, and wants a float). An input
    that requires grad goes through ``max_pool1d_with_indices``, as in ATen: the node saves
    the indices (``_saved_result1``)."""
    from .functional_pool_norm import max_pool1d_with_indices

    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    k, s, p, d = _pc.max_pool1d_args(tuple(input.shape), kernel_size, stride, padding, dilation,
                                     ceil_mode)
    if input.requires_grad:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]
    _pc.check_kernel_dtype(input._dtype, "max_pool1d_impl")
    y = _op("_max_pool2d", input.unsqueeze(-2), kernel_size=(1, k), stride=(1, s),
            padding=(0, p), dilation=(1, d), ceil_mode=ceil_mode)
    return y.squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """Each output cell averages its window ``[floor(i*H/Ho), ceil((i+1)*H/Ho))``; a 1x1
    output is ``input.mean((-1, -2), keepdim=True)`` (MeanBackward1), as ATen does."""
    size = _list_with_default(output_size, tuple(input.shape))
    _check_int_list("adaptive_avg_pool2d", "output_size", 2, size)
    size = tuple(_pc.as_list(size, 2))
    if _pc.adaptive_avg_pool2d_args(tuple(input.shape), size):
        _pc.check_mean_dtype(input._dtype)
        return input.mean((-1, -2), keepdim=True)
    _pc.check_kernel_dtype(input._dtype, "adaptive_avg_pool2d")
    return _op("_adaptive_avg_pool2d", input, output_size=size)


def adaptive_avg_pool1d(input, output_size):
    _int_list_arg("adaptive_avg_pool1d", "output_size", 2, output_size)
    _pc.check_dim_range(tuple(input.shape), 2, 4, "adaptive_avg_pool1d")
    size = _pc.as_list(output_size, 1)
    _pc.check1d("adaptive_avg_pool1d", "output_size", size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size[0])).squeeze(-2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Each window's maximum (AdaptiveMaxPool2DBackward0 saves the input and the argmax
    indices, ``result1``)."""
    size = _list_with_default(output_size, tuple(input.shape))
    _check_int_list("adaptive_max_pool2d", "output_size", 2, size)
    size = tuple(_pc.as_list(size, 2))
    _pc.adaptive_max_pool2d_args(tuple(input.shape), size)
    _pc.check_kernel_dtype(input._dtype, "adaptive_max_pool2d")
    out = _dispatch.call(_OPS["_adaptive_max_pool2d"], (input,), {"output_size": size})
    return (out[0], out[1]) if return_indices else out[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool2d(input, output_size, True)


# ---- convolution ------------------------------------------------------------------------------

@_parsed("conv1d")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """ConvolutionBackward0 (saves input and weight); a 2-D input is one unbatched sample.
    ATen's checks, in its order, run first (``functional_conv.conv_front``): the messages
    print the 3-D sizes, as torch's do."""
    from .functional_conv import conv_front

    x, stride, padding, dilation, batched = conv_front("conv1d", 1, input, weight, bias, stride,
                                                       padding, dilation, groups)
    y = _op("_conv1d", x, weight, bias, stride, padding, dilation, groups)
    return y if batched else y.squeeze(0)


# ---- padding ------------------------------------------------------------------------------------

def pad(input, pad, mode: str = "constant", value=None):
    """``constant`` (ConstantPadNdBackward0; negative amounts crop), ``reflect`` and
    ``replicate`` (ReflectionPad2DBackward0 ...), ``circular`` (ATen's _pad_circular: slice
    copies, CopySlices)."""
    pad = tuple(int(p) for p in pad)
    if mode == "constant":
        return _dispatch.call(_CONSTANT_PAD, (input,), {"pad": pad,
                                                        "value": 0 if value is None else value})
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if mode == "circular":
        from ..ops.nn_extra_pad import _check_nonconstant_dims
        from .functional_pool_norm import pad_circular

        _check_nonconstant_dims(tuple(input.shape), pad)
        return pad_circular(input, pad)
    spec = _INDEX_PADS.get((mode, len(pad) // 2))
    if spec is None:
        _dispatch.call(_INDEX_PADS[mode, 1], (input,), {"padding": pad})  # raises torch's error
    return _dispatch.call(spec, (input,), {"padding": pad})


# ---- activations --------------------------------------------------------------------------------

def logsigmoid(input):
    return _op("_log_sigmoid", input)


def softsign(input):
    """``input / (input.abs() + 1)``: PyTorch's Python composition (DivBackward0)."""
    return input / (input.abs() + 1)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    """``softmax(-input)`` (SoftmaxBackward0 over NegBackward0)."""
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=_stacklevel)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _il.softmax(-input, dim, dtype=dtype)


def glu(input, dim: int = -1):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _op("_glu", input, dim=dim)


def prelu(input, weight):
    """``x if x > 0 else weight * x``, one weight or one per channel (dim 1)."""
    if weight.numel() != 1:
        channels = input.shape[1] if input.ndim >= 2 else 1
        if weight.numel() != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    return _op("_prelu", input, weight)


# ---- dropout2d ----------------------------------------------------------------------------------

def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels: one Bernoulli draw per (sample, channel), broadcast over the
    plane (ATen's feature dropout). ``inplace=True`` multiplies in place (``mul_``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is "
                      "deprecated and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note that "
                      "dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D "
                      "or 4D inputs).", stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape "
                      "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch "
                      "to using dropout1d instead.", stacklevel=2)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        zero = _il.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    with no_grad():
        shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
        noise = _il.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


# ---- one_hot ------------------------------------------------------------------------------------

def one_hot(tensor, num_classes: int = -1):
    """int64 ``(tensor[..., None] == arange(num_classes))``: no gradient, errors as PyTorch."""
    if tensor._dtype is not _il.int64:  # (the core dtype: a facade shows its own object)
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max().item()) + 1
    if tensor.numel():
        if int(tensor.min().item()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(tensor.max().item()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    classes = _il.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).long()


# ---- distances ----------------------------------------------------------------------------------

def _expand_pair(x1, x2):
    """ATen's expand_outplace: both to the broadcast shape (unchanged when already there)."""
    shape = tuple(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    return (x1 if tuple(x1.shape) == shape else x1.expand(shape),
            x2 if tuple(x2.shape) == shape else x2.expand(shape))


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """ATen's: each input divided by its norm (cloned, then clamped to ``eps`` in place
    under no_grad), then ``(x1n * x2n).sum(dim)``; stays within [-1, 1]."""
    dims = [t.dtype for t in (x1, x2) if t.ndim]
    common = _dtypes.result_type_of(dims, [t.dtype for t in (x1, x2) if not t.ndim], ())
    if not common.is_floating_point:
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{common.torch_name}")
    x1 = x1 if x1.is_floating_point() else x1.to(common)
    x2 = x2 if x2.is_floating_point() else x2.to(common)
    x1, x2 = _expand_pair(x1, x2)
    n1 = x1.norm(2, dim, keepdim=True).clone()
    n2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """``at::norm(x1 - x2 + eps, p, -1, keepdim)`` (NormBackward1 over AddBackward1)."""
    from .functional import _scalar

    d = _scalar("add", x1 - x2, eps)
    return _dispatch.call(_NORM1, (d,), {"p": p, "dim": max(x1.ndim, x2.ndim) - 1,
                                         "keepdim": keepdim})


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """``input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)``."""
    if out is None:
        return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _il.div(input, denom, out=out)


__all__ = ["avg_pool1d", "avg_pool2d", "max_pool1d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "conv1d", "pad",
           "logsigmoid", "softsign", "softmin", "glu", "prelu", "dropout2d", "one_hot",
           "cosine_similarity", "pairwise_distance", "normalize"]

