"""View ops: new (shape, strides, offset) over the same storage, as PyTorch defines them.

A view op's forward computes geometry only (``layout`` maths); no element is
copied. Its backward sends the gradient back into the input's shape: reshape-
and permute-like views reshape/permute it back, every other view scatters it
into the cells it covers (``scatter_to_geometry``), one mechanism for all.
"""
from __future__ import annotations

from .. import backend, layout
from ..autograd import grad_mode
from .table import OPS, OpSpec, register


def _geo(t):
    return (t._shape, t._strides, t._offset)


def _int(v):
    return int(v)


def _scatter_back(c, g):
    in_geo, geo = c.op_meta.get("logical") or (c.op_meta["in_geo"], c.op_meta["geometry"])
    return (scatter_to_geometry(g, in_geo, geo),)


class _Standin:
    """A C-contiguous tensor's geometry and nothing else: what the view functions read."""

    def __init__(self, shape, dtype):
        self._shape, self._dtype, self._offset = shape, dtype, 0
        self._strides = layout.contiguous_strides(shape)
        self.ndim, self.itemsize = len(shape), dtype.itemsize
        self._storage = self

    def numel(self):
        return layout.numel(self._shape)

    size = numel  # (as the storage: as many cells as elements)


def logical_geometry(spec, src, ins, params):
    """For a view of ``src`` whose elements share cells (an expanded tensor), the view's
    geometry on a contiguous stand-in of ``src``, with that stand-in's: the view's elements by
    ``src``'s index rather than by cell. PyTorch's view backwards work by index
    (slice_backward: ``zeros(sizes).slice(...).copy_(grad)``), so a hook on ``src`` sees the
    gradient where the view read it, not spread over every element sharing its cell. None
    where the cells tell the same (no stride 0: the common case, one test)."""
    if 0 not in src._strides or not layout.has_internal_overlap(src._shape, src._strides):
        return None
    stand = _Standin(src._shape, src._dtype)
    geo = spec.forward(stand, *params["sizes"]) if spec.variadic else \
        spec.forward(stand, *ins[1:], **params)
    return (stand._shape, stand._strides, 0), geo


def _reshape_back(c, g):
    return (g.reshape(c.input_meta[0][0]),)


def _squeeze_back(c, g):
    """torch's unsqueeze_to: the gradient itself when the squeeze removed nothing."""
    shape = c.input_meta[0][0]
    return (g if g._shape == shape else g.reshape(shape),)


def view_op(name, fwd, backward=_scatter_back, node_name="", **kw):
    return register(OpSpec(name=name, forward=fwd, backward=backward, kind="view", out=False,
                           node_name=node_name, **kw))


# ---- reshape family ----------------------------------------------------------------------------

def _view_geo(t, *shape):
    shape = layout.infer_size(layout.dims_arg(shape), t.numel())
    st = layout.view_strides(t._shape, t._strides, shape)
    if st is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return shape, st, t._offset


view_op("view", _view_geo, _reshape_back, node_name="ViewBackward0", variadic=True)
# reshape's view of a non-contiguous tensor (torch's _reshape_alias: the same view, its own node)
view_op("_reshape_alias", _view_geo, _reshape_back, node_name="ReshapeAliasBackward0",
        variadic=True, method=False, function=False)


def _squeeze_geo(t, dim=None):
    if dim is None:
        keep = [i for i, n in enumerate(t._shape) if n != 1]
    else:
        dims = dim if isinstance(dim, (list, tuple)) else (dim,)
        dims = {layout.wrap_dim(d, t.ndim) for d in dims} if t.ndim else set()
        keep = [i for i, n in enumerate(t._shape) if not (i in dims and n == 1)]
    return tuple(t._shape[i] for i in keep), tuple(t._strides[i] for i in keep), t._offset


def _squeeze_overload(args, kwargs):
    """PyTorch's three overloads: squeeze() -> 0, squeeze(dim) -> 1, squeeze(dims) -> 2."""
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if dim is None:
        return None
    return OPS["_squeeze_dims" if isinstance(dim, (list, tuple)) else "_squeeze_dim"]


view_op("squeeze", _squeeze_geo, _squeeze_back, params={"dim": None}, node_name="SqueezeBackward0",
        select=_squeeze_overload)
for _n, _node in (("_squeeze_dim", "SqueezeBackward1"), ("_squeeze_dims", "SqueezeBackward2")):
    view_op(_n, _squeeze_geo, _squeeze_back, params={"dim": None}, node_name=_node,
            method=False, function=False)

