"""Tensor printing in PyTorch's format (``tensor([1., 2.], requires_grad=True)``).

A port of the rules in PyTorch's ``_tensor_str.py``: one formatter for all
elements (integer-valued floats print as ``1.``, wide ranges switch to
scientific notation), 80-column wrapping, and summarisation over 1000 elements.
"""
from __future__ import annotations

import math

import numpy as np

from . import backend, dtypes

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    def __init__(self, values: np.ndarray, is_float: bool):
        self.floating = is_float
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        vals = values.ravel()
        if not is_float:
            self.width = max((len(str(v)) for v in vals.tolist()), default=1)
            return
        finite = vals[np.isfinite(vals)]
        if finite.size == 0:
            self.width = max((len(self._fmt_nonfinite(v)) for v in vals.tolist()), default=1)
            return
        absf = np.abs(finite.astype(np.float64))
        self.int_mode = bool(np.all(np.ceil(finite) == finite))
        nz = absf[absf != 0]
        if self.int_mode:
            if nz.size and (nz.max() / nz.min() > 1000.0 or nz.max() > 1e8):
                self.sci_mode = True
        elif nz.size:
            if nz.max() / nz.min() > 1000.0 or nz.max() > 1e8 or nz.min() < 1e-4:
                self.sci_mode = True
        self.width = max((len(self.format(v)) for v in vals.tolist()), default=1)

    @staticmethod
    def _fmt_nonfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")

    def format(self, v) -> str:
        if not self.floating:
            s = str(v)
        elif not math.isfinite(v):
            s = self._fmt_nonfinite(v)
        elif self.sci_mode:
            s = f"{v:.{PRECISION}e}"
        elif self.int_mode:
            s = f"{v:.0f}."
        else:
            s = f"{v:.{PRECISION}f}"
        return s.rjust(self.width)


def _summarized(a: np.ndarray) -> np.ndarray:
    """The elements that will be printed (edges only when summarising)."""
    if a.ndim == 0:
        return a.reshape(1)
    if a.shape[0] > 2 * EDGEITEMS:
        parts = [a[:EDGEITEMS], a[-EDGEITEMS:]]
    else:
        parts = [a]
    return np.concatenate([_summarized(p_i).ravel() for p in parts for p_i in p]) if a.ndim > 1 \
        else np.concatenate([p.ravel() for p in parts])


def _str_rec(a, fmt, indent, summarize):
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        if summarize and a.shape[0] > 2 * EDGEITEMS:
            items = [fmt.format(v) for v in a[:EDGEITEMS].tolist()] + ["..."] + \
                [fmt.format(v) for v in a[-EDGEITEMS:].tolist()]
        else:
            items = [fmt.format(v) for v in a.tolist()]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * indent).join(lines) + "]"
    n = a.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = [_str_rec(a[i], fmt, indent + 1, summarize) for i in range(EDGEITEMS)] + ["..."] + \
            [_str_rec(a[i], fmt, indent + 1, summarize) for i in range(n - EDGEITEMS, n)]
    else:
        rows = [_str_rec(a[i], fmt, indent + 1, summarize) for i in range(n)]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def format_values(t, prefix_len: int) -> str:
    a = backend.to_numpy(t._a)
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    summarize = a.size > THRESHOLD
    if t.dtype.is_complex:
        return str(a.tolist())
    fmt = _Formatter(_summarized(a) if summarize else a, t.dtype.is_floating_point)
    if t.dtype is dtypes.bool_:
        fmt = _Formatter(a, False)
    return _str_rec(a, fmt, prefix_len, summarize)


_paddle_repr = None  # set by the paddle facade


def tensor_repr(t) -> str:
    if t._policy in ("paddle", "paddle-legacy") and _paddle_repr is not None:
        return _paddle_repr(t)
    prefix = "tensor("
    suffixes = []
    if t.numel() == 0 and t.shape != (0,):
        body = "[]"
        suffixes.append(f"size={tuple(t.shape)}")
    else:
        body = format_values(t, len(prefix))
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    default = {dtypes.get_default_dtype(), dtypes.int64, dtypes.bool_}
    if t.dtype not in default:
        suffixes.append(f"dtype=torch.{t.dtype.name}")
    gf = t._grad_fn
    if gf is not None and t._requires_grad:
        suffixes.append(f"grad_fn=<{gf.name().split('::')[-1]}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
