"""Index- and mask-driven copies: gather, scatter, index_*, masked_*, put, take, nonzero.

Every result here is a *copy* (new storage, ``_base`` None), unlike the views of
``shape.py`` and the basic indexing of ``indexing.py``. The in-place forms
(``scatter_``, ``index_add_``, ``masked_fill_``, ``put_`` ...) exist exactly where
PyTorch has them and write into the target's own buffer: no new storage, one
version bump. What each backward saves is what PyTorch saves: the *index*
(gather, scatter, index_select, index_add ...) or the *mask* (masked_fill,
masked_scatter), never the data, so ``y = x*1; y.index_add_(0, idx, src)`` keeps
backward working while ``idx.add_(1)`` afterwards breaks it. Kernels validate
shapes, dtypes and bounds before writing one element, with PyTorch's messages.
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from .. import backend, dtypes, layout, policy
from ..tensor import Tensor
from . import dispatch
from .indexing import _no_overlap
from .join import cat
from .table import OPS, OpSpec, register
from ..scalars import as_value, check_value


def _tn(a) -> str:
    """PyTorch's dtype name of an array ("Float", "Long")."""
    return dtypes.from_numpy_dtype(a.dtype).torch_name


def _is_int_index(a, allow32=True) -> bool:
    return a.dtype == np.int64 or (allow32 and a.dtype == np.int32)


# ---- gather / scatter / scatter_add -------------------------------------------------------------


def _grid(index, dim, xp):
    """The fancy index of ``index``'s cells along ``dim``: ``a[_grid(i, d)]`` is gather."""
    ix = list(xp.ogrid[tuple(slice(0, n) for n in index.shape)]) if index.ndim else []
    if index.ndim:
        ix[dim] = index
    return tuple(ix)


def _region(a, shape):
    return a[tuple(slice(0, n) for n in shape)]


def _check_bounds(index, n, d, xp, exc=RuntimeError, prefix=""):
    if index.size:
        bad = (index >= n) | (index < 0)
        if bad.any():
            v = int(index.reshape(-1)[int(xp.argmax(bad.reshape(-1)))])
            raise exc(f"{prefix}index {v} is out of bounds for dimension {d} with size {n}")


def _gather_fwd(xp, a, dim, index, out=None, dt=None, sparse_grad=False):
    d = layout.wrap_dim(dim, a.ndim)
    if not _is_int_index(index):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if index.ndim != a.ndim and max(index.ndim, a.ndim) > 1:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for i in range(index.ndim):
        if i != d and index.shape[i] > a.shape[i]:
            raise RuntimeError(
                f"Size does not match at dimension {i} expected index {list(index.shape)} to be no "
                f"larger than self {list(a.shape)} apart from dimension {d}")
    _check_bounds(index, a.shape[d] if a.ndim else 1, d, xp)
    return a[_grid(index, d, xp)] if a.ndim else a[()]


def _gather_bw(c, g):
    shape, dt, dev = c.input_meta[0]
    from .. import creation

    z = creation.zeros(shape, dtype=g._dtype, device=dev)
    return (z.scatter_add(c["dim"], c["index"], g), None, None)


register(OpSpec(name="gather", forward=_gather_fwd, backward=_gather_bw, grad_writes=1,
                args=("self", "dim", "index"), params={"sparse_grad": False},
                saves=("self", "index"),  # (torch's GatherBackward0 keeps self: a write to it
                # after gather breaks backward, and its memory stays held)
                dtype_rule="self"))


def _nonempty(shape, i):
    """PyTorch's ensure_nonempty_size: a 0-dim tensor counts as one element along dim 0."""
    return shape[i] if len(shape) else 1


