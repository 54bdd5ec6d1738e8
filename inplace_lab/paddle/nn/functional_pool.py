"""``paddle.nn.functional`` pooling under Paddle's names, arguments and rules: 1-D to 3-D
max / avg / lp pooling (``exclusive``, ``ceil_mode``, ``'SAME'``/``'VALID'`` or explicit
padding, ``return_mask`` as int32 flat indices, ``data_format``), adaptive pooling, and
``max_unpool``. The window arithmetic is ``functional_pool_nd``'s.
"""
from __future__ import annotations

from . import functional_pool_nd as _nd

__all__ = ["avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool2d", "max_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "lp_pool1d",
           "lp_pool2d", "max_unpool1d", "max_unpool2d", "max_unpool3d"]

_LAYOUTS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _to_list(value, n, name):
    from .functional_conv import to_list

    return to_list(value, n, name)


def _check_input(x, rank):
    if x.ndim != rank:
        raise ValueError(f"Excepted Input X is {rank}-D tensor, but received {x.ndim}-D "
                         "<class 'paddle.Tensor'>")


def _channel_last(data_format, nd, period=""):
    first, last = _LAYOUTS[nd]
    if data_format not in (first, last):
        raise ValueError(f"Attr(data_format) should be '{first}' or '{last}'. Received "
                         f"Attr(data_format): {data_format}{period}")
    return data_format == last


def _padding(padding, nd, channel_last, ceil_mode):
    """Paddle's pooling ``_update_padding_nd`` (no sign check, unlike conv's)."""
    if isinstance(padding, str):
        padding = padding.upper()
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{padding}'. It can only be 'SAME' or 'VALID'.")
        if padding == "VALID" and ceil_mode:
            raise ValueError('When Attr(padding) is "VALID", Attr(ceil_mode) must be False. '
                             "Received ceil_mode: True.")
        return [[0, 0]] * nd, padding
    from .functional_conv import update_padding

    try:
        return update_padding(padding, channel_last, nd)
    except ValueError as e:
        if str(e).startswith("In valid padding"):
            raise ValueError(f"Invalid padding: {padding}") from None
        raise


def _check_positive(values, name):
    for v in values:
        if v <= 1e-3:
            raise ValueError(f"Excepted the input {name} to be greater than 0.001 but received "
                             f"x: {v}. ")


_LABELS: dict = {}


def _label(out, kind, nd, with_index):
    """Paddle's grad node on a pooling result: a copy recorded under its kernel's name
    (Pool2dGradNode, MaxPool2dWithIndexGradNode, LpPool2dGradNode; a 1-D pool runs as 2-D
    between unsqueeze and squeeze: SqueezeGradNode). The values' gradient passes through."""
    import dataclasses

    from inplace_lab.ops import dispatch
    from inplace_lab.ops.table import OPS

    mask = None
    if isinstance(out, (tuple, list)):
        out, mask = out[0], out[1]
    if nd == 1:
        kernel = "squeeze"
    elif kind == "lp":
        kernel = f"lp_pool{nd}d"
    else:
        kernel = f"max_pool{nd}d_with_index" if with_index else f"pool{nd}d"
    if out.stop_gradient:
        labelled = out
    else:
        if kernel not in _LABELS:
            _LABELS[kernel] = dataclasses.replace(OPS["clone"], name=kernel, select=None)
        labelled = dispatch.call(_LABELS[kernel], (out,), {})
    return labelled if mask is None else (labelled, mask)


def _pool(kind, x, nd, kernel_size, stride, padding, ceil_mode, data_format, period="",
          exclusive=True, return_mask=False, norm_type=None, fname=""):
    kernel = _to_list(kernel_size, nd, "pool_size")
    stride = kernel if stride is None else _to_list(stride, nd, "pool_stride")
    if kind != "max":
        _check_positive(kernel, "kernel_size")
        _check_positive(stride, "stride")
    channel_last = _channel_last(data_format, nd, period)
    pads, algorithm = _padding(padding, nd, channel_last, ceil_mode)
    if return_mask and channel_last:
        first = _LAYOUTS[nd][0]
        raise ValueError("When setting return_mask to true, data_format must be set to "
                         f"{first} in API:{fname}")
    if channel_last:
        x = x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1)))
    if algorithm == "SAME" and not return_mask:  # (the mask kernel ignores 'SAME' in Paddle)
        pads = _nd.same_pads(list(x.shape[2:]), kernel, stride)
    if kind == "max":
        out = _nd.max_pool(x, kernel, stride, pads, ceil_mode, return_mask)
    elif kind == "avg":
        out = _nd.avg_pool(x, kernel, stride, pads, ceil_mode, exclusive)
    else:
        out = _nd.lp_pool(x, norm_type, kernel, stride, pads, ceil_mode)
    if channel_last:
        out = out.transpose([0] + list(range(2, x.ndim)) + [1])
    return _label(out, kind, nd, kind == "max" and return_mask)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """Paddle's ``exclusive=True`` (default) leaves padding out of the divisor."""
    _check_input(x, 3)
    return _pool("avg", x, 1, kernel_size, stride, padding, ceil_mode, "NCL",
                 exclusive=exclusive)


