"""Pooling and padding modules: AvgPool1d/2d, MaxPool1d, AdaptiveAvgPool1d/2d,
AdaptiveMaxPool2d, ZeroPad1d/2d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d,
ReplicationPad1d/2d/3d.

None of them has parameters; each stores PyTorch's normalised arguments (``AvgPool1d``
keeps 1-tuples, ``ZeroPad2d(2)`` keeps ``(2, 2, 2, 2)``) so ``print(model)`` reads as in
PyTorch. Average pooling and padding save nothing for backward: an in-place op on their
input after the forward is harmless, unlike max pooling (which saves its input).
"""
from __future__ import annotations

from . import functional as F
from .conv import _single
from .module import Module


class _AvgPoolNd(Module):
    """AvgPool2d/3d's arguments and repr; ``_fname`` names the functional op."""
    _fname = ""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return getattr(F, self._fname)(input, self.kernel_size, self.stride, self.padding,
                                       self.ceil_mode, self.count_include_pad,
                                       self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    _fname = "avg_pool2d"


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _MaxPoolNd(Module):
    """torch's _MaxPoolNd: the arguments and repr; ``_fname`` names the functional op."""
    _fname = ""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return getattr(F, self._fname)(input, self.kernel_size, self.stride, self.padding,
                                       self.dilation, self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, " \
               f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"


class MaxPool1d(_MaxPoolNd):
    _fname = "max_pool1d"


class _AdaptivePool(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptivePool):
    """Any input size to ``output_size`` (``(1, 1)``: global average pooling)."""

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class _AdaptiveMaxPool(_AdaptivePool):
    """AdaptiveMaxPool1d/2d/3d: ``return_indices`` too; ``_fname`` names the functional op."""
    _fname = ""

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return getattr(F, self._fname)(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    _fname = "adaptive_max_pool2d"


# ---- padding ----------------------------------------------------------------------------------

def _ntuple(padding, n):
    """``F.pad`` order: an int pads every side; a tuple is (left, right, top, bottom ...)."""
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    padding = tuple(padding)
    if len(padding) != 2 * n:
        raise ValueError(f"expected padding of length {2 * n}, got {len(padding)}")
    return padding


class _ConstantPadNd(Module):
    _dims = 1

    def __init__(self, padding, value: float):
        super().__init__()
        self.padding, self.value = _ntuple(padding, self._dims), value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    _dims = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Zeros around the last two dims: ``ZeroPad2d((left, right, top, bottom))``."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _IndexPadNd(Module):
    _dims, _mode = 1, "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_IndexPadNd):
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_IndexPadNd):
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_IndexPadNd):
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_IndexPadNd):
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_IndexPadNd):
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_IndexPadNd):
    _dims, _mode = 3, "replicate"
