"""``paddle.nn`` pooling layers. Each stores its settings under Paddle 3.3.1's attribute
names (``ksize`` for the 2-D/3-D kernels, ``kernel_size`` for the 1-D ones, ``_output_size``
for some adaptive ones) because ``extra_repr`` formats ``self.__dict__`` with them, and
calls its ``paddle.nn.functional`` function at forward time.

The lowercase aliases Paddle exports (``AdaptiveAvgPool2d``, ``MaxUnpool2d``, ``LPPool1d``
...) are the same classes, as in Paddle; there is no ``MaxPool2d``/``AvgPool2d`` alias.
"""
from __future__ import annotations

import warnings

from . import functional
from .activation import param_alias
from .layers import Layer

__all__ = ["AvgPool1D", "AvgPool2D", "AvgPool3D", "MaxPool1D", "MaxPool2D", "MaxPool3D",
           "AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D",
           "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "LPPool1D", "LPPool2D", "MaxUnPool1D",
           "MaxUnPool2D", "MaxUnPool3D", "FractionalMaxPool2D", "FractionalMaxPool3D",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d", "LPPool1d", "LPPool2d"]

_WINDOW_REPR = "kernel_size={kernel_size}, stride={stride}, padding={padding}"
_KSIZE_REPR = "kernel_size={ksize}, stride={stride}, padding={padding}"


# ---------------------------------------------------------------- fixed windows
class AvgPool1D(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.name = ceil_mode, exclusive, name

    def forward(self, x):
        return functional.avg_pool1d(x, self.kernel_size, self.stride, self.padding,
                                     self.exclusive, self.ceil_mode, name=self.name)

    def extra_repr(self) -> str:
        return _WINDOW_REPR.format(**self.__dict__)


class MaxPool1D(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 name=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.return_mask, self.name = ceil_mode, return_mask, name

    def forward(self, input):
        return functional.max_pool1d(input, self.kernel_size, self.stride, self.padding,
                                     self.return_mask, self.ceil_mode, name=self.name)

    def extra_repr(self) -> str:
        return _WINDOW_REPR.format(**self.__dict__)


class _AvgPoolND(Layer):
    _fn, _layout = "", ""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format, self.name = data_format or self._layout, name

    def forward(self, x):
        return getattr(functional, self._fn)(
            x, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
            ceil_mode=self.ceil_mode, exclusive=self.exclusive, divisor_override=self.divisor,
            data_format=self.data_format, name=self.name)

    def extra_repr(self) -> str:
        return _KSIZE_REPR.format(**self.__dict__)


class AvgPool2D(_AvgPoolND):
    _fn, _layout = "avg_pool2d", "NCHW"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format, name)


class AvgPool3D(_AvgPoolND):
    _fn, _layout = "avg_pool3d", "NCDHW"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format, name)


class _MaxPoolND(Layer):
    _fn = ""

    def __init__(self, kernel_size, stride, padding, return_mask, ceil_mode, data_format,
                 name):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode = return_mask, ceil_mode
        self.data_format, self.name = data_format, name

    def forward(self, x):
        return getattr(functional, self._fn)(
            x, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
            return_mask=self.return_mask, ceil_mode=self.ceil_mode,
            data_format=self.data_format, name=self.name)

    def extra_repr(self) -> str:
        return _KSIZE_REPR.format(**self.__dict__)


class MaxPool2D(_MaxPoolND):
    _fn = "max_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format, name)


class MaxPool3D(_MaxPoolND):
    _fn = "max_pool3d"

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format, name)


# ---------------------------------------------------------------- Lp pooling
def _lp_ceil_mode(init):
    """Paddle's ``lp_pool_layer_decorator``: a bool in the 4th positional place (where
    ``padding`` goes) is read as ``ceil_mode``, with a warning."""

    def wrapper(*args, **kwargs):
        if len(args) == 5 and isinstance(args[4], bool):
            warnings.warn("The 4th positional argument in '__init__' method is a boolean "
                          "value, which is being interpreted as 'ceil_mode'.", Warning,
                          stacklevel=2)
            kwargs["ceil_mode"] = args[4]
            args = args[:4]
        return init(*args, **kwargs)

    wrapper.__wrapped__ = init
    return wrapper


class LPPool1D(Layer):
    """``(sum x^p)^(1/p)`` over each window (``norm_type`` p)."""

    @_lp_ceil_mode
    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format="NCL", name=None):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride = float(norm_type), kernel_size, stride
        self.padding, self.ceil_mode = padding, ceil_mode
        self.data_format, self.name = data_format, name

    @param_alias("x", "input")
    def forward(self, x):
        return functional.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride,
                                    self.padding, self.ceil_mode, self.data_format,
                                    name=self.name)

    def extra_repr(self) -> str:
        return ("norm_type={norm_type}, " + _WINDOW_REPR).format(**self.__dict__)


