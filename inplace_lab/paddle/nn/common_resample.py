"""``paddle.nn`` layers that drop, pad or resize: Dropout, Dropout2D, Dropout3D,
AlphaDropout, FeatureAlphaDropout, Pad1D/2D/3D (and their Constant, Zero, Reflection,
Replication, Circular forms), Upsample, UpsamplingNearest2D, UpsamplingBilinear2D.
Each calls its ``paddle.nn.functional`` function; dropouts pass ``training=self.training``
so ``eval()`` turns them into the identity."""
from __future__ import annotations

from . import functional
from .layers import Layer

__all__ = ["Dropout", "Dropout2D", "Dropout3D", "AlphaDropout", "FeatureAlphaDropout",
           "Pad1D", "Pad2D", "Pad3D", "Upsample", "UpsamplingNearest2D",
           "UpsamplingBilinear2D"]


def _name_str(name):
    return f", name={name}" if name else ""


class Dropout(Layer):
    """Zero each element with probability ``p`` (along ``axis`` if given); in
    ``upscale_in_train`` mode the kept ones are scaled by 1 / (1 - p) while training."""

    def __init__(self, p=0.5, inplace=False, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        self.p, self.inplace, self.axis, self.mode, self.name = p, inplace, axis, mode, name

    def forward(self, input):
        return functional.dropout(input, p=self.p, axis=self.axis, training=self.training,
                                  inplace=self.inplace, mode=self.mode, name=self.name)

    def extra_repr(self) -> str:
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{_name_str(self.name)}, " \
               f"inplace={self.inplace}"


class _ChannelDropout(Layer):
    _fn, _default_format = "dropout2d", "NCHW"

    def __init__(self, p=0.5, data_format=None, name=None):
        super().__init__()
        self.p, self.name = p, name
        self.data_format = self._default_format if data_format is None else data_format

    def forward(self, input):
        return getattr(functional, self._fn)(input, p=self.p, training=self.training,
                                             data_format=self.data_format, name=self.name)

    def extra_repr(self) -> str:
        return f"p={self.p}, data_format={self.data_format}{_name_str(self.name)}"


class Dropout2D(_ChannelDropout):
    """Zero whole channels of an [N, C, H, W] input with probability ``p``."""

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__(p, data_format, name)


class Dropout3D(_ChannelDropout):
    """Zero whole channels of an [N, C, D, H, W] input with probability ``p``."""

    _fn, _default_format = "dropout3d", "NCDHW"

    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__(p, data_format, name)


class AlphaDropout(Layer):
    """Dropout that keeps SELU's mean and variance (dropped values become -alpha')."""

    _fn = "alpha_dropout"

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):
        return getattr(functional, self._fn)(input, p=self.p, training=self.training,
                                             name=self.name)

    def extra_repr(self) -> str:
        return f"p={self.p}{_name_str(self.name)}"


class FeatureAlphaDropout(AlphaDropout):
    _fn = "feature_alpha_dropout"


class _PadnD(Layer):
    _n_dim = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__()
        from ..tensor import Tensor

        self.padding = padding if isinstance(padding, (Tensor, list, tuple)) \
            else [padding] * (2 * self._n_dim)
        self._mode, self.value, self._data_format, self._name = mode, value, data_format, name

    def forward(self, x):
        return functional.pad(x, pad=self.padding, mode=self._mode, value=self.value,
                              data_format=self._data_format, name=self._name)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, mode={self._mode}, value={self.value}, " \
               f"data_format={self._data_format}{_name_str(self._name)}"


class Pad1D(_PadnD):
    """Pad the last axis of [N, C, L]: ``padding`` is [left, right] or one int."""

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadnD):
    """Pad H and W of [N, C, H, W]: [left, right, top, bottom] or one int."""

    _n_dim = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_PadnD):
    """Pad D, H and W of [N, C, D, H, W]: six numbers or one int."""

    _n_dim = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


def _pad_family(base, mode, formats):
    """``ZeroPad2D``, ``ReflectionPad1D`` ...: a PadND with its mode fixed (Constant ones
    take ``value`` second)."""
    if mode == "constant_value":
        def __init__(self, padding, value, data_format=formats, name=None):
            base.__init__(self, padding, "constant", value, data_format, name)
    else:
        def __init__(self, padding, data_format=formats, name=None):
            base.__init__(self, padding, mode, 0.0, data_format, name)
    return __init__


for _dim, _base, _fmt in ((1, Pad1D, "NCL"), (2, Pad2D, "NCHW"), (3, Pad3D, "NCDHW")):
    for _prefix, _mode in (("Constant", "constant_value"), ("Zero", "constant"),
                           ("Reflection", "reflect"), ("Replication", "replicate"),
                           ("Circular", "circular")):
        _cls_name = f"{_prefix}Pad{_dim}D"
        globals()[_cls_name] = type(_cls_name, (_base,), {
            "__init__": _pad_family(_base, _mode, _fmt), "__module__": __name__,
            "__doc__": f"``Pad{_dim}D`` with mode '{_mode.replace('_value', '')}'."})
        __all__.append(_cls_name)


class Upsample(Layer):
    """``functional.interpolate``; ``data_format`` None is read from the input's rank."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False,
                 align_mode=0, data_format=None, recompute_scale_factor=None, name=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, \
            data_format
        self.recompute_scale_factor, self.name = recompute_scale_factor, name

    def forward(self, x):
        if self.data_format is None:
            formats = {3: "NCW", 4: "NCHW", 5: "NCDHW"}
            if len(x.shape) not in formats:
                raise ValueError("The dimension of the input tensor should only be 3-D, 4-D or "
                                 f"5-D, but the received dimension is {len(x.shape)}.")
            self.data_format = formats[len(x.shape)]
        return functional.interpolate(
            x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
            align_corners=self.align_corners, align_mode=self.align_mode,
            data_format=self.data_format, recompute_scale_factor=self.recompute_scale_factor,
            name=self.name)

    def extra_repr(self) -> str:
        main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None \
            else f"size={self.size}"
        return f"{main}, mode={self.mode}, align_corners={self.align_corners}, " \
               f"align_mode={self.align_mode}, data_format={self.data_format}" \
               f"{_name_str(self.name)}"


class _Upsampling2D(Layer):
    _mode, _align = "nearest", False

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__()
        self.size = [size, size] if isinstance(size, int) else size
        self.scale_factor, self.data_format, self.name = scale_factor, data_format, name

    def forward(self, x):
        return functional.interpolate(x, size=self.size, scale_factor=self.scale_factor,
                                      mode=self._mode, align_corners=self._align,
                                      align_mode=0, data_format=self.data_format,
                                      name=self.name)

    def extra_repr(self) -> str:
        main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None \
            else f"size={self.size}"
        return f"{main}, data_format={self.data_format}{_name_str(self.name)}"


class UpsamplingNearest2D(_Upsampling2D):
    """Nearest-neighbour upsampling of [N, C, H, W]."""


class UpsamplingBilinear2D(_Upsampling2D):
    """Bilinear upsampling of [N, C, H, W] with ``align_corners=True``."""

    _mode, _align = "bilinear", True
