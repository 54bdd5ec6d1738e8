"""Indexing: ``x[idx]`` and ``x[idx] = v`` exactly as PyTorch splits them.

PyTorch walks the index once, left to right (``applySlicing``): ints become
``select``, slices ``slice``, ``None`` ``unsqueeze`` -- a chain of *views*, so
``x[0, 1:3]`` has grad_fn ``SliceBackward0`` on ``SelectBackward0`` and shares
x's storage. Everything else (integer tensors, lists, numpy arrays, boolean
masks, Python ``True``/``False``) is collected, with the dim it applies to,
and applied afterwards in one *advanced* step: the ``index`` op, a copy
(``IndexBackward0``, ``_base`` None). Assignment mirrors it: a basic index
writes through the view with ``copy_``/``fill_`` (the base's grad_fn becomes
``CopySlices``); an advanced one is one in-place ``index_put_``.

Where the advanced dims land follows numpy's rule (adjacent advanced indices
stay in place, separated ones move to the front); PyTorch agrees once the
ints have been turned into ``select`` views, which is why ``x[0, :, [0, 1]]``
has shape ``[4, 2]`` here (and in PyTorch) but ``[2, 4]`` in numpy.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from .. import backend, dtypes, errors, layout, policy
from ..autograd import grad_mode
from ..tensor import Tensor
from . import dispatch
from .copy import _FILL_TENSOR
from .table import OPS, OpSpec, register
from ..scalars import as_value, check_value

_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
              "valid indices (got {})")
_BAD_DTYPE = "tensors used as indices must be long, int, byte or bool tensors"
_ZERO_DIM = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
             "in C++ to convert a 0-dim tensor to a number")
_SEQ = (list, tuple, range, str, bytes, np.ndarray)


# ---- reading the index ------------------------------------------------------------------------

def _as_tuple(idx) -> tuple:
    """PyTorch's (numpy's) rule for when ``x[seq]`` means ``x[tuple(seq)]``."""
    if isinstance(idx, tuple):
        return idx
    if isinstance(idx, (list, range, str, bytes)) and len(idx) < 32:
        for e in idx:
            if isinstance(e, (Tensor, slice, *_SEQ)) or e is None or e is Ellipsis:
                return tuple(idx)
    return (idx,)


def _as_int(ix):
    """The int an index entry stands for (select), or None if it is not int-like."""
    if ix.__class__ is int:
        return ix
    if isinstance(ix, bool) or isinstance(ix, np.bool_):
        return None
    if isinstance(ix, numbers.Integral):
        return int(ix)
    if isinstance(ix, np.ndarray) and ix.ndim == 0 and ix.dtype.kind in "iu":
        return int(ix)
    if isinstance(ix, Tensor) and ix.ndim == 0 and ix._dtype.category == dtypes.INT:
        return int(ix.item())
    return None


def _is_mask(t: Tensor) -> bool:
    return t._dtype is dtypes.bool_ or t._dtype is dtypes.uint8


def _consumed(ix) -> int:
    """How many dims of the tensor one entry uses (PyTorch's count_specified_dimensions)."""
    if isinstance(ix, Tensor):
        return ix.ndim if _is_mask(ix) else 1
    if ix is None or ix is Ellipsis or isinstance(ix, bool):
        return 0
    return 1


def _index_tensor(seq, device) -> Tensor:
    """A list / numpy array used as an index becomes a bool tensor (all bools) or a long one."""
    try:
        a = np.asarray(seq)
    except ValueError as e:
        raise IndexError(str(e)) from None
    if a.dtype.kind in "US":
        raise TypeError("new(): invalid data type 'str'")
    if a.dtype == object:
        raise IndexError(_BAD_INDEX.format(type(seq).__name__))
    a = a.astype(np.bool_ if a.dtype == np.bool_ else np.int64)
    return Tensor._wrap(backend.to_device_array(a, device) if device.type != "cpu" else a, device)


def _bool_index(flag: bool, device) -> Tensor:
    """``x[True]``: a new unit dim indexed by [0]; ``x[False]`` by an empty index."""
    a = np.zeros(1 if flag else 0, dtype=np.int64)
    return Tensor._wrap(a, device) if device.type == "cpu" else _index_tensor(a, device)


def _select(t: Tensor, dim: int, i: int, real_dim: int = 0) -> Tensor:
    """``select`` with indexing's own bound error, which names ``real_dim``: the entry's place
    in the index tuple (``x[..., 3]`` of a [3, 4] says dimension 1, ``x[None, 5]`` too)."""
    nd = len(t._shape)
    if nd == 0:
        raise IndexError(_ZERO_DIM)
    n = t._shape[dim] if dim < nd else 0
    if dim < nd and not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for dimension {real_dim} with size {n}")
    return dispatch.call_view(OPS["select"], (t, dim, i), {})


def _slice_bound(v):
    return None if v is None else v.__index__()


def apply_slicing(self: Tensor, idx: tuple, *, skip_full_slices: bool = True):
    """Walk the index: views for the basic entries, and ``{dim: tensor}`` for the advanced ones."""
    n_spec = sum(_consumed(ix) for ix in idx)
    if n_spec > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    out, dim, tensors, dev = self, 0, {}, self.device
    for pos, ix in enumerate(idx):
        i = _as_int(ix)
        if i is not None:  # (PyTorch's bound error names the entry's place in the index)
            out = _select(out, dim, i, pos)
        elif isinstance(ix, slice):
            start, stop, step = _slice_bound(ix.start), _slice_bound(ix.stop), _slice_bound(ix.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            full = start in (None, 0) and step in (None, 1) and (stop is None or stop >= out.shape[dim])
            if not (full and skip_full_slices):
                out = dispatch.call_view(OPS["slice"], (out,), {
                    "dim": dim, "start": start, "end": stop, "step": 1 if step is None else step})
            dim += 1
        elif ix is Ellipsis:
            dim += self.ndim - n_spec
        elif ix is None:
            out = dispatch.call_view(OPS["unsqueeze"], (out, dim), {})
            dim += 1
        elif isinstance(ix, (bool, np.bool_)) or (isinstance(ix, Tensor) and ix.ndim == 0
                                                  and ix._dtype is dtypes.bool_):
            out = dispatch.call_view(OPS["unsqueeze"], (out, dim), {})
            tensors[dim] = _bool_index(bool(ix.item() if isinstance(ix, Tensor) else ix), dev)
            dim += 1
        elif isinstance(ix, Tensor):
            tensors[dim] = ix
            dim += _consumed(ix)
        elif isinstance(ix, _SEQ):
            t = _index_tensor(ix, dev)
            tensors[dim] = t
            dim += _consumed(t)
        else:
            raise IndexError(_BAD_INDEX.format(type(ix).__name__))
    return out, _index_list(tensors)


class Aligned(tuple):
    """An index list made here (None = untouched dim); the public API takes tensors only."""


def _index_list(tensors: dict) -> Aligned:
    """``{dim: tensor}`` -> the aligned list ``index`` takes (None for untouched dims)."""
    out = []
    for d in sorted(tensors):
        out.extend([None] * (d - _width(out)))
        out.append(tensors[d])
    return Aligned(out)


def _width(lst) -> int:
    return sum(1 if t is None or not _is_mask(t) else max(t.ndim, 1) for t in lst)


# ---- the advanced step: validating and expanding the index list -------------------------------

def expand_indices(shape, indices, xp=np):
    """PyTorch's checks, in its order, then the numpy index tuple (masks -> nonzero columns).

    Raises before anything is read or written: index dtype, mask shapes, too many
    indices, broadcastable index shapes, bounds (the bound error names the index's
    position among the given tensors, as PyTorch's kernel does).
    """
    for t in indices:
        if t is not None and t._dtype not in (dtypes.int64, dtypes.int32, dtypes.uint8, dtypes.bool_):
            raise IndexError(_BAD_DTYPE)
    cols, pos = [], 0
    for t in indices:
        if t is None:
            cols.append(None)
            pos += 1
            continue
        if _is_mask(t):
            if t._dtype is dtypes.uint8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                              "dtype torch.bool instead.", UserWarning, stacklevel=4)
            for j, n in enumerate(t.shape):
                if pos + j >= len(shape) or n != shape[pos + j]:
                    raise IndexError(
                        f"The shape of the mask {list(t.shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {list(shape)} at index {pos + j}")
            cols.extend(xp.nonzero(t._a))
            pos += t.ndim
        else:
            cols.append(t._a)
            pos += 1
    if len(cols) > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)} (got {len(cols)})")
    given = [c for c in cols if c is not None]
    try:
        bshape = np.broadcast_shapes(*(c.shape for c in given))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(str(list(c.shape)) for c in given)) from None
    ix = tuple(slice(None) if c is None else c for c in cols)
    if layout.numel(indexed_shape(shape, ix)):  # PyTorch's kernel checks only what it visits
        _check_bounds(shape, cols, bshape, xp)
    return ix