def _scatter_checks(a, d, index, src, xp):
    """scatter_gather_dtype_check + scatter_shape_check, in PyTorch's order and words.

    Every scatter flavour (``scatter``, ``scatter_add``, ``scatter_reduce``, in place or
    not) words its errors as ``scatter()``, as PyTorch does. Bounds are checked later
    (after the ``reduce`` string), by ``_check_bounds``.
    """
    is_t = isinstance(src, xp.ndarray)
    if not _is_int_index(index):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if is_t and src.dtype != a.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    nd = max(a.ndim, 1)
    if max(index.ndim, 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if is_t and max(src.ndim, 1) != max(index.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if not index.size:
        return
    too_big = any(_nonempty(index.shape, i) > _nonempty(a.shape, i) for i in range(nd) if i != d) \
        or (is_t and any(_nonempty(index.shape, i) > _nonempty(src.shape, i) for i in range(nd)))
    if too_big:
        tail = f" and to be no larger size than src {list(src.shape)}" if is_t else ""
        raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                           f"{list(a.shape)} apart from dimension {d}{tail}")


def as_1d(a):
    """A 0-dim array as a 1-element view (the scatter family treats it as one), else ``a``."""
    return a if a.ndim else a.reshape(1)


def ufunc_at(xp, name, target, ix, vals) -> None:
    """``target[ix] = name(target[ix], vals)``, repeated cells applied one after another.

    numpy's unbuffered ``ufunc.at``; cupy has only scatter_add natively, so the others
    make the round trip through the host (same order, same values).
    """
    if xp is np:
        getattr(np, name).at(target, ix, vals)
    elif name == "add":
        backend.add_at(xp, target, ix, vals)
    else:
        host = backend.to_numpy(target)
        getattr(np, name).at(host, tuple(backend.to_numpy(i) if isinstance(i, xp.ndarray) else i
                                         for i in ix),
                             backend.to_numpy(vals) if isinstance(vals, xp.ndarray) else vals)
        target[...] = xp.asarray(host)


_WARNED: set = set()


def warn_once(key: str, msg: str) -> None:
    """PyTorch's TORCH_WARN_ONCE: the first call in the process warns, later ones do not."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(msg, UserWarning, stacklevel=5)


def _scatter_fwd(xp, a, dim, index, src, out=None, dt=None, reduce=None):
    is_t = isinstance(src, xp.ndarray)
    if reduce is not None and is_t:
        warn_once("scatter.reduce", "The reduce argument of torch.scatter with Tensor src is "
                  "deprecated and will be removed in a future PyTorch release. Use "
                  "torch.scatter_reduce instead for more reduction options.")
    d = layout.wrap_dim(dim, a.ndim)
    _scatter_checks(a, d, index, src, xp)
    if reduce is not None and reduce not in _OLD_REDUCE:
        raise RuntimeError("reduce argument must be either add or multiply.")
    _check_bounds(index, _nonempty(a.shape, d), d, xp)
    if not is_t:
        check_value(src, a)
    target = out if out is not None else a.copy()
    t1, i1 = as_1d(target), as_1d(index)
    ix = _grid(i1, d, xp)
    vals = _region(as_1d(src), i1.shape) if is_t else as_value(xp, src, a.dtype)
    if reduce is None:
        t1[ix] = vals
    else:
        ufunc_at(xp, _OLD_REDUCE[reduce], t1, ix, vals)
    return target


_OLD_REDUCE = {"add": "add", "multiply": "multiply"}




def _fill_value(xp, v, dt):
    """What a fill writes: a Python number as PyTorch converts it, or the 0-dim array."""
    return as_value(xp, v, dt) if isinstance(v, (int, float, complex)) else xp.asarray(v, dtype=dt)


def _scatter_bw(c, g):
    idx = c["index"]
    gs = g.scatter(c["dim"], idx, 0.0) if c.needs_input_grad[0] else None
    gsrc = g.gather(c["dim"], idx) if c.needs_input_grad[3] else None
    return (gs, None, None, gsrc)


def _scatter_select(args, kwargs):
    """Four overloads: Tensor src (ScatterBackward0) or number (ScatterBackward1), each with or
    without ``reduce=`` (then PyTorch has no derivative: a NotImplemented node)."""
    src = args[3] if len(args) > 3 else kwargs.get("src", kwargs.get("value"))
    tensor_src = "value" not in kwargs and isinstance(src, Tensor)
    reduce = args[4] if len(args) > 4 else kwargs.get("reduce")
    if reduce is not None:
        self_ = args[0] if args else kwargs.get("input")
        src_rg = tensor_src and src._requires_grad
        if not tensor_src or (src_rg and getattr(self_, "_requires_grad", False)):
            return _SCATTER_REDUCE[tensor_src]
        return _SCATTER_REDUCE["src only" if src_rg else "self only"]
    return None if tensor_src else _SCATTER_VALUE


def _no_derivative(op):
    """PyTorch's NotImplemented node: recorded at forward, raises only when backward reaches it."""
    def backward(c, *grads):
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    return backward


def _without_derivative(spec, nondiff=None):
    """``spec`` as PyTorch's grad_fn=<NotImplemented> (scatter with reduce=): saves nothing, and
    has edges only to the inputs that require grad (``nondiff`` names the others)."""
    s = dataclasses.replace(spec, node_name="torch::autograd::NotImplemented", saves=(),
                            backward=_no_derivative("scatter"), select=None, nondiff=nondiff)
    s.inplace_spec = dataclasses.replace(s, backward=_no_derivative("scatter_"))
    return s


_SC = register(OpSpec(name="scatter", forward=_scatter_fwd, backward=_scatter_bw,
                      args=("self", "dim", "index", "src"), params={"reduce": None},
                      saves=("index",), dtype_rule="self", inplace=True, paddle_inplace=True,
                      inplace_check=_no_overlap, select=_scatter_select))
_SCATTER_VALUE = dataclasses.replace(_SC, args=("self", "dim", "index", "value"),
                                     node_name="ScatterBackward1", select=None)
_SCATTER_REDUCE = {True: _without_derivative(_SC), False: _without_derivative(_SCATTER_VALUE),
                   "self only": _without_derivative(_SC, ("dim", "index", "src")),
                   "src only": _without_derivative(_SC, ("self", "dim", "index"))}


def _scatter_add_fwd(xp, a, dim, index, src, out=None, dt=None):
    fname = "scatter_add" if out is None else "scatter_add_"
    if not isinstance(src, xp.ndarray):
        raise TypeError(f"{fname}(): argument 'src' (position 3) must be Tensor, not "
                        f"{type(src).__name__}")
    d = layout.wrap_dim(dim, a.ndim)
    _scatter_checks(a, d, index, src, xp)
    _check_bounds(index, _nonempty(a.shape, d), d, xp)
    target = out if out is not None else a.copy()
    i1 = as_1d(index)
    backend.add_at(xp, as_1d(target), _grid(i1, d, xp), _region(as_1d(src), i1.shape))
    return target


register(OpSpec(name="scatter_add", forward=_scatter_add_fwd,
                backward=lambda c, g: (g if c.needs_input_grad[0] else None, None, None,
                                       g.gather(c["dim"], c["index"]) if c.needs_input_grad[3]
                                       else None),
                args=("self", "dim", "index", "src"), saves=("index",),
                save_if={"index": "src"},  # (self's gradient is grad itself: no index)
                dtype_rule="self", inplace=True, paddle_inplace=True, inplace_check=_no_overlap))


def take_along_dim(input, indices, dim=None, *, out=None):
    """gather along ``dim`` after broadcasting input and indices (GatherBackward0)."""
    if indices._dtype is not dtypes.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices._dtype.torch_name}")
    kw = {} if out is None else {"out": out}
    if dim is None:
        return dispatch.call(OPS["gather"], (input.reshape(-1), 0, indices.reshape(-1)), kw)
    if input.ndim != indices.ndim:
        raise RuntimeError(
            f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
            f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = layout.wrap_dim(dim, input.ndim)
    a = list(input.shape)
    b = list(indices.shape)
    a[d] = b[d] = 1
    common = list(layout.broadcast_shapes(a, b))
    si, ti = list(common), list(common)
    si[d], ti[d] = input.shape[d], indices.shape[d]
    return dispatch.call(OPS["gather"], (input.expand(si), d, indices.expand(ti)), kw)


register(OpSpec(name="take_along_dim", forward=take_along_dim, kind="composite",
                args=("self", "indices"), doc=take_along_dim.__doc__))

# ---- index_select / index_add / index_fill / index_copy ---------------------------------------


def _vector_index(index, fname, xp, exc=IndexError):
    if index.ndim > 1:
        raise exc(f"{fname}(): Index is supposed to be a vector, but got dim: {index.ndim} with "
                  f"type: {_tn(index)} and size: {list(index.shape)}")
    return index.reshape(-1)


def _index_select_fwd(xp, a, dim, index, out=None, dt=None):
    d = layout.wrap_dim(dim, a.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not _is_int_index(index):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    idx = index.reshape(-1)
    n = a.shape[d] if a.ndim else 1
    if a.ndim > 1 and idx.size and n == 0:  # (ATen's check for a matrix, before the range)
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if idx.size and (int(idx.max()) >= n or int(idx.min()) < 0):
        raise IndexError("index out of range in self")
    return xp.take(a, idx, axis=d) if a.ndim else a.reshape(1)[idx].reshape(())


def _index_select_bw(c, g):
    shape, dt, dev = c.input_meta[0]
    from .. import creation

    z = creation.zeros(shape, dtype=g._dtype, device=dev)
    return (z.index_add(c["dim"], c["index"], g), None, None)


register(OpSpec(name="index_select", forward=_index_select_fwd, backward=_index_select_bw,
                grad_writes=1,
                args=("self", "dim", "index"), saves=("index",), dtype_rule="self"))


def _slices(a, d, idx):
    """The fancy index addressing ``a``'s slices ``idx`` along ``d`` (one per index entry)."""
    return (slice(None),) * d + (idx,)


def index_func_checks(func, a, d, index, source, xp):
    """PyTorch's index_func_meta_impl (index_add_, index_reduce_): the flat index, or the error.

    Order and words as PyTorch: vector index, index dtype, same dtype, source dim, number
    of indices, slice shapes. Bounds are the kernel's (after the dtype dispatch).
    """
    idx = _vector_index(index, f"{func}_", xp)
    if not _is_int_index(index):
        raise RuntimeError(f"{func}_(): Expected dtype int32/int64 for index but got: {_tn(index)}")
    if source.dtype != a.dtype:
        raise RuntimeError(f"{func}_(): self ({_tn(a)}) and source ({_tn(source)}) must have "
                           "the same scalar type")
    if not (d == 0 or d < source.ndim):
        raise RuntimeError(f"{func}_(): Indexing dim {d} is out of bounds of the source tensor "
                           f"with dim {source.ndim}")
    ns = source.shape[d] if source.ndim else 1
    if idx.size != ns:
        raise RuntimeError(f"{func}_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({ns}), for dim: {d}")
    rest_a, rest_s = list(a.shape), list(source.shape)
    if a.ndim and source.ndim:
        del rest_a[d], rest_s[d]
    if rest_a != rest_s:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {list(a.shape)} source.shape = {list(source.shape)}")
    return idx


def _index_add_fwd(xp, a, dim, index, source, out=None, dt=None, alpha=1):
    d = layout.wrap_dim(dim, a.ndim)
    idx = index_func_checks("index_add", a, d, index, source, xp)
    n = a.shape[d] if a.ndim else 1
    if a.ndim <= 1:  # (ATen's CPU kernel: a vector's loop checks each index in its own words)
        if idx.size and bool(((idx < 0) | (idx >= n)).any()):
            raise IndexError("index out of range in self")
    elif a.size and idx.size:  # (more dims: nothing to do, nothing checked, when either is empty)
        _check_bounds(idx, n, d, xp)
    target = out if out is not None else a.copy()
    if not a.size:
        return target
    vals = source if alpha == 1 else (source * alpha).astype(a.dtype)
    if not a.ndim:  # (a 0-dim self is its own one slice)
        if idx.size:
            target[...] = target + vals.reshape(-1).sum(dtype=a.dtype)
        return target
    backend.add_at(xp, target, _slices(a, d, idx), vals)
    return target


register(OpSpec(name="index_add", forward=_index_add_fwd,
                backward=lambda c, g: (
                    g if c.needs_input_grad[0] else None, None, None,
                    (g.index_select(c["dim"], c["index"]) * c["alpha"] if c["alpha"] != 1 else
                     g.index_select(c["dim"], c["index"])) if c.needs_input_grad[3] else None),
                args=("self", "dim", "index", "source"), params={"alpha": 1},
                # (torch's formula expands to source's shape: it keeps source itself, and
                # both only when source needs a gradient; self's is grad itself)
                saves=("index", "source"), save_if={"index": "source", "source": "source"},
                dtype_rule="self", inplace=True, paddle_inplace=True, inplace_check=_no_overlap))


def _index_fill_fwd(xp, a, dim, index, value, out=None, dt=None):
    d = layout.wrap_dim(dim, a.ndim)
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if index.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, xp.ndarray) and value.ndim:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value.ndim} dimension(s).")
    if isinstance(value, complex) and a.dtype.kind != "c":
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not "
                           "supported")
    check_value(value, a)
    idx = index.reshape(-1)
    n = a.shape[d] if a.ndim else 1
    if out is None:  # (out of place: the clone(Preserve) ATen fills, on a storage of its own,
        st = tuple(s // a.itemsize for s in a.strides)  # with self's strides where self is
        if not layout.is_dense(a.shape, st):            # dense, else contiguous ones (a view
            st = layout.contiguous_strides(a.shape)     # of unbind's: wide seed 62551); in
        _restride_check(a.shape, st, 0, a.size, a.itemsize, d, idx.size)  # place: the target's)
    others = [s for i, s in enumerate(a.shape) if i != d]
    if idx.size and 0 not in others and (int(idx.max()) >= n or int(idx.min()) < -n):
        v = int(idx[int(xp.argmax((idx >= n) | (idx < -n)))])  # (the kernel visits something)
        raise IndexError(f"index {v} is out of bounds for dimension {d} with size {n}")
    target = out if out is not None else a.copy()
    if a.size:
        if a.ndim:
            target[_slices(a, d, idx)] = _fill_value(xp, value, a.dtype)
        elif idx.size:  # (a 0-dim self is its own one slice)
            target[...] = _fill_value(xp, value, a.dtype)
    return target


def _restride_check(shape, strides, offset, storage_size, itemsize, d, k):
    """ATen's index_fill_ restrides self to advance nowhere along ``d`` with ``k`` (the index's
    length) as its size there: an empty self's view may then reach past its storage, which
    as_strided refuses (``setStorage: ...``) before any index is looked at."""
    sizes, strides = list(shape) or [1], list(strides) or [1]
    sizes[d], strides[d] = k, 0
    if 0 in sizes:
        return
    need = (offset + 1 + sum((s - 1) * st for s, st in zip(sizes, strides))) * itemsize
    if need > storage_size * itemsize:
        raise RuntimeError(
            f"setStorage: sizes {sizes}, strides {strides}, storage offset {offset}, and itemsize "
            f"{itemsize} requiring a storage size of {need} are out of bounds for storage of "
            f"size {storage_size * itemsize}")


def _index_fill_check(target, ins, params):
    """In place: the overlap checks, then the restride of the target itself (a 0-size view
    inside a bigger storage passes it and gets the index's IndexError instead)."""
    _no_overlap(target, ins, params)
    index = ins[2]
    if isinstance(index, Tensor):
        d = layout.wrap_dim(ins[1], max(len(target._shape), 1))
        _restride_check(target._shape, target._strides, target._offset,
                        target._storage.size(), target._dtype.itemsize, d, index.numel())


def _index_fill_bw(c, g):
    gs = g.index_fill(c["dim"], c["index"], 0.0) if c.needs_input_grad[0] else None
    gv = None
    if len(c.needs_input_grad) > 3 and c.needs_input_grad[3]:
        gv = g.index_select(c["dim"], c["index"]).sum()
    return (gs, None, None, gv)


def _value_select(name, pos):
    """Overloads: a Tensor ``value`` is a different node in PyTorch (IndexFillBackward1)."""
    def select(args, kwargs):
        v = args[pos] if len(args) > pos else kwargs.get("value")
        return _VALUE_TENSOR[name] if isinstance(v, Tensor) else None

    return select


_VALUE_TENSOR: dict = {}
_IF = register(OpSpec(name="index_fill", forward=_index_fill_fwd, internal_overlap_ok=True,
                      expanded_warning="tensor[mask] = scalar", backward=_index_fill_bw,
                      args=("self", "dim", "index", "value"), saves=("index",), dtype_rule="self",
                      inplace=True, paddle_inplace=True, inplace_check=_index_fill_check,
                      layout="preserve",  # (ATen: self.clone(Preserve).index_fill_(...))
                      select=_value_select("index_fill", 3)))
_VALUE_TENSOR["index_fill"] = dataclasses.replace(_IF, node_name="IndexFillBackward1", select=None)


def _index_copy_fwd(xp, a, dim, index, source, out=None, dt=None):
    d = layout.wrap_dim(dim, a.ndim)
    idx = _vector_index(index, "index_copy_", xp)
    if index.dtype != np.int64:
        raise IndexError(f"index_copy_(): Expected a long tensor for index, but got {_tn(index)}")
    ns = source.shape[d] if source.ndim else 1
    if idx.size != ns:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({ns})")
    if source.dtype != a.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got "
                           f"(self) {_tn(a)} and (source) {_tn(source)}")
    rest_a = [a.shape[i] for i in range(a.ndim) if i != d]
    rest_s = [source.shape[i] for i in range(source.ndim) if i != d]
    if rest_a != rest_s:
        k = next((i for i, (p, q) in enumerate(zip(rest_a, rest_s)) if p != q), 0)
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
            f"slice shape: {' '.join(map(str, rest_a))} at dimension {k} and source slice shape: "
            f"{' '.join(map(str, rest_s))} at dimension {k}.")
    _check_bounds(idx, a.shape[d], d, xp, IndexError, "index_copy_(): ")
    target = out if out is not None else a.copy()
    target[_slices(a, d, idx)] = source
    return target