# The in-place metadata forms (``y.t_()``) record the op's second overload in PyTorch.
INPLACE_NODE_NAMES = {
    "t": "TBackward1", "transpose": "TransposeBackward1", "swapaxes": "TransposeBackward1",
    "swapdims": "TransposeBackward1", "unsqueeze": "UnsqueezeBackward1",
    "as_strided": "AsStridedBackward1", "squeeze": "SqueezeBackward3",
    "_squeeze_dim": "SqueezeBackward4", "_squeeze_dims": "SqueezeBackward5",
}


def _unsqueeze_geo(t, dim):
    d = layout.wrap_dim(dim, t.ndim + 1)
    shape = list(t._shape)
    strides = list(t._strides)
    st = shape[d] * strides[d] if d < t.ndim else 1
    shape.insert(d, 1)
    strides.insert(d, st)
    return tuple(shape), tuple(strides), t._offset


view_op("unsqueeze", _unsqueeze_geo, _reshape_back, params={"dim": 0}, node_name="UnsqueezeBackward0")


def _unflatten_geo(t, dim, sizes):
    d = layout.wrap_dim(dim, t.ndim)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) <= 1 and (layout.numel(n for n in sizes if n != -1) or -1 not in sizes):
        known = layout.numel(n for n in sizes if n != -1)
        if (known != t._shape[d]) if -1 not in sizes else (t._shape[d] % known):
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{dim} ({t._shape[d]}) in the input tensor")
    sizes = layout.infer_size(sizes, t._shape[d])
    new = t._shape[:d] + tuple(sizes) + t._shape[d + 1:]
    return _view_geo(t, *new)


view_op("unflatten", _unflatten_geo, _reshape_back, params={"dim": 0, "sizes": ()},
        node_name="ViewBackward0")


register(OpSpec(name="_unsafe_view", forward=None, backward=_reshape_back, method=False,
                function=False, out=False, node_name="UnsafeViewBackward0"))


def _alias_geo(t):
    return _geo(t)


view_op("alias", _alias_geo, lambda c, g: (g,), node_name="AliasBackward0")

# ---- permutations ------------------------------------------------------------------------------


def _permute_geo(t, *dims):
    dims = layout.dims_arg(dims)
    shape, strides = t._shape, t._strides
    n = len(shape)
    if len(dims) != n:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not "
            f"equal to len(dims) = {len(dims)}")
    if not all(d.__class__ is int and 0 <= d < n for d in dims):  # (in range: nothing to wrap)
        dims = tuple([layout.wrap_dim(d, n) for d in dims])
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return tuple([shape[d] for d in dims]), tuple([strides[d] for d in dims]), t._offset


def _inverse_perm_back(c, g):
    perm = c.op_meta["perm"]
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return (g.permute(inv),)


def _perm_of(t, dims):
    return tuple(layout.wrap_dim(d, t.ndim) for d in layout.dims_arg(dims))


def _transpose_perm(t, dim0, dim1):
    perm = list(range(t.ndim))
    if t.ndim:
        a, b = layout.wrap_dim(dim0, t.ndim), layout.wrap_dim(dim1, t.ndim)
        perm[a], perm[b] = perm[b], perm[a]
    return tuple(perm)


def _t_perm(t):
    n = len(t._shape)
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return _T_PERMS[n]


_T_PERMS = ((), (0,), (1, 0))


def _movedim_perm(t, source, destination):
    src = source if isinstance(source, (list, tuple)) else [source]
    dst = destination if isinstance(destination, (list, tuple)) else [destination]
    src = [layout.wrap_dim(d, t.ndim) for d in src]
    dst = [layout.wrap_dim(d, t.ndim) for d in dst]
    perm = [-1] * t.ndim
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(d for d in range(t.ndim) if d not in src)
    return tuple(p if p != -1 else next(rest) for p in perm)


def _mT_perm(t):
    if t.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    p = list(range(t.ndim))
    p[-1], p[-2] = p[-2], p[-1]
    return tuple(p)


PERMUTES = {  # name -> (perm from args, node name, params)
    "permute": (lambda t, *dims: _perm_of(t, dims), "PermuteBackward0", {}),
    "transpose": (_transpose_perm, "TransposeBackward0", {"dim0": 0, "dim1": 1}),
    "swapaxes": (_transpose_perm, "TransposeBackward0", {"axis0": 0, "axis1": 1}),
    "swapdims": (_transpose_perm, "TransposeBackward0", {"dim0": 0, "dim1": 1}),
    "t": (_t_perm, "TBackward0", {}),
    "movedim": (_movedim_perm, "PermuteBackward0", {"source": 0, "destination": 0}),
    "moveaxis": (_movedim_perm, "PermuteBackward0", {"source": 0, "destination": 0}),
    "mT": (_mT_perm, "TransposeBackward0", {}),
}