def _check_bounds(shape, cols, bshape, xp):
    first = None  # (flat position in the broadcast index, ordinal of the index tensor)
    k = 0
    for d, c in enumerate(cols):
        if c is None:
            continue
        n = shape[d]
        bad = xp.broadcast_to((c >= n) | (c < -n), bshape)
        if bad.any():
            p = int(xp.argmax(bad.reshape(-1)))
            if first is None or p < first[0]:
                first = (p, k, d)
        k += 1
    if first is not None:
        p, k, d = first
        v = int(xp.broadcast_to(cols[d], bshape).reshape(-1)[p])
        if shape[d] == 0:  # (ATen's own words for an empty dimension)
            raise IndexError("index is out of bounds for dimension with size 0")
        raise IndexError(f"index {v} is out of bounds for dimension {k} with size {shape[d]}")


def indexed_shape(shape, ix) -> tuple:
    """The shape of ``a[ix]`` for a numpy index tuple, without computing it."""
    adv = [i for i, c in enumerate(ix) if not isinstance(c, slice)]
    if not adv:
        return tuple(shape)
    b = tuple(np.broadcast_shapes(*(ix[i].shape for i in adv)))
    rest = list(shape[len(ix):])
    kept = [shape[i] for i in range(len(ix)) if isinstance(ix[i], slice)]
    if adv == list(range(adv[0], adv[-1] + 1)):
        before = [shape[i] for i in range(adv[0])]
        after = [shape[i] for i in range(adv[-1] + 1, len(ix))]
        return tuple(before) + b + tuple(after) + tuple(rest)
    return b + tuple(kept) + tuple(rest)