register(OpSpec(name="index_copy", forward=_index_copy_fwd,
                backward=lambda c, g: (
                    g.index_fill(c["dim"], c["index"], 0.0) if c.needs_input_grad[0] else None,
                    None, None,
                    g.index_select(c["dim"], c["index"]) if c.needs_input_grad[3] else None),
                args=("self", "dim", "index", "source"), saves=("index", "source"),
                save_if={"source": "source"}, dtype_rule="self",
                inplace=True, paddle_inplace=False, inplace_check=_no_overlap))  # torch only

# ---- masked_fill / masked_select / masked_scatter ---------------------------------------------


def _masked_fill_fwd(xp, a, mask, value, out=None, dt=None):
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{dtypes.cpp_name(dtypes.from_numpy_dtype(mask.dtype))}")
    if isinstance(value, xp.ndarray) and value.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value.ndim} dimension(s).")
    check_value(value, a)
    if out is not None:
        xp.copyto(out, _fill_value(xp, value, out.dtype), where=mask)
        return out
    shape = layout.broadcast_shapes(mask.shape, a.shape)
    return xp.where(mask, _fill_value(xp, value, a.dtype), a).astype(a.dtype).reshape(shape)


def _grad_outside_mask(c, g, m):
    """The grad of ``self`` for masked_fill/masked_scatter: ``g`` where the mask is False (the
    cells the op left alone), summed back to self's shape if the mask broadcast it."""
    if not c.needs_input_grad[0]:
        return None
    gs = g.masked_fill(m, 0.0)
    return gs.sum_to_size(c.input_meta[0][0]) if gs.shape != c.input_meta[0][0] else gs


