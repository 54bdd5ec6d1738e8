"""Indexing: ``x[idx]`` and ``x[idx] = v`` exactly as PyTorch splits them.

Basic indices (ints, slices, ``None``, ``...``) become a chain of view ops
(select, slice, unsqueeze), so ``x[0, 1:3]`` is a view whose grad_fn is
``SliceBackward0`` on ``SelectBackward0``. Anything else (integer tensors,
lists, boolean masks) is advanced indexing: a copy (``index``), and its
assignment form is the in-place ``index_put_``.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import backend, policy
from ..autograd import grad_mode
from ..tensor import Tensor
from . import dispatch
from .table import OPS, OpSpec, register


def _is_basic(ix) -> bool:
    return ix is None or ix is Ellipsis or isinstance(ix, slice) or \
        (isinstance(ix, numbers.Integral) and not isinstance(ix, bool)) or \
        (isinstance(ix, Tensor) and ix.ndim == 0 and ix.dtype.category == 1)


def _as_tuple(idx):
    if isinstance(idx, tuple):
        return idx
    return (idx,)


def _expand_ellipsis(idx, ndim):
    n_real = sum(_consumed(ix) for ix in idx)
    if n_real > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if sum(1 for ix in idx if ix is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    out = []
    for ix in idx:
        if ix is Ellipsis:
            out.extend([slice(None)] * (ndim - n_real))
        else:
            out.append(ix)
    return out


def _consumed(ix) -> int:
    """How many tensor dims one index entry consumes."""
    if ix is None or ix is Ellipsis:
        return 0
    if isinstance(ix, Tensor) and ix.dtype.category == 0:
        return max(ix.ndim, 1)
    if isinstance(ix, np.ndarray) and ix.dtype == np.bool_:
        return max(ix.ndim, 1)
    return 1


def getitem(self, idx):
    """``x[idx]``: views for basic indices, a copy for advanced ones."""
    idx = _as_tuple(idx)
    if all(_is_basic(ix) for ix in idx):
        return _basic(self, idx)
    return _advanced(self, idx)


def _basic(self, idx):
    if self.ndim == 0 and any(ix is not None and ix is not Ellipsis for ix in idx):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    single_slice = len(idx) == 1 and isinstance(idx[0], slice)
    entries = _expand_ellipsis(idx, self.ndim)
    out = self
    d = 0
    for ix in entries:
        if ix is None:
            out = dispatch.call_view(OPS["unsqueeze"], (out, d), {})
            d += 1
        elif isinstance(ix, slice):
            n = out._shape[d]
            start, stop, step = ix.start, ix.stop, ix.step
            full = (start in (None, 0)) and (stop is None or (isinstance(stop, int) and stop >= n)) \
                and step in (None, 1)
            if not full or single_slice:
                out = dispatch.call_view(OPS["slice"], (out,), {
                    "dim": d, "start": start, "end": stop, "step": 1 if step is None else step})
            d += 1
        else:
            n = out._shape[d]
            if not -n <= int(ix) < n:  # x[i] words it differently from x.select(d, i)
                raise IndexError(f"index {int(ix)} is out of bounds for dimension {d} with size {n}")
            out = dispatch.call_view(OPS["select"], (out, d, int(ix)), {})
    if out is self:
        out = dispatch.call_view(OPS["alias"], (self,), {})
    return out


# ---- advanced indexing --------------------------------------------------------------------------

def _np_index(self, idx):
    """Translate an index tuple for numpy, with PyTorch's bounds and mask checks."""
    entries = _expand_ellipsis(idx, self.ndim)
    out = []
    d = 0
    for ix in entries:
        if isinstance(ix, Tensor):
            a = backend.to_numpy(ix._a)
        elif isinstance(ix, (list, tuple)) or isinstance(ix, np.ndarray):
            a = np.asarray(ix)
            if a.dtype == object:
                raise IndexError("only integers, slices, ellipsis, None, and integer or boolean "
                                 "tensors are valid indices")
        else:
            out.append(ix)
            d += 0 if ix is None else 1
            continue
        if a.dtype == np.bool_:
            for k in range(a.ndim):
                if d + k >= self.ndim or a.shape[k] != self._shape[d + k]:
                    raise IndexError(
                        f"The shape of the mask {list(a.shape)} at index {k} does not match the "
                        f"shape of the indexed tensor {list(self._shape)} at index {d + k}")
            d += max(a.ndim, 1)
        else:
            if a.dtype.kind not in "iu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            n = self._shape[d]
            if a.size and (a.max() >= n or a.min() < -n):
                bad = int(a.max()) if a.max() >= n else int(a.min())
                raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}")
            d += 1
        out.append(a)
    return tuple(out)