# ---- the two advanced ops -----------------------------------------------------------------------

def _index_fwd(xp, a, indices, out=None, dt=None):
    _check_index_list(indices, "index")
    ix = expand_indices(a.shape, indices, xp)
    rshape = indexed_shape(a.shape, ix)
    return a[ix] if layout.numel(rshape) else xp.empty(rshape, dtype=a.dtype)


def _index_bw(c, g):
    shape, dt, dev = c.input_meta[0]
    from .. import creation

    z = creation.zeros(shape, dtype=g._dtype, device=dev)
    return (dispatch.call(OPS["index_put"], (z, saved_indices(c), g), {"accumulate": True}), None)


def saved_indices(c) -> tuple:
    """The index tensors a node saved, each version-checked (as PyTorch checks them)."""
    return Aligned(None if t is None else c.saved[f"indices[{k}]"].unpack(c)
                   for k, t in enumerate(c.params["indices"]))


def _index_layout(ins, params, rshape):
    """The strides of ``a[indices]`` as ATen's index kernel lays them out: a TensorIterator over ``a`` restrided to the result's shape (the indexed dims
    replaced by the index shape with stride 0; moved to the front when not adjacent) and the
    index tensors (reshaped to the result's rank). So ``x.mT[[0, 1]]`` keeps x.mT's order."""
    a, indices = ins[0], ins[1]
    plain = layout.is_contiguous(a._shape, a._strides)
    cols = []  # per indexed dim of a: the index's (shape, strides), masks as their nonzero columns
    for t in indices:
        if t is None:
            cols.append(None)
        elif _is_mask(t):
            n = int(np.count_nonzero(backend.to_numpy(t._a)))
            cols.extend([((n,), (t.ndim,))] * t.ndim)  # (columns of nonzero's [n, ndim])
            plain = False if t.ndim > 1 else plain
        else:
            cols.append((t._shape, t._strides))
            plain = plain and layout.is_contiguous(t._shape, t._strides)
    if plain:  # (numpy's own result may not be: a[:, [2, 0]] puts the index dim first)
        return layout.contiguous_strides(rshape)
    cols += [None] * (a.ndim - len(cols))
    pos = [i for i, c in enumerate(cols) if c is not None]
    order = list(range(a.ndim))
    if pos != list(range(pos[0], pos[-1] + 1)):  # transposeToFront
        order = pos + [i for i in range(a.ndim) if i not in pos]
        pos = list(range(len(pos)))
    shape = [a._shape[i] for i in order]
    strides = [a._strides[i] for i in order]
    ishape = tuple(np.broadcast_shapes(*(cols[i][0] for i in sorted(c for c in range(a.ndim)
                                                                   if cols[c] is not None))))
    before, after = pos[0], len(shape) - pos[-1] - 1
    if tuple(shape[:before]) + ishape + tuple(shape[len(shape) - after:]) != tuple(rshape):
        return layout.contiguous_strides(rshape)
    operands = [(tuple(rshape), tuple(strides[:before]) + (0,) * len(ishape) +
                 tuple(strides[len(strides) - after:]))]
    for c in (cols[i] for i in range(a.ndim) if cols[i] is not None):
        st = layout.expand_strides(c[0], c[1], ishape)
        operands.append(((1,) * before + ishape + (1,) * after,
                         (0,) * before + st + (0,) * after))
    return layout.iterator_strides(rshape, operands)