def _masked_fill_bw(c, g):
    m = c["mask"]
    gv = (g * m).sum() if len(c.needs_input_grad) > 2 and c.needs_input_grad[2] else None
    return (_grad_outside_mask(c, g, m), None, gv)


_MF = register(OpSpec(name="masked_fill", forward=_masked_fill_fwd, internal_overlap_ok=True,
                      expanded_warning="tensor[mask] = scalar", backward=_masked_fill_bw,
                      args=("self", "mask", "value"), saves=("mask",), dtype_rule="self",
                      inplace=True, paddle_inplace=True,
                      select=_value_select("masked_fill", 2)))
_VALUE_TENSOR["masked_fill"] = dataclasses.replace(_MF, node_name="MaskedFillBackward1", select=None,
                                                   overlap_inputs=False)  # (reads value.item())


def _masked_select_fwd(xp, a, mask, out=None, dt=None):
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = layout.broadcast_shapes(a.shape, mask.shape)
    return xp.broadcast_to(a, shape)[xp.broadcast_to(mask, shape)]


def _masked_select_bw(c, g):
    shape, dt, dev = c.input_meta[0]
    m = c["mask"]
    from .. import creation

    full = layout.broadcast_shapes(shape, m.shape)
    z = creation.zeros(full, dtype=g._dtype, device=dev)
    gs = z.masked_scatter(m, g)
    return (gs.sum_to_size(shape) if full != tuple(shape) else gs, None)