def _make_perm_fwd(perm_fn):
    def fwd(t, *args, **params):
        perm = perm_fn(t, *args, *params.values())
        return _permute_geo(t, perm)

    return fwd


for _name, (_pf, _node, _params) in PERMUTES.items():
    view_op(_name, _make_perm_fwd(_pf), _inverse_perm_back, params=_params, node_name=_node,
            method=_name != "mT", perm_of=_pf, variadic=_name == "permute")

# ---- slicing -----------------------------------------------------------------------------------


def _select_geo(t, dim, index):
    if t.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = layout.wrap_dim(dim, t.ndim)
    n = t._shape[d]
    i = _int(index)
    if not -n <= i < n:
        raise IndexError(f"select(): index {i} out of range for tensor of size {list(t._shape)} "
                         f"at dimension {d}")
    i %= n
    return (t._shape[:d] + t._shape[d + 1:], t._strides[:d] + t._strides[d + 1:],
            t._offset + i * t._strides[d])


view_op("select", _select_geo, params={"dim": 0, "index": 0}, node_name="SelectBackward0")


def _slice_geo(t, dim=0, start=None, end=None, step=1):
    d = layout.wrap_dim(dim, t.ndim)
    n = t._shape[d]
    step = 1 if step is None else _int(step)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start, end, _ = slice(None if start is None else _int(start),
                          None if end is None else _int(end)).indices(n)
    length = max(0, (end - start + step - 1) // step)
    shape = list(t._shape)
    strides = list(t._strides)
    shape[d] = length
    strides[d] = t._strides[d] * step
    return tuple(shape), tuple(strides), t._offset + start * t._strides[d]  # even when empty


view_op("slice", _slice_geo, params={"dim": 0, "start": None, "end": None, "step": 1},
        node_name="SliceBackward0", method=False, function=False)


def _narrow_geo(t, dim, start, length):
    if not t.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = layout.wrap_dim(dim, t.ndim)
    n = t._shape[d]
    start, length = _int(start), _int(length)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return _slice_geo(t, d, start, start + _int(length), 1)


view_op("narrow", _narrow_geo, params={"dim": 0, "start": 0, "length": 0}, node_name="SliceBackward0")


def _diagonal_geo(t, offset=0, dim1=0, dim2=1):
    d1, d2 = layout.wrap_dim(dim1, t.ndim), layout.wrap_dim(dim2, t.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    off = t._offset
    if offset >= 0:
        n = max(0, min(t._shape[d1], t._shape[d2] - offset))
        off += offset * t._strides[d2] if n else 0
    else:
        n = max(0, min(t._shape[d1] + offset, t._shape[d2]))
        off += -offset * t._strides[d1] if n else 0
    keep = [i for i in range(t.ndim) if i not in (d1, d2)]
    shape = tuple(t._shape[i] for i in keep) + (n,)
    strides = tuple(t._strides[i] for i in keep) + (t._strides[d1] + t._strides[d2],)
    return shape, strides, off


view_op("diagonal", _diagonal_geo, params={"offset": 0, "dim1": 0, "dim2": 1},
        node_name="DiagonalBackward0")


def _expand_geo(t, *sizes):
    sizes = layout.dims_arg(sizes)
    if len(sizes) < t.ndim:
        raise RuntimeError(
            f"expand(torch.{t._dtype.torch_name}Tensor{{{list(t._shape)}}}, size={list(sizes)}): the "
            f"number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({t.ndim})")
    strides = layout.expand_strides(t._shape, t._strides, sizes)
    off = len(sizes) - t.ndim
    shape = tuple(t._shape[i - off] if (n == -1 and i >= off) else n for i, n in enumerate(sizes))
    return shape, strides, t._offset


def _expand_bw(c, g):
    """PyTorch's at::sum_to: the gradient itself when nothing was expanded, else a keepdim sum
    over the expanded dims, viewed without the leading ones (so the result is a view)."""
    shape = tuple(c.input_meta[0][0])
    if g._shape == shape:
        return (g,)
    if not shape:  # (to a 0-dim tensor: a plain sum)
        return (g.sum(),)
    lead = len(g._shape) - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and g._shape[lead + i] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    return (g.view(shape) if lead else g,)


view_op("expand", _expand_geo, _expand_bw, node_name="ExpandBackward0", variadic=True)


def _unfold_geo(t, dimension, size, step):
    d = layout.wrap_dim(dimension, max(t.ndim, 1)) if t.ndim else 0
    n = t._shape[d] if t.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (n - size) // step + 1
    shape = list(t._shape)
    strides = list(t._strides)
    if t.ndim:
        shape[d] = count
        strides[d] = t._strides[d] * step
    return tuple(shape) + (size,), tuple(strides) + ((t._strides[d] if t.ndim else 1),), t._offset


view_op("unfold", _unfold_geo, params={"dimension": 0, "size": 1, "step": 1},
        node_name="UnfoldBackward0")


def _as_strided_geo(t, size, stride, storage_offset=None):
    off = t._offset if storage_offset is None else _int(storage_offset)
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    need = layout.storage_size_needed(size, stride, off)
    if need > t._storage.size():
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and "
            f"itemsize {t.itemsize} requiring a storage size of {need * t.itemsize} are out of "
            f"bounds for storage of size {t._storage.nbytes()}")
    return size, stride, off


def _as_strided_back(c, g):
    """torch's as_strided_backward: written once (grad_writes) and a view of that buffer."""
    if layout.has_internal_overlap(c.op_meta["in_geo"][0], c.op_meta["in_geo"][1]):
        return (_overlapping_input_grad(g, c.op_meta["in_geo"], c.op_meta["geometry"]),)
    r = scatter_to_geometry(g, c.op_meta["in_geo"], c.op_meta["geometry"])
    return (r if grad_mode.state.enabled else
            as_strided_grad_view(r, c.op_meta["in_geo"], c.op_meta["geometry"]),)


def _overlapping_input_grad(g, in_geo, view_geo):
    """as_strided_backward for an input whose elements share cells (an expanded tensor): the
    gradient is summed into the cells the view covers, each cell's sum divided by how many of
    the input's elements read it, and the input's elements read their cell (ATen's steps 1-4;
    its index_add_ and div_ leave the buffer at version 2). Differentiable (create_graph)."""
    import numpy as np

    from .. import creation

    shape, strides, off = in_geo
    shared = min(off, view_geo[2])
    size = max(layout.storage_size_needed(shape, strides, off - shared),
               layout.storage_size_needed(view_geo[0], view_geo[1], view_geo[2] - shared))

    def cells(geo):
        return creation.tensor(np.asarray(layout.positions(*geo), dtype=np.int64).reshape(-1)
                               - shared, device=g.device)
    buf = creation.zeros(size, dtype=g._dtype, device=g.device)
    buf._policy = g._policy
    count = creation.zeros(size, dtype=g._dtype, device=g.device)
    inp = cells(in_geo)
    count = count.index_add(0, inp, creation.ones(inp._shape, dtype=g._dtype, device=g.device))
    r = (buf.index_add(0, cells(view_geo), g.reshape(-1)) / count)  # (0/0 outside: unseen)
    if not grad_mode.state.enabled:
        r._vc.bump()  # (ATen's div_: the second write; grad_writes counts the first)
    return r.as_strided(shape, strides, off - shared)


def as_strided_grad_view(r, in_geo, view_geo):
    """What ATen's as_strided_backward returns for the gradient ``r`` (laid out contiguously
    here): its zeroed buffer, spanning the input's and the view's cells from the lower of
    their offsets, viewed with the *input's* geometry. So the gradient of a transposed input
    comes out transposed (and the leaf behind it steals it), and it is a view: the engine adds
    no second gradient into it in place."""
    shape, strides, off = in_geo
    if layout.is_contiguous(shape, strides) or not layout.numel(shape):
        return r.view(r._shape)
    from .. import creation

    shared = min(off, view_geo[2])
    size = max(layout.storage_size_needed(shape, strides, off - shared),
               layout.storage_size_needed(view_geo[0], view_geo[1], view_geo[2] - shared))
    buf = creation.zeros(size, dtype=r._dtype, device=r.device)
    buf._policy = r._policy
    out = buf.as_strided(shape, strides, off - shared)
    out._a[...] = r._a
    return out


view_op("as_strided", _as_strided_geo, params={"size": (), "stride": (), "storage_offset": None},
        backward=_as_strided_back, node_name="AsStridedBackward0", grad_writes=1)

# ---- multi-output views ------------------------------------------------------------------------


def _split_geos(t, split_size_or_sections, dim=0):
    d = layout.wrap_dim(dim, t.ndim)
    n = t._shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                f"at dimension {d}), but got split_sizes={sizes}")
    else:
        s = int(split_size_or_sections)
        if s <= 0 and n:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={s}")
        sizes = [min(s, n - i) for i in range(0, n, s)] if n else [0]
    geos, start = [], 0
    for s in sizes:
        geos.append(_slice_geo(t, d, start, start + s, 1))
        start += s
    return geos


