"""Conv1d: ``(N, C_in, L) -> (N, C_out, L_out)``, PyTorch's arguments, init and repr.

Weight ``(out_channels, in_channels // groups, kernel_size)`` and bias start as
PyTorch's (``kaiming_uniform_(a=sqrt(5))``, a fan-in uniform bias), each one in-place
init under no_grad (``_version`` 1). ``padding_mode`` 'reflect' / 'replicate' pads
with ``F.pad`` first and convolves without padding, as PyTorch does.
"""
from __future__ import annotations

import math

from .. import creation
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


def _single(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


class Conv1d(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in _single(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate"):
            raise ValueError(f"padding_mode {padding_mode!r} is not supported here (zeros, "
                             "reflect, replicate)")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _single(kernel_size), _single(stride)
        self.padding = padding if isinstance(padding, str) else _single(padding)
        self.dilation, self.groups, self.padding_mode = _single(dilation), groups, padding_mode
        self.output_padding, self.transposed = (0,), False
        fk = {"device": device, "dtype": dtype}
        self.weight = Parameter(creation.empty(out_channels, in_channels // groups,
                                               *self.kernel_size, **fk))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, **fk))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _pad_amounts(self):
        """(left, right) for 'same' or a number, as F.pad wants them."""
        if self.padding == "valid":
            return (0, 0)
        if self.padding == "same":
            total = self.dilation[0] * (self.kernel_size[0] - 1)
            return (total // 2, total - total // 2)
        return (self.padding[0], self.padding[0])

    def forward(self, input):
        if self.padding_mode != "zeros":
            return F.conv1d(F.pad(input, self._pad_amounts(), mode=self.padding_mode),
                            self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, " \
            f"stride={self.stride}"
        if isinstance(self.padding, str) or self.padding != (0,):
            s += f", padding={self.padding}"
        if self.dilation != (1,):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s
