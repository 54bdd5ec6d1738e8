"""ATen's pooling argument checks, in its order and words, as pure functions of shapes.

The ``nn.functional`` pools call these before any data is touched, so a bad call raises
what torch 2.13 raises on the CPU:

- ``pooling_output_shape`` (stride not zero, padding at most half the effective kernel,
  the output size with ``ceil_mode``'s rule), ``pool2d_shape_check`` / ``pool3d_shape_check``;
- the front ends' own checks: ``max_pool2d`` / ``avg_pool2d`` / ``max_pool3d`` / ``avg_pool3d``
  meta functions (argument lengths, ranks), ``max_pool1d``'s ``check_max_pool1d``,
  ``avg_pool1d`` / ``adaptive_*_pool1d``'s ``checkDimRange`` and ``check1d``, the adaptive
  pools' output size and empty-dimension checks;
- which dtypes each CPU kernel is compiled for (``"avg_pool2d" not implemented for 'Int'``).

Every function takes shapes (tuples) and argument lists as given by the functional, after
its own int -> list expansion (PyTorch's argument parser makes ``kernel_size=2`` of
``max_pool2d`` the list ``[2, 2]``, and ``stride=None`` the empty list).
"""
from __future__ import annotations

__all__ = ["pooling_output_shape", "max_pool1d_args", "max_pool2d_args", "avg_pool2d_args",
           "max_pool3d_args", "avg_pool3d_args", "check_dim_range", "check1d",
           "adaptive_avg_pool2d_args", "adaptive_max_pool2d_args", "adaptive_avg_pool3d_args",
           "adaptive_max_pool3d_args", "adaptive_max_pool1d_dims", "check_kernel_dtype",
           "as_list"]


def _trunc_div(a, b):
    """C++'s integer division (toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def as_list(v, n):
    """The argument parser's ``int[n]``: an int is repeated ``n`` times, a sequence kept,
    None (or an empty sequence) is the empty list."""
    if v is None:
        return []
    if isinstance(v, int):
        return [v] * n
    return [int(e) for e in v]


def pooling_output_shape(n, k, pad, s, d, ceil_mode):
    """ATen's ``pooling_output_shape`` with its checks."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > _trunc_div((k - 1) * d + 1, 2):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={pad}, kernel_size={k} and dilation={d}")
    o = (n + 2 * pad - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= n + pad:  # the last window starts inside the input
        o -= 1
    return o


def _size(shape, i):
    """``input.size(i)``, with ATen's error for a dim out of range."""
    nd = len(shape)
    lo, hi = -max(nd, 1), max(nd, 1) - 1
    if not lo <= i <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {i})")
    return shape[i]


