"""PyTorch's conversion of a Python number written into a tensor (c10's ``checked_convert``).

``fill_``, ``full``, ``masked_fill``, ``index_fill``, ``scatter`` with a value and ``x[i] = v``
convert the number to the tensor's dtype and refuse one that does not fit it (arithmetic such
as ``x + 300`` does not: it computes in the promoted type and wraps when it writes):

>>> import inplace_lab as il
>>> il.zeros(2, dtype=il.uint8).fill_(-1).tolist()   # negative values wrap for unsigned types
[255, 255]
"""
from __future__ import annotations

import numpy as np

from . import dtypes


_CT = {"Float": "float", "Double": "double", "Half": "c10::Half", "Long": "int64_t", "Int": "int",
       "Short": "int16_t", "Char": "int8_t", "Byte": "uint8_t", "Bool": "bool",
       "ComplexFloat": "c10::complex<float>", "ComplexDouble": "c10::complex<double>"}


def _value_fits(v, dt) -> bool:
    """c10's ``overflows<To, From>`` for a Python number ``v`` converted to numpy dtype ``dt``."""
    if dt.kind == "b":
        return True
    if isinstance(v, complex):
        if dt.kind != "c" and v.imag != 0:
            return False
        parts = (v.real, v.imag) if dt.kind == "c" else (v.real,)
    else:
        parts = (v,)
    for p in parts:
        if dt.kind in "iu":
            info = np.iinfo(dt)
            if isinstance(p, float) and (p != p or p < (info.min if dt.kind == "i" else 0)):
                return False
            lo = info.min if dt.kind == "i" or isinstance(p, float) else -info.max
            if p < lo or p > info.max:
                return False
        elif p == p and abs(p) != float("inf"):  # NaN and inf convert; finite values must fit
            real = dt if dt.kind == "f" else np.float32 if dt == np.complex64 else np.float64
            if abs(p) > np.finfo(real).max:
                return False
    return True


I64_MIN, U64_END = -2 ** 63, 2 ** 64  # a Python int PyTorch takes as a Scalar: int64 or uint64


def int_overflow(v) -> OverflowError:
    """PyTorch's error for a Python int outside int64/uint64 (``not I64_MIN <= v < U64_END``)."""
    return OverflowError("can't convert negative int to unsigned" if v < 0 else
                         "int too big to convert")


def check_value(v, a):
    """A Python number written into ``a`` (an array, or a numpy dtype) must fit its dtype."""
    if isinstance(v, bool) or not isinstance(v, (int, float, complex)):
        return
    if isinstance(v, int) and not I64_MIN <= v < U64_END:
        raise int_overflow(v)
    dt = a if isinstance(a, np.dtype) else a.dtype
    if not _value_fits(v, dt):
        name = dtypes.from_numpy_dtype(dt).torch_name
        raise RuntimeError(f"value cannot be converted to type {_CT.get(name, name)} "
                           "without overflow")


def as_value(xp, v, dt):
    """The number PyTorch writes: ``v`` converted to the target dtype (ints truncate)."""
    if isinstance(v, complex) and dt.kind != "c":
        v = v.real
    with np.errstate(over="ignore", invalid="ignore"):  # (checked before: inf/wrap on purpose)
        return xp.asarray(v).astype(dt)