register(OpSpec(name="index", forward=_index_fwd, backward=_index_bw, args=("self", "indices"),
                grad_writes=1, layout=_index_layout,
                saves=("indices",), dtype_rule="self", method=False, function=False, out=False))


def _index_put_fwd(xp, a, indices, values, out=None, dt=None, accumulate=False):
    fname = "index_put" if out is None else "index_put_"
    _check_index_list(indices, fname)
    if not isinstance(values, xp.ndarray):
        raise TypeError(f"{fname}(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    ix = expand_indices(a.shape, indices, xp)
    vdt, adt = dtypes.from_numpy_dtype(values.dtype), dtypes.from_numpy_dtype(a.dtype)
    if vdt is not adt:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{adt.torch_name} for the destination and {vdt.torch_name} for the source.")
    rshape = indexed_shape(a.shape, ix)
    try:
        np.broadcast_shapes(values.shape, rshape)
        if np.broadcast_shapes(values.shape, rshape) != rshape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be "
                           f"broadcast to indexing result of shape {list(rshape)}") from None
    target = out if out is not None else a.copy()
    if not layout.numel(rshape):
        return target
    if accumulate:
        vals = xp.broadcast_to(values, rshape)
        backend.add_at(xp, target, ix, vals)
    else:
        target[ix] = values
    return target


def _index_put_bw(c, g):
    ix = saved_indices(c)
    gs = None
    if c.needs_input_grad[0]:
        gs = g if c["accumulate"] else dispatch.call(
            OPS["index_put"], (g, ix, _zero_like_scalar(g)), {"accumulate": False})
    gv = None
    if c.needs_input_grad[2]:
        gv = dispatch.call(OPS["index"], (g, ix), {})
        shape = c.input_meta[2][0]
        if gv.shape != shape:
            gv = gv.sum_to_size(shape)
    return (gs, None, gv)


def _zero_like_scalar(g):
    return Tensor._wrap(backend.xp_of(g.device).zeros((), dtype=g._dtype.np), g.device)


