"""``paddle.nn.functional`` normalisations under Paddle's names and defaults.

The kernels are the core's (``_batch_norm``, ``_layer_norm``, ``_group_norm``); this file
translates Paddle's conventions, which differ from PyTorch's in ways worth knowing:

- ``batch_norm``'s ``momentum=0.9`` is the weight of the OLD running value
  (``running = momentum * running + (1 - momentum) * batch``), and the running variance takes
  the *biased* batch variance (PyTorch: the unbiased one). Like PyTorch, the running
  statistics are written out of band: their ``inplace_version`` does not move.
- ``use_global_stats`` decides which statistics normalise (default: the running ones when
  not training); the batch's statistics are always the ones that update the running ones.
- ``layer_norm``'s weight and bias are 1-D (``prod(normalized_shape)`` long).
- ``instance_norm`` is group norm with one group per channel.
"""
from __future__ import annotations

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "local_response_norm",
           "normalize"]


def _op(name, *args, **kwargs):
    from inplace_lab.nn.functional import _op as core_op

    return core_op(name, *args, **kwargs)


def _to_channels_first(x, channel_last):
    if not channel_last or x.ndim < 3:
        return x, None
    perm = [0, x.ndim - 1] + list(range(1, x.ndim - 1))
    back = [0] + list(range(2, x.ndim)) + [1]
    return x.transpose(perm), back


