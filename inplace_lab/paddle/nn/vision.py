"""``paddle.nn`` vision layers: PixelShuffle, PixelUnshuffle, ChannelShuffle. Each checks
its settings in the constructor with Paddle 3.3.1's errors and calls its
``paddle.nn.functional`` function at forward time."""
from __future__ import annotations

from . import functional
from .layers import Layer

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


def _check_format(data_format):
    if data_format not in ["NCHW", "NHWC"]:
        raise ValueError(f"Data format should be 'NCHW' or 'NHWC'.But receive data format: "
                         f"{data_format}")


class _Shuffle(Layer):
    """Stores ``_<setting>``, ``_data_format``, ``_name``; the repr shows the setting, then
    a non-default layout and a name."""

    _fn = _setting = ""

    def _store(self, value, data_format, name):
        self.__dict__["_" + self._setting] = value
        self._data_format, self._name = data_format, name

    def forward(self, x):
        return getattr(functional, self._fn)(x, self.__dict__["_" + self._setting],
                                             self._data_format, name=self._name)

    def extra_repr(self) -> str:
        s = f"{self._setting}={self.__dict__['_' + self._setting]}"
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        if self._name is not None:
            s += f", name={self._name}"
        return s


class PixelShuffle(_Shuffle):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r]."""

    _fn, _setting = "pixel_shuffle", "upscale_factor"

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()  # (first, as Paddle: a refused layer still takes a name)
        if not isinstance(upscale_factor, int):
            raise TypeError("upscale factor must be int type")
        _check_format(data_format)
        self._store(upscale_factor, data_format, name)


class PixelUnshuffle(_Shuffle):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W]."""

    _fn, _setting = "pixel_unshuffle", "downscale_factor"

    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        if not isinstance(downscale_factor, int):
            raise TypeError("Downscale factor must be int type")
        if downscale_factor <= 0:
            raise ValueError("Downscale factor must be positive")
        _check_format(data_format)
        self._store(downscale_factor, data_format, name)


class ChannelShuffle(_Shuffle):
    """Channels [g0c0 g0c1 .. g1c0 ..] -> [g0c0 g1c0 .. g0c1 ..] for ``groups`` groups."""

    _fn, _setting = "channel_shuffle", "groups"

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        if not isinstance(groups, int):
            raise TypeError("groups must be int type")
        if groups <= 0:
            raise ValueError("groups must be positive")
        _check_format(data_format)
        self._store(groups, data_format, name)