def _multi_back(c, *grads):
    g_in = None
    in_geo, geos = c.op_meta.get("logical") or (c.op_meta["in_geo"], c.op_meta["geometry"])
    for geo, g in zip(geos, grads):
        if g is None:
            continue
        part = scatter_to_geometry(g, in_geo, geo)
        g_in = part if g_in is None else g_in + part
    return (g_in,)


def _chunk_geos(t, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = layout.wrap_dim(dim, t.ndim)
    n = t._shape[d]
    size = -(-n // chunks) if n else 0
    return _split_geos(t, max(size, 1) if n else 1, d) if n else [_slice_geo(t, d, 0, 0, 1)]


def _unbind_geos(t, dim=0):
    d = layout.wrap_dim(dim, t.ndim)
    return [_select_geo(t, d, i) for i in range(t._shape[d])]


def _split_overload(args, kwargs):
    sizes = args[1] if len(args) > 1 else kwargs.get("split_size_or_sections")
    return OPS["_split_with_sizes"] if isinstance(sizes, (list, tuple)) else None


view_op("split", _split_geos, _multi_back, params={"split_size_or_sections": 1, "dim": 0},
        node_name="SplitBackward0", multi_output=True, select=_split_overload)
view_op("_split_with_sizes", _split_geos, _multi_back,
        params={"split_size_or_sections": 1, "dim": 0}, node_name="SplitWithSizesBackward0",
        multi_output=True, method=False, function=False)
view_op("chunk", _chunk_geos, _multi_back, params={"chunks": 1, "dim": 0},
        node_name="SplitBackward0", multi_output=True)
view_op("unbind", _unbind_geos, _multi_back, params={"dim": 0}, node_name="UnbindBackward0",
        multi_output=True)

# ---- gradient plumbing for views: scatter / gather by cells -------------------------------------


def _scatter_fwd(xp, g, out=None, dt=None, in_geo=None, view_geo=None):
    idx = layout.element_index_map(in_geo, view_geo)
    res = xp.zeros(layout.numel(in_geo[0]), dtype=g.dtype)
    gv = g.reshape(-1)
    inside = idx >= 0
    if not inside.all():  # cells outside the input (as_strided): their gradient goes nowhere
        idx, gv = idx[inside], gv[xp.asarray(inside)]
    idx = xp.asarray(idx)
    if layout.has_internal_overlap(view_geo[0], view_geo[1]):
        backend.add_at(xp, res, idx, gv)
    else:
        res[idx] = gv
    return res.reshape(in_geo[0])


def _gather_fwd(xp, g, out=None, dt=None, in_geo=None, view_geo=None):
    idx = layout.element_index_map(in_geo, view_geo)
    res = g.reshape(-1)[xp.asarray(idx.clip(0))]
    if (idx < 0).any():  # cells outside the input get zero
        res[xp.asarray(idx < 0)] = 0
    return res.reshape(view_geo[0])


register(OpSpec(name="scatter_to_geometry", forward=_scatter_fwd, dtype_rule="self", method=False,
                function=False, params={"in_geo": None, "view_geo": None},
                node_name="AsStridedScatterBackward0",
                backward=lambda c, g: (gather_from_geometry(g, c["in_geo"], c["view_geo"]),)))
register(OpSpec(name="gather_from_geometry", forward=_gather_fwd, dtype_rule="self", method=False,
                function=False, params={"in_geo": None, "view_geo": None},
                node_name="AsStridedBackward0",
                backward=lambda c, g: (scatter_to_geometry(g, c["in_geo"], c["view_geo"]),)))


def scatter_to_geometry(g, in_geo, view_geo):
    """A gradient of the input's shape, zero except ``g`` in the view's cells (summed on overlap)."""
    from .dispatch import call

    return call(OPS["scatter_to_geometry"], (g,), {"in_geo": in_geo, "view_geo": view_geo})


def gather_from_geometry(g, in_geo, view_geo):
    from .dispatch import call

    return call(OPS["gather_from_geometry"], (g,), {"in_geo": in_geo, "view_geo": view_geo})
