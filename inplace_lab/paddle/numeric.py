"""Paddle 3.3.1's signatures for torch-level functions the op table answers with PyTorch's.

``paddle.diag(x, offset, padding_value)``, ``paddle.diff(x, n, axis)``,
``paddle.repeat_interleave(x, repeats, axis)``, ``paddle.searchsorted(..., out_int32,
right)``, ``paddle.allclose`` (a bool *tensor*), ``paddle.cross(axis=9)``, ``paddle.dot``
of 2-D rows, ``paddle.outer``/``ger`` of flattened inputs ... Each is a thin function
over the core op with Paddle's argument names, defaults and result types; gradients
come from the core's recorded ops.
"""
from __future__ import annotations

import numpy as np

import inplace_lab as _il
from inplace_lab import dtypes
from inplace_lab.tensor import Tensor as _Core

from .selection import _to_last


def _dims(axis):
    return axis if axis is None or isinstance(axis, int) else tuple(axis)


def diag(x, offset=0, padding_value=0, name=None):
    """``paddle.diag``: a 1-D x becomes a matrix whose off-diagonal cells are ``padding_value``."""
    d = _il.diag(x, offset)
    if x.ndim == 1 and padding_value != 0:
        n = d.shape[0]
        mask = _il.tensor(np.eye(n, n, offset, dtype=bool), device=x.device)
        d = _il.where(mask, d, _il.tensor(padding_value, dtype=d.dtype, device=x.device))
    return d


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    return _il.diff(x, n=n, dim=axis, prepend=prepend, append=append)


def repeat_interleave(x, repeats, axis=None, name=None, output_size=None):
    return _il.repeat_interleave(x, repeats, dim=axis)


def meshgrid(*args, **kwargs):
    """``paddle.meshgrid``: tensors or one list of them; always 'ij' indexing; a list back."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    return list(_il.meshgrid(*args, indexing="ij"))


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None, *,
                 side=None, sorter=None):
    return _il.searchsorted(sorted_sequence, values, out_int32=out_int32, right=right,
                            side=side, sorter=sorter)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """``paddle.bucketize``: ``sorted_sequence`` must be 1-D (Paddle's check)."""
    if sorted_sequence.ndim != 1:
        raise ValueError("sorted_sequence tensor must be 1 dimension, but got dim "
                         f"{sorted_sequence.ndim}")
    return _il.bucketize(x, sorted_sequence, out_int32=out_int32, right=right)


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    return _il.nansum(x, dim=_dims(axis), keepdim=keepdim,
                      dtype=None if dtype is None else dtypes.from_any(dtype))


def nanmean(x, axis=None, keepdim=False, name=None):
    return _il.nanmean(x, dim=_dims(axis), keepdim=keepdim)


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    return _il.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """``paddle.allclose``: a 0-D bool tensor (PyTorch returns a Python bool)."""
    return _il.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan).all()


def _composite_not_yet(name):
    """The core composes these of Tensor *methods* (``x.reshape(a, b, c)``), which on a
    paddle.Tensor have Paddle's signatures; rather than answer wrongly, say so."""
    return NotImplementedError(
        f"paddle.{name} is not implemented in inplace_lab's paddle facade yet: the core's "
        f"{name} is a PyTorch composite that calls PyTorch-signature methods")


def einsum(equation, *operands):
    raise _composite_not_yet("einsum")


def kron(x, y, name=None):
    return _il.kron(x, y)


def cross(x, y, axis=9, name=None):
    """``paddle.cross``: ``axis=9`` (the default) is the first axis of size 3."""
    if axis == 9:
        return _il.cross(x, y)
    return _il.cross(x, y, dim=axis)


def inner(x, y, name=None):
    raise _composite_not_yet("inner")


def dot(x, y, name=None):
    """``paddle.dot``: 1-D inner product, or of each row of two 2-D tensors."""
    if x.ndim == 2:
        return _il.sum(_il.mul(x, y), dim=-1)
    return _il.dot(x, y)


def outer(x, y, name=None):
    """``paddle.outer``/``ger`` (of the flattened inputs in Paddle)."""
    raise _composite_not_yet("outer")


ger = outer


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    return _il.sum(_il.diagonal(x, offset=offset, dim1=axis1, dim2=axis2), dim=-1)


def flip(x, axis, name=None):
    return _il.flip(x, [axis] if isinstance(axis, int) else list(axis))


def _quantile(core, x, q, axis, keepdim, interpolation):
    if isinstance(q, _Core) and q.ndim == 0:
        q = float(q.item())
    if isinstance(q, (list, tuple, _Core)):
        raise NotImplementedError("paddle.quantile with a list or 1-D tensor q is not "
                                  "implemented in inplace_lab's paddle facade yet (the core "
                                  "composite calls PyTorch-signature methods); pass one float")
    if axis is None or isinstance(axis, int):
        return core(x, q, dim=axis, keepdim=keepdim, interpolation=interpolation)
    t, shape = _to_last(x, axis, keepdim)
    r = core(t, q, dim=-1, interpolation=interpolation)
    return _Core.reshape(r, tuple(shape))


def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """``paddle.quantile``: q a number, list or tensor; ``axis`` an int or a list of axes."""
    return _quantile(_il.quantile, x, q, axis, keepdim, interpolation)


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    return _quantile(_il.nanquantile, x, q, axis, keepdim, interpolation)


def multinomial(x, num_samples=1, replacement=False, name=None):
    return _il.multinomial(x, num_samples, replacement=replacement)


def inverse(x, name=None):
    return _il.inverse(x)


NAMES = ("diag", "diff", "repeat_interleave", "meshgrid", "searchsorted", "bucketize", "nansum",
         "nanmean", "isclose", "allclose", "einsum", "kron", "cross", "inner", "dot", "outer",
         "ger", "trace", "flip", "quantile", "nanquantile", "multinomial", "inverse")