def _back(y, back):
    return y if back is None else y.transpose(back)


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-05, data_format="NCHW", use_global_stats=None,
               name=None):
    """Normalise each channel over the batch (and the spatial dims)."""
    assert len(x.shape) >= 2, "input dim must be larger than 1"
    formats = ["NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"]
    if data_format not in formats:
        raise ValueError("data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', "
                         f"'NHWC', 'NDHWC' but receive {data_format}")
    channel_last = data_format[1] != "C"
    channels = x.shape[-1 if channel_last else 1]
    if running_mean.shape[0] != channels:
        raise ValueError("(InvalidArgument) The first dimension of mean must equal to the number "
                         f"of Channels, which is [{channels}]. But received: the first dimension "
                         f"of mean is [{running_mean.shape[0]}], the dimensions of mean is "
                         f"{list(running_mean.shape)}.")
    for what, t in (("Scale", weight), ("Bias", bias)):
        if t is not None and t.shape[0] != channels:
            raise ValueError(f"(InvalidArgument) ShapeError: the shape of {what.lower()} must "
                             f"equal to [{channels}]But received: the shape of {what.lower()} is "
                             f"{list(t.shape)}")
    use_global = (not training) if use_global_stats is None else use_global_stats
    xc, back = _to_channels_first(x, channel_last)
    if use_global:
        y = _op("_batch_norm", xc, weight, bias, running_mean, running_var, training=False,
                eps=epsilon)
        return _back(y, back)
    y = _op("_batch_norm", xc, weight, bias, None, None, training=True, eps=epsilon,
            copy_one=True)
    if xc.numel() == channels:  # one value per channel: Paddle's kernel copies x through
        return _back(y, back)    # and leaves the running statistics as they were
    from inplace_lab.autograd import no_grad

    axes = [0] + list(range(2, xc.ndim))
    with no_grad():  # out of band, as Paddle's kernel: no inplace_version bump
        d = xc.detach()
        mean = d.mean(axes)
        var = ((d - mean.reshape([1, -1] + [1] * (d.ndim - 2))) ** 2).mean(axes)
        running_mean.data.copy_(running_mean * momentum + mean * (1 - momentum))
        running_var.data.copy_(running_var * momentum + var * (1 - momentum))
    return _back(y, back)


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalise over the trailing ``normalized_shape`` dims of each sample; Paddle's weight
    and bias are 1-D, of the flattened ``normalized_shape``'s size."""
    shape = list(x.shape)
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    elif isinstance(normalized_shape, tuple):
        normalized_shape = list(normalized_shape)
    elif not isinstance(normalized_shape, list):
        raise ValueError("`normalized_shape` should be int, list of ints or tuple of ints.")
    begin = len(shape) - len(normalized_shape)
    if begin < 0 or shape[begin:] != list(normalized_shape):
        s = str(list(normalized_shape))
        raise ValueError(f"Given normalized_shape is {s}, expected input with shape [*, {s[1:]}, "
                         f"but got input shape {shape}")
    size = 1
    for n in normalized_shape:
        size *= n
    for what, t in (("Scale", weight), ("Bias", bias)):
        if t is not None and t.ndim != 1:
            raise ValueError(f"(InvalidArgument) The dimensions of Input({what}) must be 1, but "
                             f"received dimensions of Input({what}) is [{t.ndim}]")
        if t is not None and t.shape[0] != size:
            raise ValueError(f"(InvalidArgument) The first dimension value of Input({what}) must "
                             "equal to be the second dimension value of the flattened 2D matrix "
                             f"of Input(X), But received the first dimension value of "
                             f"Input({what}) is [{t.shape[0]}], the second dimension value of "
                             f"the flattened 2D matrix of  Input({what}) is [{size}].")
    weight = weight.reshape(normalized_shape) if weight is not None else None
    bias = bias.reshape(normalized_shape) if bias is not None else None
    return _op("_layer_norm", x, weight, bias, normalized_shape=tuple(normalized_shape),
               eps=epsilon)


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
               name=None, **kwargs):
    """Paddle 3.3.1 also takes PyTorch's order ``(input, num_groups, weight, bias, eps)``:
    a third positional argument that is not a float is the weight."""
    if "input" in kwargs:
        x = kwargs.pop("input")
    if "eps" in kwargs:
        epsilon = kwargs.pop("eps")
    if epsilon is not None and not isinstance(epsilon, float) and not isinstance(epsilon, int):
        weight, bias, epsilon = epsilon, weight, (bias if isinstance(bias, float) else 1e-05)
    if data_format not in ["NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"]:
        raise ValueError("unsupported data layout:" + data_format)
    channel_last = data_format[1] != "C"
    channels = x.shape[-1 if channel_last else 1]
    if channels % num_groups:
        raise ValueError("(InvalidArgument) Expected number of channels in input to be divisible "
                         f"by num_groups, but got input channel is {channels} and num_groups is "
                         f"{num_groups}")
    layout = "NHWC" if channel_last else "NCHW"
    for what, t in (("Scale", weight), ("Bias", bias)):
        if t is not None and t.shape[0] != channels:
            raise ValueError(f"(InvalidArgument) The Input({what})'s first dimension size of "
                             "Op(group_norm) must be equal to the number of channels. But "
                             f"received: the Input({what})'s first dimension size is "
                             f"[{t.shape[0]}], the channels is [{channels}], the "
                             f"Attr(data_layout) is [{layout}]. The error may come from wrong "
                             "data_layout setting.")
    xc, back = _to_channels_first(x, channel_last)
    return _back(_op("_group_norm", xc, weight, bias, num_groups=num_groups, eps=epsilon), back)


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW",
                  name=None):
    """Each (sample, channel) plane normalised by its own statistics; Paddle's dygraph kernel
    ignores ``running_mean``/``running_var``/``use_input_stats``/``momentum`` (as here)."""
    channels = x.shape[1]
    for t in (weight, bias):
        if t is not None and list(t.shape) != [channels]:
            raise ValueError("(InvalidArgument) ShapeError: the shape of scale must equal to "
                             f"[{channels}]But received: the shape of scale is {list(t.shape)}")
    return _op("_group_norm", x, weight, bias, num_groups=channels, eps=eps)


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """``x / (k + alpha * mean of x**2 over `size` neighbouring channels) ** beta``; the
    window is zero-padded ``size // 2`` before and ``(size - 1) // 2`` after, as in Paddle."""
    if data_format not in ["NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"]:
        raise ValueError("data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, NDHWC], "
                         f"but got {data_format}")
    if x.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input, but got {x.ndim} "
                         "dimensions")
    for i, sz in enumerate(x.shape):
        if not sz > 0 and i > 0:
            raise ValueError("Expected every dim's size to be larger than 0, but the size of the "
                             f"{i}-th dim is {sz}")
    from inplace_lab.nn import functional as core

    xc, back = _to_channels_first(x, data_format[-1] == "C")
    sq = xc * xc
    c = xc.shape[1]
    pad = [0, 0] * (xc.ndim - 2) + [size // 2, (size - 1) // 2]
    padded = core.pad(sq, tuple(pad))
    acc = None
    for i in range(size):
        part = padded[:, i:i + c]
        acc = part if acc is None else acc + part
    div = (acc * (alpha / size) + k) ** beta
    return _back(xc / div, back)


def normalize(x, p=2, axis=1, epsilon=1e-12, out=None, name=None):
    """``x / max(||x||_p along axis, epsilon)``."""
    from ... import paddle as pd

    if not -x.ndim <= axis < max(x.ndim, 1):
        raise ValueError("(InvalidArgument) Attr(axis) value should be in range [-R, R-1], R is "
                         f"the rank of Input(X). But received axis: {axis}, R: {x.ndim}. Current "
                         f"Input(X)'s shape is={list(x.shape)}.")
    norm = pd.norm(x, p=float(p), axis=axis, keepdim=True)
    return x / pd.maximum(norm, pd.full([1], epsilon, dtype=x.dtype))