class LPPool2D(Layer):
    """As LPPool1D; here (only) a missing ``stride`` is stored as the kernel size."""

    @_lp_ceil_mode
    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__()
        self.norm_type, self.ksize = float(norm_type), kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.ceil_mode = padding, ceil_mode
        self.data_format, self.name = data_format, name

    @param_alias("x", "input")
    def forward(self, x):
        return functional.lp_pool2d(x, norm_type=self.norm_type, kernel_size=self.ksize,
                                    stride=self.stride, padding=self.padding,
                                    ceil_mode=self.ceil_mode, data_format=self.data_format,
                                    name=self.name)

    def extra_repr(self) -> str:
        return ("norm_type={norm_type}, " + _KSIZE_REPR).format(**self.__dict__)


# ---------------------------------------------------------------- adaptive windows
class AdaptiveAvgPool1D(Layer):
    def __init__(self, output_size, name=None):
        super().__init__()
        self.output_size, self.name = output_size, name

    def forward(self, input):
        return functional.adaptive_avg_pool1d(input, self.output_size, name=self.name)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _AdaptiveAvgPoolND(Layer):
    _fn = ""

    def __init__(self, output_size, data_format, name):
        super().__init__()
        self._output_size, self._data_format, self._name = output_size, data_format, name

    @param_alias("x", "input")
    def forward(self, x):
        return getattr(functional, self._fn)(x, output_size=self._output_size,
                                             data_format=self._data_format, name=self._name)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}"

    @property
    def output_size(self):
        return self._output_size

    @output_size.setter
    def output_size(self, value):
        self._output_size = value


class AdaptiveAvgPool2D(_AdaptiveAvgPoolND):
    _fn = "adaptive_avg_pool2d"

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size, data_format, name)


class AdaptiveAvgPool3D(_AdaptiveAvgPoolND):
    _fn = "adaptive_avg_pool3d"

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size, data_format, name)


class AdaptiveMaxPool1D(Layer):
    @param_alias("return_mask", "return_indices")
    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self.output_size, self.return_mask, self.name = output_size, return_mask, name

    def forward(self, input):
        return functional.adaptive_max_pool1d(input, self.output_size, self.return_mask,
                                              name=self.name)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}, return_mask={self.return_mask}"

    @property
    def return_indices(self):
        return self.return_mask

    @return_indices.setter
    def return_indices(self, value):
        self.return_mask = value


class _AdaptiveMaxPoolND(Layer):
    _fn = ""

    @param_alias("return_mask", "return_indices")
    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self._output_size, self._return_mask, self._name = output_size, return_mask, name

    @param_alias("x", "input")
    def forward(self, x):
        return getattr(functional, self._fn)(x, output_size=self._output_size,
                                             return_mask=self._return_mask, name=self._name)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}, return_mask={self._return_mask}"

    @property
    def return_indices(self):
        return self._return_mask

    @return_indices.setter
    def return_indices(self, value):
        self._return_mask = value


class AdaptiveMaxPool2D(_AdaptiveMaxPoolND):
    _fn = "adaptive_max_pool2d"


class AdaptiveMaxPool3D(_AdaptiveMaxPoolND):
    _fn = "adaptive_max_pool3d"


# ---------------------------------------------------------------- unpooling, fractional
class _MaxUnPoolND(Layer):
    """Scatters each pooled value back to the position its mask (``indices``) names."""

    _fn = ""

    def __init__(self, kernel_size, stride, padding, data_format, output_size, name):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format, self.output_size, self.name = data_format, output_size, name

    @param_alias("x", "input")
    def forward(self, x, indices, output_size=None):
        if output_size:
            warnings.warn("output_size in forward overrides output_size in __init__. The "
                          "output_size parameter in forward has higher priority.",
                          stacklevel=2)
        size = output_size if output_size else self.output_size
        return getattr(functional, self._fn)(
            x, indices, kernel_size=self.ksize, stride=self.stride, padding=self.padding,
            data_format=self.data_format, output_size=size, name=self.name)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPoolND):
    _fn = "max_unpool1d"

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None,
                 name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool2D(_MaxUnPoolND):
    _fn = "max_unpool2d"

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool3D(_MaxUnPoolND):
    _fn = "max_unpool3d"

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class _FractionalMaxPoolND(Layer):
    """Pseudo-random windows drawn from ``random_u`` (Paddle draws one when it is None)."""

    _fn = ""

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False,
                 name=None):
        super().__init__()
        self._output_size, self._kernel_size, self._random_u = output_size, kernel_size, \
            random_u
        self._return_mask, self._name = return_mask, name

    def forward(self, x):
        return getattr(functional, self._fn)(
            x, output_size=self._output_size, kernel_size=self._kernel_size,
            random_u=self._random_u, return_mask=self._return_mask, name=self._name)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class FractionalMaxPool2D(_FractionalMaxPoolND):
    _fn = "fractional_max_pool2d"


class FractionalMaxPool3D(_FractionalMaxPoolND):
    _fn = "fractional_max_pool3d"


# Paddle's lowercase aliases: the same classes.
AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d = \
    AdaptiveAvgPool1D, AdaptiveAvgPool2D, AdaptiveAvgPool3D
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = \
    AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D
MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = MaxUnPool1D, MaxUnPool2D, MaxUnPool3D
LPPool1d, LPPool2d = LPPool1D, LPPool2D