register(OpSpec(name="masked_select", forward=_masked_select_fwd, backward=_masked_select_bw,
                grad_writes=1,
                args=("self", "mask"), saves=("self", "mask"), dtype_rule="self"))


def _masked_scatter_dtypes(a, mask, source):
    """ATen's order: the source's dtype, then the mask's (before the mask is expanded)."""
    if source.dtype != a.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{_tn(a)} and {_tn(source)}")
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_tn(mask)}")


def _masked_scatter_fwd(xp, a, mask, source, out=None, dt=None):
    _masked_scatter_dtypes(a, mask, source)
    shape = a.shape if out is not None else layout.broadcast_shapes(a.shape, mask.shape)
    m = xp.broadcast_to(mask, shape)
    k = int(m.sum())
    if k > source.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    target = out if out is not None else xp.array(xp.broadcast_to(a, shape))
    target[m] = source.reshape(-1)[:k]
    return target


def _masked_scatter_bw(c, g):
    m = c["mask"]
    gs = _grad_outside_mask(c, g, m)
    gsrc = None
    if c.needs_input_grad[2]:
        sshape = c.input_meta[2][0]
        n = layout.numel(sshape)
        sel = g.masked_select(m)
        if sel.numel() < n:
            from .. import creation

            sel = cat([sel, creation.zeros(n - sel.numel(), dtype=g._dtype, device=g.device)])
        # (ATen's masked_scatter_backward gives a tensor of its own, not a view of the
        # selection: the engine may then sum a second gradient into it in place, version 1)
        gsrc = sel if tuple(sshape) == sel._shape else \
            Tensor._make(sel._storage, tuple(sshape), layout.contiguous_strides(tuple(sshape)))
        gsrc._policy = g._policy
    return (gs, None, gsrc)