def _override(out, kernel, nd, divisor_override):
    """Paddle rescales the finished average: ``out * prod(kernel) / divisor_override``."""
    if divisor_override is None:
        return out
    if not isinstance(divisor_override, (int, float)):
        raise ValueError(f"Excepted {(int, float)} type for divisor_override but received "
                         f"type: {type(divisor_override)}. ")
    size = 1
    for k in _to_list(kernel, nd, "pool_size"):
        size *= k
    return out * size / divisor_override


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    out = _pool("avg", x, 2, kernel_size, stride, padding, ceil_mode, data_format,
                exclusive=exclusive)
    return _override(out, kernel_size, 2, divisor_override)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    out = _pool("avg", x, 3, kernel_size, stride, padding, ceil_mode, data_format,
                exclusive=exclusive)
    return _override(out, kernel_size, 3, divisor_override)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    _check_input(x, 3)
    return _pool("max", x, 1, kernel_size, stride, padding, ceil_mode, "NCL",
                 return_mask=return_mask, fname="max_pool1d")


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    return _pool("max", x, 2, kernel_size, stride, padding, ceil_mode, data_format, ".",
                 return_mask=return_mask, fname="max_pool2d")


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    return _pool("max", x, 3, kernel_size, stride, padding, ceil_mode, data_format,
                 return_mask=return_mask, fname="max_pool3d")


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCL", name=None):
    """``(sum of x ** norm_type over the window) ** (1 / norm_type)``."""
    _check_input(x, 3)
    return _pool("lp", x, 1, kernel_size, stride, padding, ceil_mode, data_format,
                 norm_type=float(norm_type))


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCHW", name=None):
    _check_input(x, 4)
    if norm_type == 0:
        raise ValueError("`norm_type` cannot be 0.")
    return _pool("lp", x, 2, kernel_size, stride, padding, ceil_mode, data_format,
                 norm_type=float(norm_type))


# ---- adaptive pooling -------------------------------------------------------------------------

def _adaptive(kind, x, output_size, nd, data_format=None, return_mask=False):
    if isinstance(output_size, int):
        sizes = [output_size] * nd
    else:
        sizes = list(output_size)
        if len(sizes) != nd:
            raise ValueError(f"The output_size's length must be {nd}. Received: {output_size}")
    channel_last = data_format is not None and _channel_last(data_format, nd)
    if channel_last:
        x = x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1)))
    out = _nd.adaptive_pool(x, sizes, kind, return_mask)
    if channel_last:
        out = out.transpose([0] + list(range(2, x.ndim)) + [1])
    return _label(out, kind, nd, kind == "max")


def adaptive_avg_pool1d(x, output_size, name=None):
    _check_input(x, 3)
    return _adaptive("avg", x, output_size, 1)


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """``output_size`` may hold None: that dim keeps the input's size."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    return _adaptive("avg", x, output_size, 2, data_format)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError("Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    return _adaptive("avg", x, output_size, 3, data_format)


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    _check_input(x, 3)
    return _adaptive("max", x, output_size, 1, return_mask=return_mask)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    return _adaptive("max", x, output_size, 2, return_mask=return_mask)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    return _adaptive("max", x, output_size, 3, return_mask=return_mask)


# ---- max_unpool -------------------------------------------------------------------------------

def _unpool(x, indices, nd, kernel_size, stride, padding, data_format, output_size):
    first = _LAYOUTS[nd][0]
    if data_format != first:
        raise ValueError(f"Attr(data_format) should be '{first}'. Received "
                         f"Attr(data_format): {data_format}.")
    kernel = _to_list(kernel_size, nd, "pool_size")
    stride = kernel if stride is None else _to_list(stride, nd, "pool_stride")
    pads, _ = _padding(padding, nd, False, False)
    default = [(n - 1) * s + k - 2 * p[0]
               for n, s, k, p in zip(x.shape[2:], stride, kernel, pads)]
    if output_size is None:
        out = default
    else:
        assert isinstance(output_size, (list, tuple)), (
            f"Required output_size is None|list|tuple, but received {output_size}")
        out = list(output_size)
        if len(out) == nd + 2:
            out = out[2:]
        if len(out) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                             f"elements, but it has a length of '{len(out)}'")
        for d in range(nd):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < out[d] < hi:
                raise ValueError(f'invalid output_size "{out}" (dim {d} must be between {lo} '
                                 f"and {hi})")
    return _nd.max_unpool(x, indices, out)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    """The inverse of max_pool1d: values go back to their mask positions, zeros elsewhere."""
    return _unpool(x, indices, 1, kernel_size, stride, padding, data_format, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    return _unpool(x, indices, 2, kernel_size, stride, padding, data_format, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    return _unpool(x, indices, 3, kernel_size, stride, padding, data_format, output_size)