def pool2d_shape_check(shape, k, s, p, d, out, channels_last=False):
    (kh, kw), (dh, dw), (ph, pw), (dilh, dilw) = k, s, p, d
    if kw <= 0 or kh <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if dw <= 0 or dh <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {dh} dW: {dw}")
    if dilh <= 0 or dilw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilh} "
                           f"dilationW: {dilw}")
    nd = len(shape)
    valid = nd >= 3 and shape[1] != 0 and shape[2] != 0
    if channels_last:
        if not (nd == 4 and valid and shape[3] != 0):
            raise RuntimeError("Expected 4D (batch mode) tensor expected for input with "
                               "channels_last layout with optional 0 dim batch size for input, "
                               f"but got: {list(shape)}")
    elif not ((nd == 3 and shape[0] != 0 and valid) or (nd == 4 and valid and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    if not (_trunc_div(kw, 2) >= pw and _trunc_div(kh, 2) >= ph):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    oh, ow = out
    if ow < 1 or oh < 1:
        c, h, w = shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{oh}x{ow}). Output size is too small")


def _two(v, what, op, omitted=False):
    ok = (0, 1, 2) if omitted else (1, 2)
    if len(v) not in ok:
        if what == "dilation":
            raise RuntimeError(f"{op}: dilation must be either a single int, or a tuple of two ints")
        either = "either be omitted, a single int," if omitted else "either be a single int,"
        raise RuntimeError(f"{op}: {what} must {either} or a tuple of two ints")


def max_pool2d_args(shape, kernel_size, stride, padding, dilation, ceil_mode,
                    channels_last=False):
    """``max_pool2d_with_indices``'s meta checks: ``(k, s, p, d, out)`` as pairs."""
    k, s, p, d = (as_list(v, 2) for v in (kernel_size, stride, padding, dilation))
    _two(k, "kernel_size", "max_pool2d")
    k = (k[0], k[-1])
    _two(s, "stride", "max_pool2d", omitted=True)
    s = k if not s else (s[0], s[-1])
    _two(p, "padding", "max_pool2d")
    p = (p[0], p[-1])
    _two(d, "dilation", "max_pool2d")
    d = (d[0], d[-1])
    if channels_last and len(shape) != 4:
        raise RuntimeError("non-empty 4D (batch mode) tensor expected for input with "
                           "channels_last layout")
    if len(shape) not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = tuple(pooling_output_shape(n, kk, pp, ss, dd, ceil_mode)
                for n, kk, pp, ss, dd in zip(shape[-2:], k, p, s, d))
    pool2d_shape_check(shape, k, s, p, d, out, channels_last)
    return k, s, p, d, out


def avg_pool2d_args(shape, kernel_size, stride, padding, ceil_mode, divisor_override=None,
                    channels_last=False):
    """``avg_pool2d``'s meta checks: ``(k, s, p, out)`` as pairs."""
    k, s, p = (as_list(v, 2) for v in (kernel_size, stride, padding))
    _two(k, "kernel_size", "avg_pool2d")
    k = (k[0], k[-1])
    _two(s, "stride", "avg_pool2d", omitted=True)
    s = k if not s else (s[0], s[-1])
    _two(p, "padding", "avg_pool2d")
    p = (p[0], p[-1])
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    for i in (-4, -3, -2, -1):  # (ATen reads every size first)
        if i != -4 or len(shape) == 4:
            _size(shape, i)
    out = tuple(pooling_output_shape(n, kk, pp, ss, 1, ceil_mode)
                for n, kk, pp, ss in zip(shape[-2:], k, p, s))
    pool2d_shape_check(shape, k, s, p, (1, 1), out, channels_last)
    return k, s, p, out


def pool3d_shape_check(shape, k, s, p, d, out, fn, check_input_size=False):
    (kt, kh, kw), (dt, dh, dw), (pt, ph, pw), (dilt, dilh, dilw) = k, s, p, d
    if kt <= 0 or kw <= 0 or kh <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kt} kH: {kh} "
                           f"kW: {kw}")
    if dt <= 0 or dw <= 0 or dh <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {dt} dH: {dh} "
                           f"dW: {dw}")
    if dilt <= 0 or dilw <= 0 or dilh <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {dilt} "
                           f"dilationH: {dilh} dilationW: {dilw}")
    nd = len(shape)
    if nd not in (4, 5):
        raise RuntimeError(f"{fn}: Expected 4D or 5D tensor for input, but got: {list(shape)}")
    for i in range(nd):
        if nd == 5 and i == 0:
            continue
        if shape[i] <= 0:
            raise RuntimeError(f"{fn}: Expected input's non-batch dimensions to have positive "
                               f"length, but input has a shape of {list(shape)} and non-batch "
                               f"dimension {shape[i]} has length zero!")
    it, ih, iw = shape[-3:]
    if check_input_size and not (it >= kt and ih >= kh and iw >= kw):
        raise RuntimeError(f"input image (T: {it} H: {ih} W: {iw}) smaller than kernel size "
                           f"(kT: {kt} kH: {kh} kW: {kw})")
    if not (_trunc_div(kt, 2) >= pt and _trunc_div(kw, 2) >= pw and _trunc_div(kh, 2) >= ph):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    ot, oh, ow = out
    if ot < 1 or ow < 1 or oh < 1:
        c = shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{it}x{ih}x{iw}). Calculated output size: "
                           f"({c}x{ot}x{oh}x{ow}). Output size is too small")


