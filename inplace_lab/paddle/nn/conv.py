"""``paddle.nn`` conv layers: Conv1D, Conv2D, Conv3D and their Transpose forms.

Paddle's defaults: a conv weight ``[out, in // groups, *k]`` drawn from
Normal(0, sqrt(2 / (in_channels * prod(k)))) (Paddle counts all input channels, not
``in // groups``); a transposed conv weight ``[in, out // groups, *k]`` from XavierUniform;
zero biases. Non-zero ``padding_mode`` pads with ``functional.pad`` first, as Paddle does.
"""
from __future__ import annotations

import numpy as np

from . import functional
from .initializer import Normal
from .layers import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose"]


def _to_list(value, n, name):
    """Paddle's ``convert_to_list``: an int repeated n times, or a list of n ints."""
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise ValueError(f"The {name}'s length must be {n}. Received: {value}")
    return value


class _ConvNd(Layer):
    """What every conv layer shares: argument checks, weight and bias, repr."""

    def __init__(self, in_channels, out_channels, kernel_size, transposed, dims, stride=1,
                 padding=0, padding_mode="zeros", output_padding=0, dilation=1, groups=1,
                 weight_attr=None, bias_attr=None, data_format="NCHW", device=None,
                 dtype=None):
        super().__init__()
        assert weight_attr is not False, "weight_attr should not be False in Conv."
        self._param_attr, self._bias_attr = weight_attr, bias_attr
        self._groups, self._in_channels, self._out_channels = groups, in_channels, out_channels
        self._data_format, self._device = data_format, device
        self._dtype = "float32" if dtype is None else dtype
        modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in modes:
            raise ValueError(f"padding_mode must be one of {modes}, but got "
                             f"padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and not isinstance(padding, int):
            raise TypeError("when padding_mode in ['reflect', 'replicate', 'circular'], type "
                            "of padding must be int")
        formats = {"NHWC", "NCHW", "NDHWC", "NCDHW", "NLC", "NCL"}
        if data_format not in formats:
            raise ValueError(f"data_format must be one of {formats}, but got "
                             f"data_format='{data_format}'")
        channel_last = data_format in ("NHWC", "NDHWC", "NLC")
        self._channel_dim = len(data_format) - 1 if channel_last else 1
        self._stride = _to_list(stride, dims, "stride")
        self._dilation = _to_list(dilation, dims, "dilation")
        self._kernel_size = _to_list(kernel_size, dims, "kernel_size")
        self._padding, self._padding_mode = padding, padding_mode
        self.output_padding = output_padding
        if transposed:
            shape = [in_channels, out_channels // groups, *self._kernel_size]
            default = None
        else:
            if in_channels % groups != 0:
                raise ValueError("in_channels must be divisible by groups.")
            if padding_mode != "zeros":
                pairs = _to_list(padding, dims, "padding")
                self._reversed_padding_repeated_twice = [x for x in reversed(pairs)
                                                         for _ in range(2)]
            shape = [out_channels, in_channels // groups, *self._kernel_size]
            std = (2.0 / (np.prod(self._kernel_size) * in_channels)) ** 0.5
            default = Normal(0.0, std)
        self.weight = self.create_parameter(shape, weight_attr, self._dtype,
                                            default_initializer=default)
        self.bias = self.create_parameter([out_channels], bias_attr, self._dtype, True)

    def extra_repr(self) -> str:
        s = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * len(self._stride):
            s += f", stride={self._stride}"
        if self._padding != 0:
            s += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            s += f", padding_mode={self._padding_mode}"
        if self.output_padding != 0:
            s += f", output_padding={self.output_padding}"
        if self._dilation != [1] * len(self._dilation):
            s += f", dilation={self._dilation}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        return s + f", data_format={self._data_format}"

    def _conv(self, fn, x):
        padding = 0
        if self._padding_mode != "zeros":
            x = functional.pad(x, self._reversed_padding_repeated_twice,
                               mode=self._padding_mode, data_format=self._data_format)
        else:
            padding = self._padding
        return fn(x, self.weight, bias=self.bias, padding=padding, stride=self._stride,
                  dilation=self._dilation, groups=self._groups, data_format=self._data_format)

    def _conv_transpose(self, fn, x, output_size):
        output_padding = self.output_padding if output_size is None else 0
        return fn(x, self.weight, bias=self.bias, padding=self._padding,
                  output_padding=output_padding, stride=self._stride,
                  dilation=self._dilation, groups=self._groups, output_size=output_size,
                  data_format=self._data_format)


class Conv1D(_ConvNd):
    """Convolution over [N, C, L] (``data_format="NLC"`` for channels last)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, *, bias=True, padding_mode="zeros", device=None,
                 dtype=None, weight_attr=None, bias_attr=None, data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, False, 1, stride, padding,
                         padding_mode, 0, dilation, groups, weight_attr,
                         False if bias is False else bias_attr, data_format, device, dtype)

    def forward(self, x):
        return self._conv(functional.conv1d, x)


class Conv2D(_ConvNd):
    """Convolution over [N, C, H, W]; ``padding`` may be an int, a list, or "SAME"/"VALID"."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, *, bias=True, padding_mode="zeros", device=None,
                 dtype=None, weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 2, stride, padding,
                         padding_mode, 0, dilation, groups, weight_attr,
                         False if bias is False else bias_attr, data_format, device, dtype)

    def forward(self, x):
        return self._conv(functional.conv2d, x)


class Conv3D(_ConvNd):
    """Convolution over [N, C, D, H, W]."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, *, bias=True, padding_mode="zeros", device=None,
                 dtype=None, weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 3, stride, padding,
                         padding_mode, 0, dilation, groups, weight_attr,
                         False if bias is False else bias_attr, data_format, device, dtype)

    def forward(self, x):
        return self._conv(functional.conv3d, x)


class Conv1DTranspose(_ConvNd):
    """The gradient of Conv1D with respect to its input, as a layer; weight [in, out // g, k]."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, True, 1, stride, padding,
                         "zeros", output_padding, dilation, groups, weight_attr, bias_attr,
                         data_format)

    def forward(self, x, output_size=None):
        # (Paddle's Conv1DTranspose passes output_padding even with output_size)
        return functional.conv1d_transpose(
            x, self.weight, bias=self.bias, output_size=output_size,
            output_padding=self.output_padding, padding=self._padding, stride=self._stride,
            dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv2DTranspose(_ConvNd):
    """Transposed 2-D convolution; ``output_size`` in forward picks among the sizes that
    stride allows (then ``output_padding`` is ignored, as Paddle)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, 2, stride, padding,
                         "zeros", output_padding, dilation, groups, weight_attr, bias_attr,
                         data_format)

    def forward(self, x, output_size=None):
        return self._conv_transpose(functional.conv2d_transpose, x, output_size)


class Conv3DTranspose(_ConvNd):
    """Transposed 3-D convolution."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, 3, stride, padding,
                         "zeros", output_padding, dilation, groups, weight_attr, bias_attr,
                         data_format)

    def forward(self, x, output_size=None):
        return self._conv_transpose(functional.conv3d_transpose, x, output_size)
