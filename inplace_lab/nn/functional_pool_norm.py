"""``nn.functional``: pools with indices, unpooling, 3-d pools, instance/RMS/local response
norms, power-average pools and channel shuffle.

Single ATen kernels are table ops of ``ops/nn_pool_more`` (MaxPool2DWithIndicesBackward0,
MaxUnpool2DBackward0, AvgPool3DBackward0 ...). Where PyTorch composes, this composes the
same ops in the same order, so the graph reads as PyTorch's:

- 1-d pools are the 2-d ones on ``unsqueeze(-2)``, then ``squeeze(-2)`` (SqueezeBackward1),
  as ATen's ``max_pool1d_with_indices`` / ``adaptive_max_pool1d``; ``max_unpool1d`` is
  ``max_unpool2d`` on ``unsqueeze(-1)``, as torch's Python.
- ``instance_norm`` is ATen's: batch norm of the input viewed as (1, N*C, ...), with the
  weight, bias and running statistics repeated N times (RepeatBackward0), then viewed back
  (ViewBackward0); the running statistics are then overwritten by the mean over the batch
  of the repeated ones (an in-place ``copy_``: one version bump each).
- ``rms_norm`` is ``x * rsqrt(pow(x, 2).mean(dims, keepdim=True) + eps) [* weight]``;
  ``local_response_norm`` and ``lp_pool*d`` are torch's Python, op for op.
"""
from __future__ import annotations

import numpy as _np

import inplace_lab as _il

from ..autograd import no_grad
from ..ops import dispatch as _dispatch
from ..ops.table import OPS as _OPS
from .functional import _scalar, batch_norm, max_pool2d, relu
from . import pool_checks as _pc
from .arg_parse import parsed as _parsed
from .arg_parse import pool_params as _pool_params
from .functional_layers import adaptive_max_pool2d, avg_pool1d, avg_pool2d, max_pool1d, pad



def _call(name, *args, **params):
    return _dispatch.call(_OPS[name], args, params)


def _ntuple(v, n):
    """torch's ``_ntuple``: an iterable as a tuple, anything else repeated ``n`` times."""
    from collections.abc import Iterable

    return tuple(v) if isinstance(v, Iterable) else (v,) * n


# ---- max pooling with indices ---------------------------------------------------------------

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """ATen's: ``max_pool2d_with_indices`` of ``input.unsqueeze(-2)``, both results
    ``squeeze(-2)``-ed (the output's grad_fn is SqueezeBackward1)."""
    k, s, p, d = (_pc.as_list(v, 1) for v in (kernel_size, stride, padding, dilation))
    s = s or k
    _pc.check_dim_range(tuple(input.shape), 2, 4, "max_pool1d")
    for name, v in (("kernel_size", k), ("stride", s), ("padding", p), ("dilation", d)):
        _pc.check1d("max_pool1d", name, v)
    y, i = max_pool2d_with_indices(input.unsqueeze(-2), (1, k[0]), (1, s[0]), (0, p[0]),
                                   (1, d[0]), ceil_mode)
    return y.squeeze(-2), i.squeeze(-2)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """(output, indices): the flat position of each window's maximum in its input plane."""
    from .functional_layers import _channels_last

    _pc.max_pool2d_args(tuple(input.shape), kernel_size, stride, padding, dilation, ceil_mode,
                        _channels_last(input))
    _pc.check_kernel_dtype(input._dtype, "max_pool2d")
    y, i = _call("_max_pool2d_with_indices", input, kernel_size=kernel_size, stride=stride,
                 padding=padding, dilation=dilation, ceil_mode=ceil_mode)
    return y, i


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    _pc.max_pool3d_args(tuple(input.shape), kernel_size, stride, padding, dilation, ceil_mode)
    _pc.check_kernel_dtype(input._dtype, "max_pool3d")
    y, i = _call("_max_pool3d_with_indices", input, kernel_size=kernel_size, stride=stride,
                 padding=padding, dilation=dilation, ceil_mode=ceil_mode)
    return y, i


@_parsed("max_pool3d", _pool_params(False), positional=True)
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """MaxPool3DWithIndicesBackward0 either way (ATen's max_pool3d computes the indices)."""
    y, i = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (y, i) if return_indices else y


# ---- average and adaptive pooling (3-d), adaptive max 1-d -----------------------------------

