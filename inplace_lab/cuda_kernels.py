"""Vectorised CUDA kernels for the commonest GPU ops, behind ``backend`` (cupy only).

cupy's ufuncs load and store one element per thread: on an H200, ``cupy.add(a, b, out=a)``
of 10^7 float32 takes 50 us where torch CUDA's add_ takes 31 us (2.4 against 3.9 TB/s;
benchmarks/ANALYSIS.md, round 12). A kernel that moves 16 bytes per load, as ATen's
vectorised elementwise kernels do, takes 31 us. ``binary`` is that kernel for the four
arithmetic ufuncs on C-contiguous, 16-byte aligned float32/float64 operands of one shape
(or one operand and a Python number), the shapes every training step is made of.

The binary answers are cupy's, bit for bit: each element is the same one IEEE operation on the
same two values (a Python number is rounded to the array's dtype first, as cupy's ufunc
does with ``dtype=``); only the memory access is wider. Anything else returns None and the
caller runs the ufunc.

Measured on the H200 (scripts/gpu_overhead.py): 10^7 float32 add_ 30.9 us against cupy's
50.8 (torch 31.1); below about 10^6 elements the launch dominates and cupy's ufunc is as
fast, so smaller arrays keep it. A full-sum kernel of the same kind (two launches) measured
no faster than cupy's sum, and was not kept.
"""
from __future__ import annotations

import numpy as np

# Below this many elements cupy's ufunc launch is as fast or faster (per-call microseconds for
# both choices: scripts/gpu_overhead.py, benchmarks/ANALYSIS.md round 12).
MIN_ELEMENTS = 1 << 20

_OPS = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/"}
_TYPES = {np.dtype("float32"): ("float", "float4", 4), np.dtype("float64"): ("double", "double2", 2)}
_LANES = {4: ("x", "y", "z", "w"), 2: ("x", "y")}
_BLOCK = 256

_SOURCE = r"""
extern "C" __global__ void {name}(const {T}* a, const {T}* b, {T} s, {T}* o, long long n) {{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long nv = n / {W};
    if (i < nv) {{
        {V} x = reinterpret_cast<const {V}*>(a)[i];{load_b}
        {V} z;
{lanes}
        reinterpret_cast<{V}*>(o)[i] = z;
    }}
    long long t = nv * {W} + i;  /* the last n % W elements, one per thread */
    if (i < {W} && t < n) {{
        o[t] = {tail};
    }}
}}
"""

_cupy = None
_ufuncs: dict = {}  # cupy ufunc -> name in _OPS
_kernels: dict = {}  # (op, dtype name, form) -> cupy RawKernel


def enable(cupy) -> None:
    """Called by ``backend`` when cupy imports."""
    global _cupy
    _cupy = cupy
    _ufuncs.update({getattr(cupy, name): name for name in _OPS})


def _kernel(op, npd, form):
    key = (op, npd, form)
    k = _kernels.get(key)
    if k is None:
        T, V, W = _TYPES[npd]
        sym = _OPS[op]
        a_, b_ = ("x.{c}", "y.{c}") if form == "tt" else ("x.{c}", "s") if form == "ts" \
            else ("s", "x.{c}")
        lanes = "\n".join(f"        z.{c} = {a_.format(c=c)} {sym} {b_.format(c=c)};"
                          for c in _LANES[W])
        ta, tb = ("a[t]", "b[t]") if form == "tt" else ("a[t]", "s") if form == "ts" \
            else ("s", "a[t]")
        name = f"il_{op}_{npd.name}_{form}"
        src = _SOURCE.format(name=name, T=T, V=V, W=W, lanes=lanes, tail=f"{ta} {sym} {tb}",
                             load_b=f"\n        {V} y = reinterpret_cast<const {V}*>(b)[i];"
                             if form == "tt" else "")
        k = _kernels[key] = _cupy.RawKernel(src, name)
    return k


def binary(f, a, out, npd):
    """``f(a[0], a[1], out=out, dtype=npd)`` by a vectorised kernel, or None where the ufunc
    must run (another op or dtype, broadcasting, a strided or misaligned operand, few
    elements)."""
    op = _ufuncs.get(f)
    if op is None or len(a) != 2:
        return None
    x, y = a
    nd = _cupy.ndarray
    if x.__class__ is nd:
        arr = x
        if y.__class__ is nd:
            form, other = "tt", y
        elif y.__class__ is float or y.__class__ is int and -(1 << 53) <= y <= 1 << 53:
            form, other = "ts", None
        else:
            return None
    elif y.__class__ is nd and (x.__class__ is float or
                                x.__class__ is int and -(1 << 53) <= x <= 1 << 53):
        arr, form, other = y, "st", None
    else:
        return None
    n = arr.size
    if n < MIN_ELEMENTS:
        return None
    kind = _TYPES.get(npd)  # (a dict lookup: numpy's dtype.name is a slow Python property)
    if kind is None or arr.dtype != npd or not _plain(arr):
        return None
    if other is not None and (other.shape != arr.shape or other.dtype != npd or
                              not _plain(other)):
        return None
    if out is None:
        out = _cupy.empty(arr.shape, npd)
    elif out.shape != arr.shape or out.dtype != npd or not _plain(out):
        return None
    if form == "tt":
        b, s = other, npd.type(0)
    else:
        b, s = arr, npd.type(y if form == "ts" else x)
    blocks = max(1, -(-(n // kind[2]) // _BLOCK))
    _kernel(op, npd, form)((blocks,), (_BLOCK,), (arr, b, s, out, np.int64(n)))
    return out


def _plain(arr):
    return arr.flags.c_contiguous and arr.data.ptr % 16 == 0