def _reads_a_scalar(target, ins, params) -> bool:
    """ATen's canDispatchToMaskedFill: one bool (or uint8) index and a one-element value on
    the CPU, not accumulated: index_put_ is ``masked_fill_(mask, value.item())``, which reads
    the value before writing (``x[x > 1] = x[0]`` is allowed)."""
    v = ins[2] if len(ins) > 2 else None
    if params.get("accumulate") or not isinstance(v, Tensor) or v.numel() != 1 or \
            v._storage.device.type != "cpu" or not isinstance(ins[1], (list, tuple)):
        return False  # (not index_put_'s (self, indices, values): the scatter family's)
    idx = [i for i in ins[1] if i is not None]
    return len(idx) == 1 and isinstance(idx[0], Tensor) and idx[0]._dtype in (dtypes.bool_,
                                                                              dtypes.uint8)


def _no_overlap(target, ins, params):
    """``index_put_`` and the scatter family refuse any overlap of the written tensor and a source."""
    if _reads_a_scalar(target, ins, params):
        return
    geo = (target._shape, target._strides, target._offset)
    for x in ins[1:]:
        if isinstance(x, Tensor) and x._storage is target._storage and \
                layout.overlap_kind(geo, (x._shape, x._strides, x._offset)) != "none":
            raise errors.PartialOverlapError(
                "unsupported operation: some elements of the input tensor and the written-to tensor "
                "refer to a single memory location. Please clone() the tensor before performing the "
                "operation.", tensor=target, other=x)


register(OpSpec(name="index_put", forward=_index_put_fwd, internal_overlap_ok=True,
                expanded_warning="tensor[indices] = tensor", backward=_index_put_bw,
                args=("self", "indices", "values"), params={"accumulate": False},
                saves=("indices",), dtype_rule="self", inplace=True, paddle_inplace=True, out=False,
                inplace_check=_no_overlap, layout="preserve",  # (a clone(Preserve) written)
                overlap_inputs=False))  # (_no_overlap looks at the values, next)


# ---- x[idx] -------------------------------------------------------------------------------------

def getitem(self, idx):
    """``x[idx]``: views for basic indices, a copy (``index``) for advanced ones."""
    if idx.__class__ is int:  # x[0]: the commonest index
        return _select(self, 0, idx)
    if isinstance(idx, slice):  # PyTorch's fast path: a lone slice is never skipped
        out, tensors = apply_slicing(self, (idx,), skip_full_slices=False)
    elif _as_int(idx) is not None and not isinstance(idx, Tensor):
        return _select(self, 0, _as_int(idx))
    else:
        out, tensors = apply_slicing(self, _as_tuple(idx))
    if tensors:
        return advanced_index(out, tensors)
    if out is self:
        return dispatch.call_view(OPS["alias"], (self,), {})
    return out


def advanced_index(self, indices):
    return dispatch.call(OPS["index"], (self, Aligned(indices)), {})


# ---- x[idx] = value -----------------------------------------------------------------------------

_C_NAMES = {"Float": "float", "Double": "double", "Half": "c10::Half", "Long": "int64_t",
            "Int": "int", "Short": "int16_t", "Char": "int8_t", "Byte": "uint8_t", "Bool": "bool"}


def _check_value(self, value):
    """PyTorch's valueToTensor: a Tensor, or a Python/numpy scalar that fits self's dtype."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, np.ndarray):
        if policy.is_paddle(policy.policy_of(self)):
            if isinstance(value, (complex, np.complexfloating)) and not self._dtype.is_complex:
                raise RuntimeError(f"value cannot be converted to type "
                                   f"{_C_NAMES.get(self._dtype.torch_name, self._dtype.name)} "
                                   "without overflow")
            return value
        if value.__class__ is int and not -2 ** 63 <= value < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")  # (setitem: int64 only)
        if self._dtype is dtypes.float16:  # converted without a range check (big -> inf)
            check_value(value.real if value.imag == 0 else value, np.dtype(np.float64))
        else:
            check_value(value, self._dtype.np)  # a Python number must fit (-1 wraps for uint8)
        return value
    raise TypeError(f"can't assign a {_qualname(value)} to a {policy.torch_type_name(self)}")


def _qualname(v) -> str:
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _strip_leading_ones(v: Tensor) -> Tensor:
    """PyTorch's slicePrefix1sSize: a value of shape [1, 1, 4] is used as [4]."""
    shape = v._shape
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return v if k == 0 else dispatch.call_view(OPS["view"], (v, shape[k:]), {})