def _three(v, what, op, omitted=False, either=True):
    ok = (0, 1, 3) if omitted else (1, 3)
    if len(v) not in ok:
        if what == "dilation":
            raise RuntimeError(f"{op}: dilation must be either a single int, or a tuple of "
                               "three ints")
        word = "either be" if either else "be"
        lead = f"{word} omitted, a single int," if omitted else f"{word} a single int,"
        raise RuntimeError(f"{op}: {what} must {lead} or a tuple of three ints")
    return None if not v else tuple(v) * 3 if len(v) == 1 else tuple(v)


def max_pool3d_args(shape, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool3d_with_indices``'s CPU checks: ``(k, s, p, d, out)`` as triples."""
    k = _three(as_list(kernel_size, 3), "kernel_size", "max_pool3d")
    s = _three(as_list(stride, 3), "stride", "max_pool3d", omitted=True) or k
    p = _three(as_list(padding, 3), "padding", "max_pool3d")
    d = _three(as_list(dilation, 3), "dilation", "max_pool3d")
    if len(shape) not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    out = tuple(pooling_output_shape(n, kk, pp, ss, dd, ceil_mode)
                for n, kk, pp, ss, dd in zip(shape[-3:], k, p, s, d))
    pool3d_shape_check(shape, k, s, p, d, out, "max_pool3d_with_indices_out_cpu_template()")
    return k, s, p, d, out


def avg_pool3d_args(shape, kernel_size, stride, padding, ceil_mode, divisor_override=None):
    """``avg_pool3d``'s meta checks: ``(k, s, p, out)`` as triples."""
    k = _three(as_list(kernel_size, 3), "kernel_size", "avg_pool3d", either=False)
    s = _three(as_list(stride, 3), "stride", "avg_pool3d", omitted=True, either=False) or k
    p = _three(as_list(padding, 3), "padding", "avg_pool3d", either=False)
    if len(shape) not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = tuple(pooling_output_shape(n, kk, pp, ss, 1, ceil_mode)
                for n, kk, pp, ss in zip(shape[-3:], k, p, s))
    pool3d_shape_check(shape, k, s, p, (1, 1, 1), out, "avg_pool3d()", check_input_size=True)
    return k, s, p, out


# ---- 1-d front ends ---------------------------------------------------------------------------

def check_dim_range(shape, lo, hi, op):
    """ATen's ``checkDimRange`` (``hi`` exclusive)."""
    if not lo <= len(shape) < hi:
        raise RuntimeError(f"Expected {lo} to {hi - 1} dimensions, but got {len(shape)}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {op})")


def check1d(op, name, v):
    if len(v) != 1:
        raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(v)})")


