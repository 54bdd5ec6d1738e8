"""Conv1d and Conv2d: PyTorch's arguments, init and repr over one ``_ConvNd``.

Weight ``(out_channels, in_channels // groups, *kernel_size)`` and bias start as
PyTorch's (``kaiming_uniform_(a=sqrt(5))``, a fan-in uniform bias), each one in-place
init under no_grad (``_version`` 1). ``padding_mode`` 'reflect' / 'replicate' / 'circular'
pads with ``F.pad`` first and convolves without padding, as PyTorch does.
"""
from __future__ import annotations

import math

from .. import creation
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


def _tuple_of(n):
    """PyTorch's _single/_pair/_triple: an iterable as a tuple (a string too: its letters),
    anything else repeated ``n`` times."""
    from collections.abc import Iterable

    def parse(v):
        return tuple(v) if isinstance(v, Iterable) else (v,) * n
    return parse


_single, _pair, _triple = _tuple_of(1), _tuple_of(2), _tuple_of(3)


def conv_parameters(m, weight_shape, bias_size, bias, device, dtype) -> None:
    """A conv's (or a transposed conv's) weight and bias, then PyTorch's init. A size that is
    not all ints (``in_channels=3.0``, ``kernel_size=2.5``) is ``torch.empty``'s TypeError."""
    from .arg_parse import INTS, _check, _unpack_error

    ok, bad = _check(INTS, tuple(weight_shape))
    if not ok:
        raise TypeError(f"empty(): argument 'size' (position 1) must be tuple of ints, but found "
                        f"element of type {bad[1]} at pos {bad[0]}")
    if bad is not None:
        raise _unpack_error("empty", "size", bad)
    fk = {"device": device, "dtype": dtype}
    m.weight = Parameter(creation.empty(tuple(weight_shape), **fk))
    if bias:
        m.bias = Parameter(creation.empty(bias_size, **fk))
    else:
        m.register_parameter("bias", None)
    m.reset_parameters()


def reset_conv_parameters(m) -> None:
    """PyTorch 2.13's _ConvNd.reset_parameters (its transposes' too): kaiming_uniform_(a=sqrt(5)),
    a fan-in uniform bias (bound 0 when there is no fan-in)."""
    init.kaiming_uniform_(m.weight, a=math.sqrt(5))
    if m.bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(m.weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(m.bias, -bound, bound)


class _ConvNd(Module):
    """What Conv1d and Conv2d share, as PyTorch's ``_ConvNd``: the argument checks, the weight
    ``(out_channels, in_channels // groups, *kernel_size)`` and bias with PyTorch's init, the
    non-zero padding modes (``F.pad`` first, then a convolution without padding), the repr.
    A subclass names its tuple helper (``_ntuple``) and its functional (``_conv``)."""

    _ntuple = staticmethod(_single)
    _conv = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        tup = self._ntuple
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in tup(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            # (torch prints its set of modes in hash order, which changes from run to run)
            raise ValueError("padding_mode must be one of {'zeros', 'reflect', 'replicate', "
                             f"'circular'}}, but got padding_mode={padding_mode!r}")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = tup(kernel_size), tup(stride)
        self.padding = padding if isinstance(padding, str) else tup(padding)
        self.dilation, self.groups, self.padding_mode = tup(dilation), groups, padding_mode
        self.output_padding, self.transposed = tup(0), False
        conv_parameters(self, (out_channels, in_channels // groups, *self.kernel_size),
                        out_channels, bias, device, dtype)

    reset_parameters = reset_conv_parameters

    def _pad_amounts(self):
        """F.pad's amounts, last dim first: (left, right) per dim for 'same' or a number."""
        pads = []
        for i, k in enumerate(self.kernel_size):
            if self.padding == "valid":
                pads.append((0, 0))
            elif self.padding == "same":
                total = self.dilation[i] * (k - 1)
                pads.append((total // 2, total - total // 2))
            else:
                pads.append((self.padding[i], self.padding[i]))
        return tuple(x for lr in reversed(pads) for x in lr)

    def forward(self, input):
        conv = type(self)._conv
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._pad_amounts(), mode=self.padding_mode),
                        self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                    self.groups)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, " \
            f"stride={self.stride}"
        if self.padding != (0,) * len(self.padding):  # (torch's tests, None and strings too)
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """``(N, C_in, L) -> (N, C_out, L_out)``."""

    _ntuple = staticmethod(_single)
    _conv = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """``(N, C_in, H, W) -> (N, C_out, H_out, W_out)``."""

    _ntuple = staticmethod(_pair)
    _conv = staticmethod(F.conv2d)