@_parsed("avg_pool3d", _pool_params(True))
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Window means (AvgPool3DBackward0 saves the input, as torch)."""
    _pc.avg_pool3d_args(tuple(input.shape), kernel_size, stride, padding, ceil_mode,
                        divisor_override)
    _pc.check_kernel_dtype(input._dtype, "avg_pool3d_out_frame")
    return _call("_avg_pool3d", input, kernel_size=kernel_size, stride=stride, padding=padding,
                 ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                 divisor_override=divisor_override)


def _size3(input, output_size, fn):
    from .arg_parse import check_int_list
    from .functional_layers import _list_with_default

    size = _list_with_default(output_size, tuple(input.shape))
    check_int_list(fn, "output_size", 2, size)
    return tuple(_pc.as_list(size, 3))


def adaptive_avg_pool3d(input, output_size):
    """A 1x1x1 output is ``input.mean((-1, -2, -3), keepdim=True)`` (MeanBackward1), as ATen."""
    size = _size3(input, output_size, "adaptive_avg_pool3d")
    if _pc.adaptive_avg_pool3d_args(tuple(input.shape), size):
        _pc.check_mean_dtype(input._dtype)
        return input.mean((-1, -2, -3), keepdim=True)
    _pc.check_kernel_dtype(input._dtype, "adaptive_avg_pool3d_cpu")
    return _call("_adaptive_avg_pool3d", input, output_size=size)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Each window's maximum (AdaptiveMaxPool3DBackward0 saves the input and the argmax
    indices, ``result1``)."""
    size = _size3(input, output_size, "adaptive_max_pool3d")
    _pc.adaptive_max_pool3d_args(tuple(input.shape), size)
    _pc.check_kernel_dtype(input._dtype, "adaptive_max_pool3d_cpu")
    out = _call("_adaptive_max_pool3d", input, output_size=size)
    return (out[0], out[1]) if return_indices else out[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool3d(input, output_size, True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """ATen's: ``adaptive_max_pool2d`` of ``input.unsqueeze(-2)``, then ``squeeze(-2)``."""
    from .functional_layers import _int_list_arg

    _int_list_arg("adaptive_max_pool1d", "output_size", 2, output_size)
    _pc.check_dim_range(tuple(input.shape), 2, 4, "adaptive_max_pool1d")
    size = _pc.as_list(output_size, 1)
    _pc.check1d("adaptive_max_pool1d", "output_size", size)
    _pc.adaptive_max_pool1d_dims(tuple(input.shape))
    y, i = adaptive_max_pool2d(input.unsqueeze(-2), (1, size[0]), True)
    return (y.squeeze(-2), i.squeeze(-2)) if return_indices else y.squeeze(-2)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size, True)


# ---- max unpooling --------------------------------------------------------------------------

def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch's Python: the default size, or ``output_size`` checked against it."""
    n = len(kernel_size)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} '
                             f'and {hi})')
    return output_size


def _unpool_args(n, kernel_size, stride, padding):
    k = _ntuple(kernel_size, n)
    return k, (k if stride is None else _ntuple(stride, n)), _ntuple(padding, n)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``max_unpool2d`` on ``unsqueeze(-1)`` of both, then ``squeeze(-1)``, as torch."""
    k, s, p = _unpool_args(1, kernel_size, stride, padding)
    size = list(_unpool_output_size(input, k, s, p, output_size)) + [1]
    return _call("_max_unpool2d", input.unsqueeze(-1), indices.unsqueeze(-1),
                 output_size=tuple(size)).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Zeros of ``output_size`` with each value at its index (MaxUnpool2DBackward0)."""
    k, s, p = _unpool_args(2, kernel_size, stride, padding)
    size = _unpool_output_size(input, k, s, p, output_size)
    return _call("_max_unpool2d", input, indices, output_size=tuple(size))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    k, s, p = _unpool_args(3, kernel_size, stride, padding)
    size = _unpool_output_size(input, k, s, p, output_size)
    return _call("_max_unpool3d", input, indices, output_size=tuple(size))


# ---- normalisation --------------------------------------------------------------------------