def max_pool1d_args(shape, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool1d`` (the CPU kernel without indices): its checks, then ``(k, s, p, d)``."""
    nd = len(shape)
    if not ((nd == 2 and shape[0] != 0 and shape[1] != 0) or
            (nd == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(shape)}")
    k, s, p, d = (as_list(v, 1) for v in (kernel_size, stride, padding, dilation))
    if len(k) != 1:
        raise RuntimeError("max_pool1d() kernel_size must be an int, list of ints or tuple of "
                           f"ints of size 1 but got size {len(k)}")
    if len(s) not in (0, 1):
        raise RuntimeError("max_pool1d() stride must be None, an int, list of ints, or tuple of "
                           f"ints of size 1 but got size {len(s)}")
    if len(p) != 1:
        raise RuntimeError("max_pool1d() padding must be an int, list of ints, or tuple of ints "
                           f"of size 1 but got size {len(p)}")
    if len(d) != 1:
        raise RuntimeError("max_pool1d() dilation must be an int, list of ints or tuple of ints "
                           f"of size 1 but got size {len(d)}")
    s = s or k
    (k,), (s,), (p,), (d,) = k, s, p, d
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > _trunc_div(k, 2):
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    ow = pooling_output_shape(shape[-1], k, p, s, d, ceil_mode)
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")
    return k, s, p, d


# ---- adaptive pools ---------------------------------------------------------------------------

def adaptive_avg_pool2d_args(shape, output_size):
    """``adaptive_avg_pool2d``'s checks on the size (the Python front end has put the input's
    sizes for the Nones); ``True`` when ATen takes the 1x1 shortcut (a mean)."""
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if output_size[0] < 0 or output_size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{output_size[0]}, {output_size[1]}}}")
    if tuple(output_size) == (1, 1):
        return True
    nd = len(shape)
    if nd not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(shape)}")
    for i in (-2, -1):
        if shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(shape)} with "
                               f"dimension {i + nd} being empty")
    return False


def adaptive_max_pool2d_args(shape, output_size, op="adaptive_max_pool2d"):
    nd = len(shape)
    if nd not in (3, 4):
        raise RuntimeError(f"{op}(): Expected 3D or 4D tensor, but got: {list(shape)}")
    _nonempty(shape, op)
    if len(output_size) != 2:
        raise RuntimeError(f"{op}(): internal error: output_size.size() must be 2")
    _new_size(tuple(shape[:-2]) + tuple(output_size))


def adaptive_max_pool1d_dims(shape):
    _nonempty(shape, "adaptive_max_pool1d")


def adaptive_avg_pool3d_args(shape, output_size):
    """``adaptive_avg_pool3d``'s checks; ``True`` for ATen's 1x1x1 shortcut (a mean)."""
    if len(output_size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if any(o < 0 for o in output_size):
        o = output_size
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{o[0]}, {o[1]},{o[2]}}}")
    if tuple(output_size) == (1, 1, 1):
        return True
    _nonempty(shape, "adaptive_avg_pool3d")
    if len(shape) not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(shape)}")
    return False


def adaptive_max_pool3d_args(shape, output_size):
    nd = len(shape)
    if nd not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: "
                           f"{list(shape)}")
    _nonempty(shape, "adaptive_max_pool3d")
    if len(output_size) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    _new_size(tuple(shape[:-3]) + tuple(output_size))


def _nonempty(shape, op):
    for i in range(1, len(shape)):
        if shape[i] <= 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(shape)} with dimension {i} "
                               "being empty")


def _new_size(size):
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(size)}")


# ---- the kernels' dtypes ----------------------------------------------------------------------

_FLOATS = ("Float", "Double", "Half", "BFloat16")
_KERNEL_DTYPES = {
    "max_pool1d_impl": _FLOATS,
    "max_pool2d": _FLOATS + ("Byte", "Char", "Short", "Int", "Long"),
    "max_pool3d": _FLOATS + ("Byte", "Char", "Short", "Int", "Long"),
    "avg_pool2d": _FLOATS + ("Long",),
    "avg_pool3d_out_frame": ("Float", "Double", "Long"),
    "adaptive_avg_pool2d": _FLOATS,
    "adaptive_max_pool2d": _FLOATS,
    "adaptive_avg_pool3d_cpu": _FLOATS,
    "adaptive_max_pool3d_cpu": _FLOATS,
}


def check_kernel_dtype(dtype, kernel):
    """The CPU kernel's dtype dispatch: ``"avg_pool2d" not implemented for 'Int'``."""
    if dtype.torch_name not in _KERNEL_DTYPES[kernel]:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype.torch_name}\'')


def check_mean_dtype(dtype):
    """``mean()`` (the adaptive average pools' 1x1 shortcut) wants a float or complex input."""
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {dtype.torch_name}")
