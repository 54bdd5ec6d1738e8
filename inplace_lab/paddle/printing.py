"""Paddle 3.3.1's tensor printing, ported from ``paddle/tensor/to_string.py`` (Apache-2.0).

    Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
           [1., 2., 3.])

Every element is formatted alone (8 decimals, or ``1.`` for integral floats), padded
to the widest one; a leading space is kept for the sign when any element is negative.
"""
from __future__ import annotations

import numpy as np

from inplace_lab import backend

PRECISION = 8
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
SCI_MODE = False


def _to_summary(a):
    if a.size == 0:
        return np.array([])
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:EDGEITEMS], a[-EDGEITEMS:]]) if a.shape[0] > 2 * EDGEITEMS else a
    rows = list(a[:EDGEITEMS]) + list(a[-EDGEITEMS:]) if a.shape[0] > 2 * EDGEITEMS else list(a)
    return np.stack([_to_summary(r) for r in rows])


def _format_item(v, max_width=0, signed=False):
    if v.dtype in (np.float16, np.float32, np.float64):
        if SCI_MODE:
            s = f"{v:.{PRECISION}e}"
        elif np.ceil(v) == v:
            s = f"{v:.0f}."
        else:
            s = f"{v:.{PRECISION}f}"
    elif v.dtype in (np.complex64, np.complex128):
        re, im = np.real(v), np.imag(v)
        fmt = "e" if SCI_MODE else "f"
        s = f"({re:.{PRECISION}{fmt}}{'+' if im >= 0 else ''}{im:.{PRECISION}{fmt}}j)"
    else:
        s = f"{v}"
    if max_width > len(s):
        if signed:
            return s.ljust(max_width) if v < 0 else " " + s.ljust(max_width - 1)
        return s.ljust(max_width)
    return s


def _max_width(a):
    width, signed = 0, False
    for v in list(a.flatten()):
        if not signed and v < 0:
            signed = True
        width = max(width, len(_format_item(v)))
    return width, signed


def _format(a, summary, indent, width, signed):
    if a.ndim == 0:
        return _format_item(a, width, signed)
    if a.ndim == 1:
        per_line = max(1, (LINEWIDTH - indent) // (width + 2))
        n = a.shape[0]
        if summary and n > 2 * EDGEITEMS:
            items = [_format_item(a[i], width, signed) for i in range(EDGEITEMS)] + ["..."] + \
                [_format_item(a[i], width, signed) for i in range(n - EDGEITEMS, n)]
        else:
            items = [_format_item(a[i], width, signed) for i in range(n)]
        lines = [items[i:i + per_line] for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(", ".join(ln) for ln in lines) + "]"
    n = a.shape[0]
    if summary and n > 2 * EDGEITEMS:
        rows = [_format(a[i], summary, indent + 1, width, signed) for i in range(EDGEITEMS)] + \
            ["..."] + [_format(a[i], summary, indent + 1, width, signed)
                       for i in range(n - EDGEITEMS, n)]
    else:
        rows = [_format(a[i], summary, indent + 1, width, signed) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def format_data(t, indent: int) -> str:
    a = backend.to_numpy(t._a)
    summary = a.size > THRESHOLD
    width, signed = _max_width(_to_summary(a))
    return _format(a, summary, indent, width, signed)


def paddle_repr(t, prefix: str = "Tensor") -> str:
    indent = len(prefix) + 1
    place = "Place(cpu)" if t.device.type == "cpu" else f"Place(gpu:{t.device.index or 0})"
    return (f"{prefix}(shape={list(t._shape)}, dtype={t._dtype.name}, place={place}, "
            f"stop_gradient={not t._requires_grad},\n{' ' * indent}{format_data(t, indent)})")
