"""``torch.finfo`` / ``torch.iinfo``, ``torch.is_tensor`` / ``torch.is_floating_point``.

The numbers come from numpy's ``finfo``/``iinfo`` of the dtype's array type; the repr
is PyTorch's (``%g`` of each field). ``finfo()`` is the default dtype's; a complex dtype
answers for its real part, as in PyTorch.
"""
from __future__ import annotations

import numpy as np

from inplace_lab import dtypes as _dtypes
from inplace_lab.tensor import Tensor


def _core(d):
    return _dtypes.from_any(d) if d is not None else _dtypes.get_default_dtype()


class finfo:
    """Machine limits of a floating dtype: ``eps``, ``max``, ``min``, ``tiny``, ``resolution``."""

    def __init__(self, type=None):
        d = _core(type)
        if not (d.is_floating_point or d.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        info = np.finfo(d.np)
        self.bits = int(info.bits)
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # PyTorch's, in double (numpy's is rounded)
        self.dtype = np.dtype(info.dtype).name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: ``bits``, ``min``, ``max``."""

    def __init__(self, type):
        d = _core(type)
        if d.is_floating_point or d.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        if d.np == np.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(d.np)
        self.bits, self.min, self.max = int(info.bits), int(info.min), int(info.max)
        self.dtype = d.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def is_tensor(obj) -> bool:
    """True for a tensor (PyTorch's ``isinstance(obj, torch.Tensor)``)."""
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    """True when ``input``'s dtype is a floating one."""
    if not isinstance(input, Tensor):
        raise TypeError("is_floating_point(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input._dtype.is_floating_point