def _to_dev(idx, xp):
    if xp is np:
        return idx
    return tuple(xp.asarray(i) if isinstance(i, np.ndarray) else i for i in idx)


def _index_fwd(xp, a, out=None, dt=None, indices=()):
    return a[_to_dev(indices, xp)]


def _index_bw(c, g):
    shape, dt, dev = c.input_meta[0]
    from .. import creation

    z = creation.zeros(shape, dtype=g.dtype, device=dev)
    return (dispatch.call(OPS["index_put"], (z, g), {"indices": c["indices"], "accumulate": True}),)


register(OpSpec(name="index", forward=_index_fwd, backward=_index_bw, dtype_rule="self",
                params={"indices": ()}, method=False, function=False, out=False))


def _advanced(self, idx):
    return dispatch.call(OPS["index"], (self,), {"indices": _np_index(self, idx)})


def _index_put_fwd(xp, a, values, out=None, dt=None, indices=(), accumulate=False):
    target = out if out is not None else a.copy()
    ix = _to_dev(indices, xp)
    if accumulate:
        if xp is np:
            np.add.at(target, ix, values)
        else:
            import cupyx  # type: ignore

            cupyx.scatter_add(target, ix, values)
    else:
        target[ix] = values
    return target


def _index_put_bw(c, g):
    ix = c["indices"]
    gs = None
    if c.needs_input_grad[0]:
        gs = g.clone()
        if not c["accumulate"]:
            gs = dispatch.call(OPS["index_put"], (gs, 0.0), {"indices": ix, "accumulate": False})
    gv = None
    if c.needs_input_grad[1]:
        gv = dispatch.call(OPS["index"], (g,), {"indices": ix})
        shape = c.input_meta[1][0]
        if gv.shape != shape:
            gv = gv.sum_to_size(shape)
    return (gs, gv)


register(OpSpec(name="index_put", forward=_index_put_fwd, backward=_index_put_bw,
                args=("self", "values"), params={"indices": (), "accumulate": False},
                dtype_rule=lambda spec, ins, params: ins[0]._dtype, inplace=True,
                paddle_inplace=True, method=False, function=False, out=False))


def index_put_(self, indices, values, accumulate=False):
    idx = _np_index(self, tuple(indices))
    return dispatch.call_inplace(OPS["index_put"], (self, values),
                                 {"indices": idx, "accumulate": accumulate})


def index_put(self, indices, values, accumulate=False):
    idx = _np_index(self, tuple(indices))
    return dispatch.call(OPS["index_put"], (self, values), {"indices": idx, "accumulate": accumulate})


def setitem(self, idx, value):
    """``x[idx] = value``: a view then copy_/fill_ (basic), or index_put_ (advanced)."""
    pol = policy.policy_of(self)
    if policy.is_paddle(pol) and grad_mode.state.enabled and self._requires_grad and self.is_leaf:
        raise policy.leaf_error(self, pol, setitem=True, op="setitem")
    tidx = _as_tuple(idx)
    if all(_is_basic(ix) for ix in tidx):
        view = _basic(self, tidx)
        if isinstance(value, Tensor):
            dispatch.call_inplace(OPS["copy"], (view, value), {}, setitem=True)
        else:
            _check_scalar(value)
            dispatch.call_inplace(OPS["fill"], (view, value), {}, setitem=True)
        return
    vals = value if isinstance(value, Tensor) else value
    dispatch.call_inplace(OPS["index_put"], (self, vals),
                          {"indices": _np_index(self, tidx), "accumulate": False}, setitem=True)


def _check_scalar(v):
    if not isinstance(v, (numbers.Number, np.generic)):
        if isinstance(v, (list, tuple, np.ndarray)):
            return
        raise TypeError(f"can't assign a {type(v).__name__} to a tensor")