def _mask_fits(target, ins, params):
    """masked_scatter_: the mask expands to the target (the source may have any shape)."""
    mask = ins[1]
    if isinstance(mask, Tensor) and isinstance(ins[2], Tensor):
        _masked_scatter_dtypes(target._a, mask._a, ins[2]._a)
    if isinstance(mask, Tensor) and mask.ndim > target.ndim:
        raise RuntimeError(
            f"expand({policy.aten_type_name(mask)}{{{list(mask.shape)}}}, "
            f"size={list(target.shape)}): the number of sizes provided ({target.ndim}) must be "
            f"greater or equal to the number of dimensions in the tensor ({mask.ndim})")
    if isinstance(mask, Tensor):  # ATen expands the mask to the target: expand's own error
        layout.expand_strides(mask._shape, (0,) * mask.ndim, target._shape)


register(OpSpec(name="masked_scatter", forward=_masked_scatter_fwd, backward=_masked_scatter_bw,
                args=("self", "mask", "source"), saves=("mask",), dtype_rule="self",
                inplace=True, paddle_inplace=True, inplace_check=_mask_fits,
                overlap_inputs=False))  # (numpy's masked assignment copies an overlapping source)

# ---- nonzero / put / take -----------------------------------------------------------------------


def _nonzero_fwd(xp, a, out=None, dt=None):
    return xp.stack(xp.nonzero(a), axis=1).astype(np.int64) if a.ndim else \
        xp.zeros((1 if a.item() else 0, 0), dtype=np.int64)


