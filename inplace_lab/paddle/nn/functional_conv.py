"""``paddle.nn.functional`` convolutions: conv1d/2d/3d and their transposes.

The one kernel is the core's ``_conv2d`` (ConvolutionBackward0). The rest is composed from
differentiable ops so gradients come for free and a student can read each step:

- conv1d is conv2d on an unsqueezed height of 1 (as Paddle itself does);
- conv3d sums, over the kernel's depth taps, a conv2d of the matching depth slices with the
  depth folded into the batch;
- a transposed conv is the adjoint of a conv: insert ``stride - 1`` zeros between input
  cells, pad by ``dilation * (k - 1) - padding``, and run a stride-1 conv with the kernel
  flipped and its in/out channels swapped (per group).

Paddle's padding forms (``'SAME'``/``'VALID'``, an int, one per dim, a before/after pair per
dim, or pairs for every dim of the data layout) and its Python-side checks are reproduced
with their messages; the checks run before any data is touched.
"""
from __future__ import annotations

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
           "conv3d_transpose"]

_LAYOUTS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _core():
    from inplace_lab.nn import functional as core

    return core


def to_list(value, n, name):
    """Paddle's ``convert_to_list``: an int repeated n times, or exactly n ints."""
    if isinstance(value, int):
        return [value] * n
    try:
        value_list = list(value)
    except TypeError:
        raise ValueError(f"The {name}'s type must be list or tuple. Received: {value}") from None
    if len(value_list) != n:
        raise ValueError(f"The {name}'s length must be {n}. Received: {value}")
    return [int(v) for v in value_list]


def update_padding(padding, channel_last, nd):
    """Paddle's ``_update_padding_nd``: returns (``[[before, after]] * nd``, algorithm)."""
    if isinstance(padding, str):
        padding = padding.upper()
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{padding}'. It can only be 'SAME' or 'VALID'.")
        return [[0, 0]] * nd, padding
    if isinstance(padding, (list, tuple)):
        if len(padding) == 2 + nd and isinstance(padding[0], (list, tuple)):
            outer = (padding[0], padding[-1]) if channel_last else (padding[0], padding[1])
            if any(list(p) != [0, 0] for p in outer):
                raise ValueError(f"Non-zero padding({padding}) in the batch or channel "
                                 "dimensions is not supported.")
            inner = padding[1:-1] if channel_last else padding[2:]
            flat = [v for pair in inner for v in pair]
        elif len(padding) == 2 * nd and isinstance(padding[0], int):
            flat = to_list(padding, 2 * nd, "padding")
        elif len(padding) == nd and isinstance(padding[0], int):
            flat = [v for p in to_list(padding, nd, "padding") for v in (p, p)]
        else:
            raise ValueError(f"In valid padding: {padding}")
    else:
        flat = [v for p in to_list(padding, nd, "padding") for v in (p, p)]
    if not all(p >= 0 for p in flat):
        shown = flat[0::2] if flat[0::2] == flat[1::2] else flat  # Paddle's symmetric short form
        raise ValueError("Invalid padding, all value should be larger than or equal to 0, but "
                         f"received: {shown}")
    return [flat[2 * i:2 * i + 2] for i in range(nd)], "EXPLICIT"


