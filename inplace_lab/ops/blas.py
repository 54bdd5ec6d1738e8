"""BLAS ``axpy`` for ``add``/``sub`` with ``alpha``: ``y + alpha * x`` in one fused pass.

Why: PyTorch's CPU kernel for ``a.add(b, alpha=k)`` computes ``fmadd(b, k, a)`` (one
rounding, ``k`` cast to the tensor's float type first), while two numpy ufuncs
(``b * k`` then ``a + that``) round twice and differ from torch in the last bit of a
fraction of the elements. BLAS ``saxpy``/``daxpy`` (scipy's, a required dependency) is
the same fused multiply-add, element for element (checked against torch for every size
1..300 and large blocks, float32 and float64), and it is one pass over memory instead
of two with a temporary: ``param.add_(grad, alpha=-lr)``, the SGD update, on a 400k
weight goes from ~145 us (blocked numpy) to ~20 us.

It is used only where the result is certainly the same as the element-wise formula:
numpy arrays of one real floating dtype (float32/float64), operands of the result's
shape (no broadcasting), both C-contiguous (so the result is C-contiguous, the layout
numpy and PyTorch give it too), no memory shared between the written array and
the operands, a finite non-zero real ``alpha`` (BLAS skips the update for ``alpha == 0``,
where ``0 * inf`` must still give NaN). Anything else returns None: the caller's numpy
path runs.
"""
from __future__ import annotations

import numpy as np

_FNS: dict = {}
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_MAX = {_F32: float(np.finfo(np.float32).max), _F64: float(np.finfo(np.float64).max)}
_NDARRAY = np.ndarray
_INT_MAX = 2 ** 31 - 1  # scipy's BLAS takes 32-bit sizes
# Elements per BLAS call. OpenBLAS runs an axpy of more than 10000 elements on its thread
# pool, and scipy's OpenBLAS is not numpy's: its worker then spins for ~0.1 s on the core
# numpy's GEMM threads need, which made a whole training step 2x slower. Blocks of 8192
# stay on the calling thread (and in L1/L2), and cost no more than one call.
_CHUNK = 8192


def _fn(dtype):
    if not _FNS:
        from scipy.linalg import blas

        _FNS[_F32], _FNS[_F64] = blas.saxpy, blas.daxpy
    return _FNS[dtype]


def axpy(xp, a, b, k, out, npd):
    """``a + k * b`` written into ``out`` (``out is a``: in place; None: a fresh array).

    Returns the result array, or None when BLAS cannot give exactly the fused result
    (then nothing has been written).
    """
    if xp is not np or a.__class__ is not _NDARRAY or b.__class__ is not _NDARRAY:
        return None
    if (a.dtype is not npd or b.dtype is not npd or npd not in _MAX or a.shape != b.shape
            or not (a.flags.c_contiguous and b.flags.c_contiguous) or b.size == 0
            or b.size > _INT_MAX):  # (both C-contiguous: the result's layout is C, as numpy's)
        return None
    kc = k.__class__
    if not (kc is float or kc is int) or k == 0 or not -_MAX[npd] <= k <= _MAX[npd]:
        return None  # (NaN fails the range test too)
    if out is a:
        if not a.flags.writeable or np.may_share_memory(a, b):
            return None
        y = a
    elif out is None:
        y = a.copy()
    else:
        if (out.__class__ is not _NDARRAY or out.dtype is not npd or out.shape != a.shape
                or not out.flags.c_contiguous or not out.flags.writeable
                or np.may_share_memory(out, a) or np.may_share_memory(out, b)):
            return None
        np.copyto(out, a)
        y = out
    flat, x, fn, n = y.reshape(-1), b.reshape(-1), _fn(npd), y.size
    for i in range(0, n, _CHUNK):  # (offsets, not slices: no view objects per block)
        r = fn(x, flat, n=min(_CHUNK, n - i), a=k, offx=i, offy=i)
        if r is not flat:  # f2py made a copy (an unaligned array): take its result
            flat[...] = r
    return y