def _copy_to(dst: Tensor, value: Tensor, setitem=True) -> None:
    """PyTorch's copy_to: copy_ for equal shapes, fill_ for a 0-dim value on the CPU, else
    copy_ broadcast (a 0-dim GPU tensor too: CopyBackwards)."""
    if value._shape == dst._shape:
        dispatch.call_inplace(OPS["copy"], (dst, value), {}, setitem=setitem)
        return
    if value.ndim == 0 and (value._storage.device.type == "cpu" or
                            policy.is_paddle(policy.policy_of(dst))):
        dispatch.call_inplace(_FILL_TENSOR, (dst, value), {}, setitem=setitem)
        return
    # torch views the value even when no leading 1 goes (ViewBackward0), then expands it
    # (ExpandBackward0) when the shapes still differ: both nodes show in the graph
    k = 0
    while k < value.ndim and value._shape[k] == 1:
        k += 1
    src = dispatch.call_view(OPS["view"], (value, value._shape[k:]), {})
    if src.ndim > dst.ndim:
        raise RuntimeError(
            f"expand({policy.torch_type_name(value)}{{{list(src.shape)}}}, size={list(dst.shape)}): "
            f"the number of sizes provided ({dst.ndim}) must be greater or equal to the number of "
            f"dimensions in the tensor ({src.ndim})")
    for i in range(1, src.ndim + 1):
        if src._shape[-i] not in (1, dst._shape[-i]):
            raise RuntimeError(
                f"The expanded size of the tensor ({dst._shape[-i]}) must match the existing size "
                f"({src._shape[-i]}) at non-singleton dimension {dst.ndim - i}.  Target sizes: "
                f"{list(dst.shape)}.  Tensor sizes: {list(src.shape)}")
    value = src if src._shape == dst._shape else \
        dispatch.call_view(OPS["expand"], (src, dst._shape), {})
    dispatch.call_inplace(OPS["copy"], (dst, value), {}, setitem=setitem)


def setitem(self, idx, value):
    """``x[idx] = value``: a view then copy_/fill_ (basic), or index_put_ (advanced)."""
    pol = policy.policy_of(self)
    if policy.is_paddle(pol) and grad_mode.state.enabled and self._requires_grad and self.is_leaf:
        raise policy.leaf_error(self, pol, setitem=True, op="setitem")
    value = _check_value(self, value)
    if idx is False:
        return  # PyTorch: x[False] = v writes nothing and bumps nothing
    sliced, tensors = apply_slicing(self, _as_tuple(idx))
    if not isinstance(value, Tensor):
        value = _scalar_tensor(value, self, pol)
    if not tensors:
        _copy_to(sliced, value, setitem=self)  # the owner: Paddle records setitem on it
        return
    value = _strip_leading_ones(value)
    dispatch.call_inplace(OPS["index_put"], (sliced, tensors, value), {"accumulate": False},
                          setitem=self)


def _scalar_tensor(v, like: Tensor, pol) -> Tensor:
    """The value tensor of ``x[i] = number``: on the CPU for a GPU tensor too, as PyTorch's
    setitem makes it (no device sync), so copy_to fills with it (FillBackward3)."""
    dev = like.device if like.device.type == "cpu" or policy.is_paddle(pol) else backend.CPU
    return Tensor._wrap(as_value(backend.xp_of(dev), v, like._dtype.np), dev, like._policy)


def _check_index_list(indices, fname):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor) and not (t is None and isinstance(indices, Aligned)):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got "
                            f"{type(t).__name__}")
