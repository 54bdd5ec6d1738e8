"""Copies that join or rearrange whole tensors: cat, stack, hstack, vstack, flip, roll, repeat, tile.

Every result here is a *copy* (new storage, ``_base`` None), unlike the views of
``shape.py``. ``cat``/``stack`` take a *list*: each tensor in it is one input of
the node (one edge, one gradient), so the public names are composites that call
a per-length kernel spec, as ``matmul`` in ``linalg.py`` composes table ops.

Index- and mask-driven copies (gather, scatter, index_*, masked_*, put, take)
live in ``gather_scatter.py``.
"""
from __future__ import annotations

import dataclasses

from .. import layout
from ..autograd import grad_mode
from ..tensor import Tensor
from . import dispatch
from .table import OpSpec, register


def _g_to(g, meta):
    """A gradient cast back to an input's dtype (cat of float and double)."""
    if meta is not None and g._dtype is not meta[1] and meta[1].is_floating_point:
        return g.to(meta[1])
    return g


# ---- cat, stack (one input per tensor of the list) ---------------------------------------------

def _cat_fwd(xp, *arrays, out=None, dt=None, dim=0):
    parts = [a for a in arrays if not (a.ndim == 1 and a.shape[0] == 0)]  # legacy: skip [0]
    if not parts:
        return xp.zeros((0,), dtype=dt.np)
    ref = parts[0]
    d = layout.wrap_dim(dim, ref.ndim)
    for k, a in enumerate(arrays):
        if a.ndim == 1 and a.shape[0] == 0:
            continue
        if a.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {a.ndim}")
        for i in range(ref.ndim):
            if i != d and a.shape[i] != ref.shape[i]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref.shape[i]} but got size {a.shape[i]} for tensor number {k} in the list.")
    return xp.concatenate([a.astype(dt.np, copy=False) for a in parts], axis=d)


def _cat_bw(c, g):
    sizes = [m[0] for m in c.input_meta]
    ref = next((s for s in sizes if s != (0,)), sizes[0])
    d = layout.wrap_dim(c["dim"], len(ref))
    out, start = [], 0
    for i, s in enumerate(sizes):
        if s == (0,) and len(ref) != 1:  # a skipped legacy empty input gets no gradient
            out.append(None)
            continue
        out.append(_g_to(g.narrow(d, start, s[d]), c.input_meta[i]) if c.needs_input_grad[i]
                   else None)
        start += s[d]
    return tuple(out)


def _stack_fwd(xp, *arrays, out=None, dt=None, dim=0):
    d = layout.wrap_dim(dim, arrays[0].ndim + 1)
    for k, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(arrays[0].shape)} at entry 0 and {list(a.shape)} at entry {k}")
    return xp.stack([a.astype(dt.np, copy=False) for a in arrays], axis=d)


def _stack_bw(c, g):
    d = layout.wrap_dim(c["dim"], len(c.input_meta[0][0]) + 1)
    return tuple(_g_to(g.select(d, i), c.input_meta[i]) if c.needs_input_grad[i] else None
                 for i in range(len(c.input_meta)))


_CAT = OpSpec(name="cat", forward=_cat_fwd, backward=_cat_bw, params={"dim": 0},
              node_name="CatBackward0")
_STACK = OpSpec(name="stack", forward=_stack_fwd, backward=_stack_bw, params={"dim": 0},
                node_name="StackBackward0")
_ARITY: dict = {}


def _of_list(base: OpSpec, tensors) -> OpSpec:
    """The kernel spec for a list of n tensors: args ``tensors[0] .. tensors[n-1]``."""
    n = len(tensors)
    key = (base.name, n)
    if key not in _ARITY:
        _ARITY[key] = dataclasses.replace(base, args=tuple(f"tensors[{i}]" for i in range(n)))
    return _ARITY[key]


def _tensor_list(tensors, fname):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    return list(tensors)


def cat(tensors, dim=0, *, axis=None, out=None):
    """Join along an existing dim (CatBackward0: one gradient slice per input)."""
    ts = _tensor_list(tensors, "cat")
    if not ts:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for k, t in enumerate(ts):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    kw = {"dim": dim if axis is None else axis}
    if out is not None:
        kw["out"] = out
    return dispatch.call(_of_list(_CAT, ts), tuple(ts), kw)


def stack(tensors, dim=0, *, out=None):
    """Join along a new dim (StackBackward0)."""
    ts = _tensor_list(tensors, "stack")
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    kw = {"dim": dim} if out is None else {"dim": dim, "out": out}
    return dispatch.call(_of_list(_STACK, ts), tuple(ts), kw)