def _verify_spatial_size(size):
    prod = 1
    for n in size[2:]:
        prod *= n
    if prod == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{size}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5):
    """ATen's ``instance_norm`` (see the module docstring): the graph is ViewBackward0 ->
    NativeBatchNormBackward0 -> (ViewBackward0, RepeatBackward0, RepeatBackward0)."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    b, c = input.shape[0], input.shape[1]
    rep = lambda t: None if t is None else t.repeat(b)  # noqa: E731
    rm, rv = rep(running_mean), rep(running_var)
    x = input.contiguous().view((1, b * c) + tuple(input.shape[2:]))
    y = batch_norm(x, rm, rv, rep(weight), rep(bias), use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(b, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(b, c).mean(0))
    return y.view(tuple(input.shape))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """ATen's composite: ``x * rsqrt(pow(x, 2).mean(dims, keepdim=True) + eps)``, then
    ``* weight``; ``eps=None`` is the machine epsilon of the computing dtype."""
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    n = len(ns)
    if n == 0 or tuple(input.shape[input.ndim - n:]) != ns or input.ndim < n:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*{', '.join(map(str, ns))}], but got input of size"
                           f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(ns)}")
    low = input.dtype in (_il.float16, getattr(_il, "bfloat16", _il.float16))
    x = input.to(_il.float32) if low else input
    if eps is None:
        eps = float(_np.finfo(x._dtype.np).eps)
    dims = tuple(range(input.ndim - 1, input.ndim - n - 1, -1))
    r = _scalar("add", x.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    y = x.mul(r)
    if low:
        y = y.type_as(input)
    return y if weight is None else y.mul(weight)


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0):
    """torch's Python, op for op: a channel-window average of ``x * x`` (avg_pool2d or
    avg_pool3d over a padded copy), then ``input / (avg * alpha + k) ** beta``."""
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = tuple(input.shape)
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# ---- power-average pooling ------------------------------------------------------------------

def _lp_tail(out, norm_type, count):
    return (_il.sign(out) * relu(_il.abs(out))).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum over the window of x ** p) ** (1 / p)`` as torch: an average pool of
    ``x.pow(p)`` times the window size."""
    if norm_type == float("inf"):
        return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    if not isinstance(kernel_size, (int, float)):  # (torch's ``.mul(kernel_size)``)
        raise TypeError(f"mul(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(kernel_size).__name__}")
    return _lp_tail(out, norm_type, kernel_size)


def _lp_nd(pool, n, input, norm_type, kernel_size, stride, ceil_mode):
    ks = _ntuple(kernel_size, n)
    if n == 2:  # (torch's ``kw, kh = _pair(kernel_size)``: its unpacking error)
        kw, kh = ks
    else:
        kd, kw, kh = ks
    if norm_type in (float("inf"), -float("inf")):
        maxp = max_pool2d if n == 2 else max_pool3d
        if norm_type > 0:
            return maxp(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -maxp(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    count = 1
    for e in ks:
        count *= e
    return _lp_tail(out, norm_type, count)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_nd(avg_pool2d, 2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_nd(avg_pool3d, 3, input, norm_type, kernel_size, stride, ceil_mode)


# ---- channel shuffle, circular padding ------------------------------------------------------

def channel_shuffle(input, groups: int):
    """Channels regrouped: ``(N, g, C/g, ...) -> (N, C/g, g, ...)`` (ChannelShuffleBackward0)."""
    return _call("_channel_shuffle", input, groups=groups)


native_channel_shuffle = channel_shuffle


def pad_circular(input, padding):
    """ATen's ``_pad_circular``: a fresh tensor, the input copied into its middle, then each
    side copied from the opposite end, dim by dim (each a slice ``copy_``: CopySlices).
    ``F.pad(mode="circular")`` comes here."""
    padding = tuple(int(p) for p in padding)
    nd = len(padding) // 2
    shape = list(input.shape)
    for i in range(nd):
        dim = input.ndim - 1 - i
        left, right = padding[2 * i], padding[2 * i + 1]
        if left > shape[dim] or right > shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[dim] += left + right
        if shape[dim] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension.")
    out = _il.empty(tuple(shape), dtype=input.dtype, device=input.device)
    o_sl, i_sl = [slice(None)] * input.ndim, [slice(None)] * input.ndim
    for i in range(nd):
        dim = input.ndim - 1 - i
        left, right = padding[2 * i], padding[2 * i + 1]
        o_sl[dim] = slice(max(left, 0), shape[dim] - max(right, 0))
        i_sl[dim] = slice(max(-left, 0), input.shape[dim] - max(-right, 0))
    out[tuple(o_sl)].copy_(input[tuple(i_sl)])
    for i in range(nd):
        dim = input.ndim - 1 - i
        left, right = padding[2 * i], padding[2 * i + 1]
        pick = lambda a, b: tuple(slice(a, b) if d == dim else slice(None)  # noqa: E731
                                  for d in range(input.ndim))
        if left > 0:
            out[pick(0, left)].copy_(out[pick(shape[dim] - left - max(right, 0),
                                              shape[dim] - max(right, 0))])
        if right > 0:
            out[pick(shape[dim] - right, shape[dim])].copy_(out[pick(max(left, 0),
                                                                     max(left, 0) + right)])
    return out


__all__ = ["max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
           "adaptive_max_pool3d_with_indices", "adaptive_max_pool1d",
           "adaptive_max_pool1d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d",
           "instance_norm", "rms_norm", "local_response_norm", "lp_pool1d", "lp_pool2d",
           "lp_pool3d", "channel_shuffle", "native_channel_shuffle"]