def _resolve(pads, algorithm, spatial, kernel, stride, dilation):
    """The kernel's ``UpdatePaddingAndDilation``: 'SAME' gives ``ceil(in / stride)`` outputs,
    the odd cell after, and *resets dilation to 1* (Paddle ignores dilation under 'SAME')."""
    if algorithm != "SAME":
        return pads, dilation
    pads = []
    for n, k, s in zip(spatial, kernel, stride):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        pads.append([total // 2, total - total // 2])
    return pads, [1] * len(spatial)


def _pad_cf(x, pads):
    """Constant-pad (negative: crop) the trailing spatial dims of a channels-first tensor."""
    if not any(v for p in pads for v in p):
        return x
    flat = []
    for before, after in reversed(pads):  # the core's pad lists the last dim first
        flat += [before, after]
    return _core().pad(x, tuple(flat))


def _conv_cf(x, w, pads, stride, dilation, groups):
    """Channels-first conv of 2 or 3 spatial dims on the core's conv2d."""
    nd = x.ndim - 2
    if all(a == b for a, b in pads):
        sym = [a for a, _ in pads]
    else:
        x, sym = _pad_cf(x, pads), [0] * nd
    core = _core()
    if nd == 2:
        return core.conv2d(x, w, None, tuple(stride), tuple(sym), tuple(dilation), groups)
    n, c, d = x.shape[:3]
    kd, out = w.shape[2], None
    x = _pad_cf(x, [[sym[0], sym[0]], [0, 0], [0, 0]])
    d += 2 * sym[0]
    depth = (d - dilation[0] * (kd - 1) - 1) // stride[0] + 1
    for t in range(kd):  # one conv2d per depth tap, the output depths folded into the batch
        start = t * dilation[0]
        xs = x[:, :, start:start + stride[0] * (depth - 1) + 1:stride[0]]
        xs = xs.transpose([0, 2, 1, 3, 4]).reshape([n * depth, c, *x.shape[3:]])
        y = core.conv2d(xs, w[:, :, t], None, tuple(stride[1:]), tuple(sym[1:]),
                        tuple(dilation[1:]), groups)
        out = y if out is None else out + y
    return out.reshape([n, depth, *out.shape[1:]]).transpose([0, 2, 1, 3, 4])


def _conv_transpose_cf(x, w, pads, stride, dilation, groups, output_padding):
    """The adjoint of ``_conv_cf``: zero-insert, pad, flipped channel-swapped stride-1 conv."""
    nd = x.ndim - 2
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    if any(s > 1 for s in stride):
        # [N, C, a, b] -> [N, C, a, 1, b, 1] -> pad to [N, C, a, s0, b, s1] -> [N, C, a*s0, b*s1]
        x = x.reshape([n, c, *[v for m in spatial for v in (m, 1)]])
        x = _core().pad(x, tuple(v for s in reversed(stride) for v in (0, s - 1, 0, 0))[:-2])
        x = x.reshape([n, c, *[m * s for m, s in zip(spatial, stride)]])
    k = list(w.shape[2:])
    edge = [[d * (kk - 1) - b, d * (kk - 1) - a + op - (s - 1)]
            for d, kk, (b, a), op, s in zip(dilation, k, pads, output_padding, stride)]
    x = _pad_cf(x, edge)
    cin, cout_g = w.shape[0], w.shape[1]
    w = w.reshape([groups, cin // groups, cout_g, *k]).transpose([0, 2, 1] + list(range(3, 3 + nd)))
    w = w.reshape([groups * cout_g, cin // groups, *k]).flip(list(range(2, 2 + nd)))
    return _conv_cf(x, w, [[0, 0]] * nd, [1] * nd, dilation, groups)


# ---- Paddle's checks, in the order Paddle makes them ------------------------------------------

def _check_layout(fname, data_format, nd):
    first, last = _LAYOUTS[nd]
    if data_format in (first, last):
        return data_format == last
    if fname in ("conv1d_transpose", "conv2d_transpose"):
        raise ValueError("Attr(data_format) of conv2d_transpose got wrong value: received "
                         f"{data_format}, but only '{first}' or '{last}' are supported.")
    raise ValueError(f"Attr(data_format) should be '{first}' or '{last}'. Received "
                     f"Attr(data_format): {data_format}.")


def _check_rank(x, nd, what="x"):
    if x.ndim != nd + 2:
        raise ValueError(f"Input {what} should be {nd + 2}D tensor, but received {what} with the "
                         f"shape of {x.shape}")


def _check_groups(fname, x, weight, groups, channels, transposed):
    if groups == 0:
        raise ValueError({"conv1d": "The groups of conv1d should not be zero",
                          "conv2d": "The groups of conv2d should be not be zero.",
                          "conv3d": "The groups of conv3d should not be 0."}.get(
            fname, f"The groups of {fname} should not be zero."))
    if fname.startswith("conv3d"):
        if channels % groups:
            raise ValueError("The number of input channels must be divisible by Attr(groups). "
                             f"Received: number of channels({channels}), groups({groups}).")
        if not transposed and weight.shape[0] % groups:
            raise ValueError("The number of filters must be divisible by Attr(groups). "
                             f"Received: number of filters({weight.shape[0]}), groups({groups}).")
        return
    if channels % groups:
        raise ValueError(f"{'the' if transposed else 'The'} channel of input must be divisible by "
                         f"groups,received: the channel of input is {channels}, the shape of "
                         f"input is {x.shape}, the groups is {groups}")
    if not transposed and weight.shape[0] % groups:
        raise ValueError("The number of filters must be divisible by groups,received: the number "
                         f"of filters is {weight.shape[0]}, the shape of weight is "
                         f"{weight.shape}, the groups is {groups}")


def _kernel_checks(x, w, groups, stride, layout, transposed):
    """The C++ kernel's InferMeta checks (shapes as the kernel sees them: conv1d's are 4-D)."""
    xs, ws = list(x.shape), list(w.shape)
    if not transposed and len(xs) != len(ws):
        raise ValueError("(InvalidArgument) The input's dimension and filter's dimension of "
                         f"Op(Conv) should be equal. But received: the input's shape is {xs}, the "
                         f"input's dimension is {len(xs)}; the filter's shape is {ws},  the "
                         f"filter's dimension is {len(ws)}.")
    c = xs[-1] if layout.endswith("C") else xs[1]
    if transposed and c != ws[0]:
        raise ValueError("(InvalidArgument) The number of input channels should be equal to "
                         f"filter channels for Op(conv_transpose). But received: the input's "
                         f"channels is [{c}], the shape of input is {xs}, the filter's channels "
                         f"is [{ws[0]}], the shape of filter is {ws}. The data_format is "
                         f"{layout}.The error may come from wrong data_format setting.")
    if not transposed and c != ws[1] * groups:
        raise ValueError("(InvalidArgument) The number of input's channels should be equal to "
                         f"filter's channels * groups for Op(Conv). But received: the input's "
                         f"channels is {c}, the input's shape is {xs}; the filter's channels is "
                         f"{ws[1]}, the filter's shape is {ws}; the groups is {groups}, the "
                         f"data_format is {layout}. The error may come from wrong data_format "
                         "setting.")
    for s in stride:
        if s <= 0:
            raise ValueError("(InvalidArgument) The stride of Op(Conv) should be larger than 0, "
                             f"but received stride is {s}.")
    if x.dtype != w.dtype:
        raise ValueError("(InvalidArgument) The type of data we are trying to retrieve "
                         f"({_dt(x)}) does not match the type of data ({_dt(w)}) currently "
                         "contained in the container.")


def _dt(t):
    return str(t.dtype).replace("paddle.", "")


def _channels_first(x, channel_last):
    if not channel_last:
        return x
    return x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1)))


def _channels_last(y, channel_last):
    if not channel_last:
        return y
    return y.transpose([0] + list(range(2, y.ndim)) + [1])


def _add_bias(y, bias, channel_dim):
    if bias is None:
        return y
    shape = [1] * y.ndim
    shape[channel_dim] = -1
    return y + bias.reshape(shape)


# ---- the public functions ---------------------------------------------------------------------

def _conv(fname, nd, x, weight, bias, stride, padding, dilation, groups, data_format):
    channel_last = _check_layout(fname, data_format, nd)
    _check_rank(x, nd)
    _check_groups(fname, x, weight, groups, x.shape[-1 if channel_last else 1], False)
    pads, algorithm = update_padding(padding, channel_last, nd)
    stride, dilation = to_list(stride, nd, "stride"), to_list(dilation, nd, "dilation")
    squeeze = None
    if nd == 1:  # Paddle runs conv1d as conv2d over a height of 1
        squeeze = 1 if channel_last else 2
        x, weight = x.unsqueeze(squeeze), weight.unsqueeze(-2)
        pads, stride, dilation = [[0, 0]] + pads, [1] + stride, [1] + dilation
    layout = _LAYOUTS[max(nd, 2)][channel_last]
    _kernel_checks(x, weight, groups, stride, layout, transposed=False)
    x = _channels_first(x, channel_last)
    pads, dilation = _resolve(pads, algorithm, x.shape[2:], weight.shape[2:], stride, dilation)
    y = _channels_last(_conv_cf(x, weight, pads, stride, dilation, groups), channel_last)
    y = _add_bias(y, bias, -1 if channel_last else 1)
    return y if squeeze is None else y.squeeze(squeeze)


def _transposed_size(x, w, pads, stride, dilation, output_padding, output_size):
    """The kernel's output-size rule; returns the output_padding that reaches output_size."""
    shown = [list(output_size or [])]
    extra = []
    for i, (n, k) in enumerate(zip(x.shape[2:], w.shape[2:])):
        infer = (n - 1) * stride[i] - sum(pads[i]) + dilation[i] * (k - 1) + 1
        if output_size:
            if output_size[i] < infer:
                raise ValueError("(InvalidArgument) output_size of Op(ConvTransposeOp) should not "
                                 f"be less than the inferred output size. But received "
                                 f"output_size = {shown}, whose dim {i} is less than the "
                                 f"inferred output size [{infer}]")
            if output_size[i] >= infer + stride[i]:
                raise ValueError("(InvalidArgument) output_size of Op(ConvTransposeOp) should be "
                                 "less than inferred size + stride. But received output_size = "
                                 f"{shown}, whose dim {i} is not less than the inferred output "
                                 f"size ({infer}) + stride ({stride[i]}) = {infer + stride[i]}")
            extra.append(output_size[i] - infer)
        else:
            op = output_padding[i]
            if op < 0 or (op >= stride[i] and op >= dilation[i]):
                raise ValueError("(InvalidArgument) output_padding of Op(ConvTransposeOp) should "
                                 "be less than either stride or dilation. But received "
                                 f"output_size = {shown}, whose dim {i} is not less than either "
                                 f"stride ({stride[i]})  or dilation ({dilation[i]})")
            extra.append(op)
    return extra


def _conv_transpose(fname, nd, x, weight, bias, stride, padding, output_padding, dilation,
                    groups, output_size, data_format):
    channel_last = _check_layout(fname, data_format, nd)
    _check_rank(x, nd)
    if nd > 1:
        _check_rank(weight, nd, "weight")
    _check_groups(fname, x, weight, groups, x.shape[-1 if channel_last else 1], True)
    pads, algorithm = update_padding(padding, channel_last, nd)
    stride, dilation = to_list(stride, nd, "stride"), to_list(dilation, nd, "dilation")
    if output_size is not None:
        if output_padding != 0:
            raise ValueError("output_padding option is mutually exclusive with output_size")
        if not isinstance(output_size, (list, tuple, int)):
            raise ValueError("output_size should be int, or list, tuple of ints")
        output_size = to_list(output_size, nd, "output_size")
    output_padding = ([0] * nd if output_padding == 0
                      else to_list(output_padding, nd, "output_padding"))
    squeeze = None
    if nd == 1:  # Paddle runs it as conv2d_transpose over a width of 1
        if output_padding[0] > stride[0]:
            raise ValueError("The size of output_padding should not be greater than stride.But "
                             f"got output_padding={output_padding[0]} and stride={stride[0]}")
        _check_rank(weight, nd, "weight")
        squeeze = -2 if channel_last else -1
        x, weight = x.unsqueeze(squeeze), weight.unsqueeze(-1)
        pads, stride, dilation = pads + [[0, 0]], stride + [1], dilation + [1]
        output_padding = output_padding + [0]
        output_size = output_size + [1] if output_size else None
    _kernel_checks(x, weight, groups, stride, _LAYOUTS[max(nd, 2)][channel_last], True)
    x = _channels_first(x, channel_last)
    pads, dilation = _resolve(pads, algorithm, x.shape[2:], weight.shape[2:], stride, dilation)
    extra = _transposed_size(x, weight, pads, stride, dilation, output_padding, output_size)
    y = _conv_transpose_cf(x, weight, pads, stride, dilation, groups, extra)
    y = _add_bias(_channels_last(y, channel_last), bias, -1 if channel_last else 1)
    return y if squeeze is None else y.squeeze(squeeze)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL",
           name=None):
    """``x`` [N, C, L] (or NLC), ``weight`` [out, C // groups, k]."""
    return _conv("conv1d", 1, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW",
           name=None):
    """``x`` [N, C, H, W] (or NHWC), ``weight`` [out, C // groups, kh, kw]."""
    return _conv("conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCDHW",
           name=None):
    """``x`` [N, C, D, H, W] (or NDHWC), ``weight`` [out, C // groups, kd, kh, kw]."""
    return _conv("conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    """``weight`` [C, out // groups, k]; note ``groups`` comes before ``dilation`` here."""
    return _conv_transpose("conv1d_transpose", 1, x, weight, bias, stride, padding,
                           output_padding, dilation, groups, output_size, data_format)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format="NCHW", name=None):
    """``weight`` [C, out // groups, kh, kw]; ``output_size`` picks among the
    ``stride`` sizes that a conv of the same geometry maps back to the input's."""
    return _conv_transpose("conv2d_transpose", 2, x, weight, bias, stride, padding,
                           output_padding, dilation, groups, output_size, data_format)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    """``weight`` [C, out // groups, kd, kh, kw]; ``groups`` before ``dilation`` as in Paddle."""
    return _conv_transpose("conv3d_transpose", 3, x, weight, bias, stride, padding,
                           output_padding, dilation, groups, output_size, data_format)