_NONZERO = OpSpec(name="nonzero", forward=_nonzero_fwd,
                  dtype_rule=lambda spec, ins, params: dtypes.int64)


def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the non-zero elements, shape [n, ndim] (not differentiable: no grad_fn)."""
    res = dispatch.call(_NONZERO, (input,), {} if out is None else {"out": out})
    if not as_tuple:
        return res
    if input.ndim == 0:
        return (res.reshape(-1),)
    return tuple(res[:, k].contiguous() for k in range(input.ndim))


register(OpSpec(name="nonzero", forward=nonzero, kind="composite", doc=nonzero.__doc__))


def _long_index(index, fname):
    if index.dtype != np.int64:
        raise RuntimeError(f"{fname}(): Expected a long tensor for index, but got {_tn(index)}")


def _flat_index(index, n, xp, fname):
    """ATen's put_/take checks after the dtype ones: the empty self, then (the kernel's) bounds."""
    _long_index(index, fname)
    idx = index.reshape(-1)
    if n == 0 and idx.size:
        raise IndexError("put_(): Tried to put elements into an empty tensor" if fname == "put_"
                         else "take(): tried to take from an empty tensor")
    if idx.size:
        bad = (idx >= n) | (idx < -n)
        if bad.any():
            v = int(idx[int(xp.argmax(bad))])
            raise IndexError(f"out of range: tried to access index {v} on a tensor of {n} elements.")
    return idx % max(n, 1)


def _put_fwd(xp, a, index, source, out=None, dt=None, accumulate=False):
    _long_index(index, "put_")  # (ATen's order: dtypes, sizes, the empty self, bounds)
    if source.dtype != a.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_tn(a)} and source.dtype = {_tn(source)}")
    if source.size != index.size:
        raise IndexError("put_(): Expected source and index to have the same number of elements, "
                         f"but got source.numel() = {source.size}, index.numel() = {index.size}")
    idx = _flat_index(index, a.size, xp, "put_")
    target = out if out is not None else a.copy()
    flat = target.reshape(-1) if target.flags.c_contiguous else None
    if flat is None:  # a strided target: write through its element positions
        pos = tuple(xp.unravel_index(idx, a.shape))
        if accumulate:
            backend.add_at(xp, target, pos, source.reshape(-1))
        else:
            target[pos] = source.reshape(-1)
        return target
    if accumulate:
        backend.add_at(xp, flat, idx, source.reshape(-1))
    else:
        flat[idx] = source.reshape(-1)
    return target


def _put_bw(c, g):
    idx = c["index"]
    gs = None
    if c.needs_input_grad[0]:
        gs = g if c["accumulate"] else g.put(idx, _zeros(c.input_meta[2], g), False)
    gsrc = g.take(idx).reshape(c.input_meta[2][0]) if c.needs_input_grad[2] else None
    return (gs, None, gsrc)


def _zeros(meta, like):
    from .. import creation

    return creation.zeros(meta[0], dtype=like._dtype, device=like.device)


register(OpSpec(name="put", forward=_put_fwd, backward=_put_bw, args=("self", "index", "source"),
                params={"accumulate": False}, saves=("index", "source"),
                save_if={"source": "source"}, dtype_rule="self", inplace=True,
                inplace_check=_no_overlap, out=False))


def _take_fwd(xp, a, index, out=None, dt=None):
    idx = _flat_index(index, a.size, xp, "take")
    return a.reshape(-1)[idx].reshape(index.shape)


def _take_bw(c, g):
    shape, dt, dev = c.input_meta[0]
    from .. import creation

    z = creation.zeros(shape, dtype=g._dtype, device=dev)
    return (z.put(c["index"], g, True), None)


register(OpSpec(name="take", forward=_take_fwd, backward=_take_bw, args=("self", "index"),
                grad_writes=1,
                saves=("index", "self"), dtype_rule="self"))  # (self: torch's take_backward)


# The reductions (scatter_reduce, index_reduce) build on the helpers above: their own file.
from . import scatter_reduce  # noqa: E402,F401  (registers scatter_reduce and index_reduce)