def hstack(tensors, *, out=None):
    """cat of atleast_1d inputs: along dim 0 for 1-D inputs, else dim 1 (CatBackward0)."""
    ts = [t.reshape(1) if t.ndim == 0 else t for t in _tensor_list(tensors, "hstack")]
    return cat(ts, 0 if ts and ts[0].ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """cat along dim 0 of atleast_2d inputs (1-D inputs become rows through unsqueeze views)."""
    ts = []
    for t in _tensor_list(tensors, "vstack"):
        if t.ndim == 0:
            t = t.reshape(1, 1)
        elif t.ndim == 1:
            t = t.unsqueeze(0)
        ts.append(t)
    return cat(ts, 0, out=out)


def _as_block(a):
    return a.reshape(1, 1) if a.ndim == 0 else (a.reshape(1, -1) if a.ndim == 1 else a)


def _block_diag_fwd(xp, *arrays, out=None, dt=None):
    blocks = [_as_block(a) for a in arrays]
    res = xp.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)),
                   dtype=dt.np)
    r = c = 0
    for b in blocks:
        res[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return res


def _block_diag_bw(c, g):
    out, r, k = [], 0, 0
    for i, meta in enumerate(c.input_meta):
        shape = meta[0]
        h, w = (1, 1) if len(shape) == 0 else ((1, shape[0]) if len(shape) == 1 else shape)
        out.append(_g_to(g[r:r + h, k:k + w].reshape(shape), meta)
                   if c.needs_input_grad[i] else None)
        r, k = r + h, k + w
    return tuple(out)


_BLOCK_DIAG = OpSpec(name="block_diag", forward=_block_diag_fwd, backward=_block_diag_bw,
                     node_name="BlockDiagBackward0")


def block_diag(*tensors):
    """The inputs (0-, 1- or 2-d) as the blocks of one block-diagonal matrix (BlockDiagBackward0)."""
    for k, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {k} has {t.ndim} dimensions")
    if not tensors:
        from .. import creation

        return creation.empty(1, 0)
    return dispatch.call(_of_list(_BLOCK_DIAG, tensors), tuple(tensors), {})


for _f, _al in ((cat, ("concat", "concatenate")), (stack, ()), (hstack, ()), (vstack, ())):
    register(OpSpec(name=_f.__name__, forward=_f, kind="composite", args=("tensors",),
                    method=False, aliases=_al, doc=_f.__doc__))
register(OpSpec(name="block_diag", forward=block_diag, kind="composite", args=("tensors",),
                method=False, doc=block_diag.__doc__))

# ---- flip / roll / repeat / tile ---------------------------------------------------------------


def _flip_fwd(xp, a, out=None, dt=None, dims=()):
    ds = [layout.wrap_dim(d, a.ndim) for d in dims]
    for d in ds:
        if ds.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return xp.flip(a, axis=tuple(ds)).copy() if ds else a.copy()


_FLIP = OpSpec(name="flip", forward=_flip_fwd, backward=lambda c, g: g.flip(c["dims"]),
               params={"dims": ()}, dtype_rule="self", node_name="FlipBackward0")


def flip(input, *dims, out=None):
    """A reversed copy (not a view: PyTorch has no negative strides). FlipBackward0."""
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    kw = {"dims": layout.dims_arg(dims)} if out is None else {"dims": layout.dims_arg(dims), "out": out}
    return dispatch.call(_FLIP, (input,), kw)


def _roll_fwd(xp, a, out=None, dt=None, shifts=(), dims=()):
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims and len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if not dims:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return xp.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    return xp.roll(a, shifts, axis=tuple(layout.wrap_dim(d, a.ndim) for d in dims))


_ROLL = OpSpec(name="roll", forward=_roll_fwd,
               backward=lambda c, g: g.roll(tuple(-s for s in c["shifts"]), c["dims"] or None),
               params={"shifts": (), "dims": ()}, dtype_rule="self", node_name="RollBackward0")


def roll(input, shifts, dims=None):
    """Shift elements cyclically along dims (all elements, flattened, when dims is None)."""
    sh = tuple(shifts) if isinstance(shifts, (list, tuple)) else (shifts,)
    ds = () if dims is None else (tuple(dims) if isinstance(dims, (list, tuple)) else (dims,))
    return dispatch.call(_ROLL, (input,), {"shifts": sh, "dims": ds})


def _repeat_fwd(xp, a, out=None, dt=None, repeats=()):
    if len(repeats) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    lead = len(repeats) - a.ndim
    shape = (1,) * lead + tuple(a.shape)
    final = [n * r for n, r in zip(shape, repeats)]
    if any(r < 0 for r in repeats):
        bad = min(final)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {final}")
    return xp.tile(a.reshape(shape), repeats)


def _repeat_bw(c, g):
    shape = c.input_meta[0][0]
    reps = c["repeats"]
    lead = len(reps) - len(shape)
    full = (1,) * lead + tuple(shape)
    split = []
    for n, r in zip(full, reps):
        split += [r, n]
    gs = g.reshape(split).sum(tuple(range(0, 2 * len(reps), 2)))
    return gs.reshape(shape)


_REPEAT = OpSpec(name="repeat", forward=_repeat_fwd, backward=_repeat_bw, params={"repeats": ()},
                 dtype_rule="self", node_name="RepeatBackward0")


def _repeat(input, repeats):
    out = dispatch.call(_REPEAT, (input,), {"repeats": repeats})
    if input._vc.inference and not grad_mode.state.inference and out.numel():
        # PyTorch's repeat writes its result through an alias of it; from an inference tensor
        # outside inference_mode (no autograd kernel around the op) that alias is what comes
        # back: a view (`_is_view()`, `_base` its hidden result) whose copy bumped the shared
        # version to 1, as torch 2.13 returns
        v = out.view(out.shape)
        v._vc.bump()
        return v
    return out


def repeat(input, *sizes):
    """Tile the data ``sizes`` times (a copy; ``expand`` is the no-copy view). RepeatBackward0."""
    return _repeat(input, layout.dims_arg(sizes, "repeat"))


def tile(input, *dims):
    """``repeat`` with missing leading repeats filled by 1 (RepeatBackward0)."""
    ds = layout.dims_arg(dims)
    ds = (1,) * (input.ndim - len(ds)) + tuple(ds)
    return _repeat(input, ds)


register(OpSpec(name="flip", forward=flip, kind="composite", doc=flip.__doc__))
register(OpSpec(name="roll", forward=roll, kind="composite", doc=roll.__doc__))
register(OpSpec(name="repeat", forward=repeat, kind="composite", function=False, doc=repeat.__doc__))
register(OpSpec(name="tile", forward=tile, kind="composite", doc=tile.__doc__))
