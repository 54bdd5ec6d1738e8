"""Ops that Paddle's in-place API needed first: diagonal fills, put_along_axis, renorm.

``fill_diagonal`` and ``renorm`` exist in both frameworks (``Tensor.fill_diagonal_``,
``Tensor.renorm_``); ``fill_diagonal_tensor`` and ``put_along_axis`` are Paddle's
(PyTorch spells them ``diagonal_scatter`` and ``scatter``/``scatter_reduce``);
``embedding_renorm`` is ``torch.embedding_renorm_`` and Paddle's
``nn.functional.embedding_renorm_`` (argument order differs; the paddle facade swaps).

What the backwards save is what decides the in-place story, as everywhere:

- ``fill_diagonal`` and ``fill_diagonal_tensor`` save nothing: the gradient is the
  incoming one with the filled cells zeroed, so filling in place is free.
- ``put_along_axis`` saves arr, its index and the result (as Paddle's node): so
  ``y.put_along_axis_(i, v, 1)`` clones y first and keeps backward working, while writing
  to arr or the result afterwards breaks it. mul/amax/amin also save the values. (Paddle
  checks neither the index's version nor the values'; a write to them is caught here.)
- ``renorm`` saves its input (the norm of each slice is differentiated), so
  ``y.renorm_(...)`` clones y before overwriting it.

>>> import inplace_lab as il
>>> x = il.ones(3, 3)
>>> x.fill_diagonal_(0.0)._version, x.diagonal().tolist()
(1, [0.0, 0.0, 0.0])
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from .. import backend, layout
from ..tensor import Tensor
from .gather_scatter import _check_bounds, _grid
from .table import OpSpec, register


# ---- fill_diagonal ------------------------------------------------------------------------------

def _diagonal_cells(shape, offset=0, wrap=False):
    """Flat (row-major) positions of the cells ``fill_diagonal_`` writes, as both kernels do.

    One step is the sum of the contiguous strides (``ncols + 1`` for a matrix); without
    ``wrap`` a tall matrix stops after ``ncols`` rows; ``offset`` shifts along a row and
    never crosses into the next one (Paddle's kernel; PyTorch has offset 0).
    """
    step, acc = 0, 1
    for n in reversed(shape):
        step, acc = step + acc, acc * n
    size = layout.numel(shape)
    cols = shape[1]
    if not wrap:
        size = min(size, cols * cols)
    return [i + offset for i in range(0, size, max(step, 1)) if 0 <= i % cols + offset < cols]


def _fill_diagonal_check(shape):
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and any(n != shape[0] for n in shape):
        raise RuntimeError("all dimensions of input must be of equal length")


def _fill_diagonal_fwd(xp, a, out=None, dt=None, fill_value=0.0, wrap=False, offset=0):
    _fill_diagonal_check(a.shape)
    target = out if out is not None else a.copy()
    cells = _diagonal_cells(a.shape, offset, wrap or a.ndim > 2)
    if cells:
        target[np.unravel_index(np.array(cells), a.shape)] = fill_value
    return target


def _fill_diagonal_bw(c, g):
    shape = c.input_meta[0][0]
    mask = np.ones(shape, dtype=g._dtype.np)
    _fill_diagonal_fwd(np, mask, out=mask, fill_value=0, wrap=c["wrap"], offset=c["offset"])
    return (g * Tensor._wrap(_on(g, mask), g.device),)


def _on(g, arr):
    from .. import backend

    return backend.xp_of(g.device).asarray(arr)


register(OpSpec(name="fill_diagonal", forward=_fill_diagonal_fwd, backward=_fill_diagonal_bw,
                params={"fill_value": 0.0, "wrap": False, "offset": 0}, dtype_rule="self",
                inplace=True, torch_inplace=True, paddle_inplace=True, method=False,
                function=False, out=False, inplace_check=lambda t, ins, p: None,
                internal_overlap_ok=True,  # torch fills an expanded target (one cell, many views)
                doc="x.fill_diagonal_(fill_value, wrap=False) (Paddle: value, offset, wrap); "
                    "saves nothing."))


# ---- fill_diagonal_tensor (Paddle) --------------------------------------------------------------

def _diag_geometry(shape, offset, dim1, dim2):
    nd = len(shape)
    d1, d2 = layout.wrap_dim(dim1, nd), layout.wrap_dim(dim2, nd)
    n = max(0, min(shape[d1], shape[d1] + offset, shape[d2], shape[d2] - offset))
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    batch = [s for i, s in enumerate(shape) if i not in (d1, d2)]
    return d1, d2, rows, cols, batch + [n]


def _fill_diagonal_tensor_check(target, ins, params):
    shape = target._shape
    if len(shape) < 2:
        raise AssertionError("Tensor dims should >= 2 in fill_diagonal_tensor_")
    *_, want = _diag_geometry(shape, params["offset"], params["dim1"], params["dim2"])
    if list(ins[1]._shape) != want:
        raise AssertionError(f"the y shape should be {want}")


def _fill_diagonal_tensor_fwd(xp, a, src, out=None, dt=None, offset=0, dim1=0, dim2=1):
    d1, d2, rows, cols, _ = _diag_geometry(a.shape, offset, dim1, dim2)
    target = out if out is not None else a.copy()
    moved = xp.moveaxis(target, (d1, d2), (-2, -1))  # a view: writes land in target
    moved[..., xp.asarray(rows), xp.asarray(cols)] = src
    return target


def _fill_diagonal_tensor_bw(c, g):
    shape = c.input_meta[0][0]
    mask = np.ones(shape, dtype=g._dtype.np)
    _fill_diagonal_tensor_fwd(np, mask, 0, out=mask, offset=c["offset"], dim1=c["dim1"],
                              dim2=c["dim2"])
    return (g * Tensor._wrap(_on(g, mask), g.device), None)  # Paddle gives y no gradient


register(OpSpec(name="fill_diagonal_tensor", forward=_fill_diagonal_tensor_fwd,
                backward=_fill_diagonal_tensor_bw, args=("self", "src"), nondiff=("src",),
                params={"offset": 0, "dim1": 0, "dim2": 1}, dtype_rule="self", inplace=True,
                torch_inplace=False, paddle_inplace=True,
                inplace_check=_fill_diagonal_tensor_check,
                doc="Paddle's fill_diagonal_tensor(x, y, offset, dim1, dim2): y along a "
                    "diagonal; saves nothing; y gets no gradient (as Paddle 3.3.1)."))


# ---- put_along_axis (Paddle) --------------------------------------------------------------------

_REDUCES = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


def _put_prepare(xp, shape, index, values, d, broadcast):
    """Paddle's broadcasting of indices and values (``infer_broadcast_shape``)."""
    if index.ndim != len(shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions!")
    if broadcast:
        bshape = list(shape)
        bshape[d] = index.shape[d]
        if all(shape[i] >= index.shape[i] for i in range(len(shape))):
            index = xp.broadcast_to(index, bshape)
        values = xp.broadcast_to(xp.asarray(values), index.shape)
    elif not isinstance(values, xp.ndarray) or values.size == 1:
        values = xp.broadcast_to(xp.asarray(values), index.shape)
    else:
        if values.ndim != index.ndim:
            raise ValueError("`indices` and `values` must have the same number of dimensions!")
        values = values[tuple(slice(0, n) for n in index.shape)]
    return index, values


def _put_along_axis_fwd(xp, a, index, src, out=None, dt=None, dim=0, reduce="assign",
                        include_self=True, broadcast=True):
    if reduce not in _REDUCES:
        raise ValueError(f"reduce must be one of {', '.join(_REDUCES)}, got {reduce!r}")
    d = layout.wrap_dim(dim, a.ndim)
    index, values = _put_prepare(xp, a.shape, index, src, d, broadcast)
    _check_bounds(index, a.shape[d], d, xp, prefix="one of element of indices is out of bounds: ")
    target = out if out is not None else a.copy()
    ix = _grid(index, d, xp)
    values = values.astype(target.dtype, copy=False)
    if reduce == "assign":
        target[ix] = values
        return target
    if reduce == "mean":
        count = xp.ones(target.shape, dtype=np.int64)
        if not include_self:
            target[ix], count[ix] = 0, 0
        backend.add_at(xp, target, ix, values)
        backend.add_at(xp, count, ix, xp.ones(index.shape, dtype=np.int64))
        q = target / xp.maximum(count, 1)
        target[...] = q if target.dtype.kind in "fc" else xp.floor(q)
        return target
    ufunc = {"add": np.add, "mul": np.multiply, "multiply": np.multiply, "amin": np.minimum,
             "amax": np.maximum}[reduce]
    if not include_self:
        target[ix] = {"add": 0, "mul": 1, "multiply": 1}.get(reduce, values)
    if xp is np:
        ufunc.at(target, ix, values)
    elif reduce == "add":
        backend.add_at(xp, target, ix, values)
    else:
        raise NotImplementedError(f"put_along_axis(reduce={reduce!r}) runs on the CPU only")
    return target


def _put_along_axis_bw(c, g):
    """Paddle 3.3.1's put_along_axis_grad, reduction by reduction (checked against paddle).

    For ``arr``: cells no index reaches pass ``g`` through. A reached cell gets nothing when
    ``include_self=False`` or ``reduce="assign"``; else ``g`` (add), ``g / count`` (mean,
    count = 1 + the values that reached it), ``g * out / arr`` (mul: Paddle divides, so a
    zero gives nan) or ``g / ties`` where ``arr == out`` (amax/amin: the gradient is shared
    by every element equal to the result, the cell's own value counted even when
    ``include_self=False``). For ``values`` (read back with the index, as gather):
    assign gives ``g`` to the last value written into a cell only; add ``g``; mean
    ``g / count``; mul ``g * out / value``; amax/amin ``g / ties`` where ``value == out``.
    """
    reduce, inc = c["reduce"], c["include_self"]
    x, out = c["self"]._a, c["result"]._a  # unpacked always: Paddle checks every saved version
    shape = c.input_meta[0][0]
    d = layout.wrap_dim(c["dim"], len(shape))
    xp = backend.xp_of(g.device)
    vshape = c.input_meta[2][0] if c.input_meta[2] is not None else ()
    reads_values = reduce in ("mul", "multiply", "amax", "amin")
    src = c["src"] if reads_values else xp.zeros(vshape)  # a saved tensor or a number
    ix_arr, vals = _put_prepare(xp, shape, c["index"]._a, src._a if isinstance(src, Tensor)
                                else src, d, c["broadcast"])
    ix_arr = xp.ascontiguousarray(ix_arr)
    grid = _grid(ix_arr, d, xp)
    ix = Tensor._wrap(ix_arr, g.device)
    hits = xp.zeros(shape, dtype=np.int64)
    backend.add_at(xp, hits, grid, xp.ones(ix_arr.shape, dtype=np.int64))
    touched = hits > 0
    dt = g._dtype.np

    def const(a):
        return Tensor._wrap(xp.ascontiguousarray(xp.asarray(a, dtype=dt)), g.device)

    ties = None
    if reduce in ("amax", "amin"):
        ties = (x == out).astype(np.int64)
        backend.add_at(xp, ties, grid, (vals == out[grid]).astype(np.int64))
    gx = gv = None
    if c.needs_input_grad[0]:
        if reduce == "add" and inc:
            gx = g
        elif not inc or reduce == "assign":
            gx = g * const(~touched)
        elif reduce == "mean":
            gx = g / const(hits + 1)
        elif reduce in ("mul", "multiply"):
            gx = g * const(xp.where(touched, out, 1)) / const(xp.where(touched, x, 1))
        else:  # amax / amin
            gx = g * const(~touched | (x == out)) / const(xp.where(touched, ties, 1))
    if c.needs_input_grad[2]:
        gg = g.gather(d, ix)
        if reduce == "assign":
            gv = gg * const(_last_writes(xp, ix_arr, grid, shape, d))
        elif reduce == "add":
            gv = gg
        elif reduce == "mean":
            gv = gg / const((hits + (1 if inc else 0))[grid])
        elif reduce in ("mul", "multiply"):
            gv = gg * const(out[grid]) / const(vals)
        else:
            gv = gg * const(vals == out[grid]) / const(ties[grid])
        if tuple(gv.shape) != tuple(vshape):
            if c["broadcast"] or layout.numel(vshape) == 1:
                gv = gv.sum_to_size(vshape)
            else:  # broadcast=False used the values' leading block: the rest gets zeros
                full = xp.zeros(vshape, dtype=dt)
                full[tuple(slice(0, n) for n in gv.shape)] = gv._a
                gv = Tensor._wrap(full, g.device)
    return (gx, None, gv)


def _last_writes(xp, ix_arr, grid, shape, d):
    """Which index entries write last into their cell (``assign``: the one that stays)."""
    pos = xp.broadcast_to(xp.arange(ix_arr.shape[d]).reshape(
        [-1 if i == d else 1 for i in range(ix_arr.ndim)]), ix_arr.shape)
    last = np.full(shape, -1, dtype=np.int64)
    np.maximum.at(last, tuple(backend.to_numpy(a) for a in grid), backend.to_numpy(pos))
    return pos == xp.asarray(last)[grid]


def _put_along_axis_check(target, ins, params):
    if ins[1]._dtype.category != 1:
        raise TypeError("put_along_axis(): indices must be an integer tensor")


# What PutAlongAxisGradNode keeps: arr, index and the result for every reduction (changing
# arr or the result afterwards breaks backward, as in Paddle); the values only where the
# formula reads them (mul, amax, amin). Paddle keeps its own broadcast copy of the values,
# so a later in-place write to them goes unnoticed there; here it is caught at backward.
PUT_ALONG_AXIS = register(OpSpec(
    name="put_along_axis", forward=_put_along_axis_fwd, backward=_put_along_axis_bw,
    args=("self", "index", "src"),
    params={"dim": 0, "reduce": "assign", "include_self": True, "broadcast": True},
    saves=("self", "index", "result"), dtype_rule="self", inplace=True, torch_inplace=False,
    paddle_inplace=True, out=False, inplace_check=_put_along_axis_check,
    doc="Paddle's put_along_axis(arr, indices, values, axis, reduce, include_self, "
        "broadcast); saves arr, its index and the result (and the values for mul/amax/amin)."))
_PUT_READS_VALUES = dataclasses.replace(PUT_ALONG_AXIS, select=None,
                                        saves=("self", "index", "src", "result"))


def _put_select(args, kw):
    reduce = args[4] if len(args) > 4 else kw.get("reduce", "assign")
    return _PUT_READS_VALUES if reduce in ("mul", "multiply", "amax", "amin") else None


PUT_ALONG_AXIS.select = _put_select


# ---- renorm ---------------------------------------------------------------------------------------

def _renorm_checks(a, p, dim, maxnorm):
    if a.dtype.kind not in "fc":
        from .. import dtypes

        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {dtypes.from_numpy_dtype(a.dtype).torch_name}")
    if a.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {a.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    return layout.wrap_dim(dim, a.ndim)


def _slice_norms(xp, a, p, axes):
    m = xp.abs(a)
    if p == math.inf:
        return xp.max(m, axis=axes, keepdims=True, initial=0)
    if p == 1:
        return xp.sum(m, axis=axes, keepdims=True)
    if p == 2:
        return xp.sqrt(xp.sum(m * m, axis=axes, keepdims=True))
    return xp.sum(m ** p, axis=axes, keepdims=True) ** (1.0 / p)


def _renorm_fwd(xp, a, out=None, dt=None, p=2.0, dim=0, maxnorm=1.0):
    d = _renorm_checks(a, p, dim, maxnorm)
    axes = tuple(i for i in range(a.ndim) if i != d)
    norm = _slice_norms(xp, a, p, axes)
    factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(a.dtype)
    return xp.multiply(a, factor, out=out)


def _renorm_bw(c, g):
    """PyTorch's renorm_backward (Paddle's kernel agrees): the norm itself is differentiated."""
    x, p, maxnorm = c["self"], float(c["p"]), c["maxnorm"]
    d = layout.wrap_dim(c["dim"], x.ndim)
    axes = tuple(i for i in range(x.ndim) if i != d)
    norm = x.norm(p, axes, keepdim=True)
    gsum = (x * g).sum(axes, keepdim=True)
    if p == 1:
        nb = gsum * x.sign()
    elif p == 2:
        nb = gsum * x / norm
    elif math.isinf(p):
        mask = x.abs() == norm
        nb = gsum * x.sign() * mask / mask.sum(axes, keepdim=True)
    else:
        nb = gsum * x.sign() * x.abs() ** (p - 1) / norm ** (p - 1)
    invnorm = (norm + 1e-7).reciprocal()
    factor = invnorm * maxnorm
    return ((factor * g - factor * invnorm * nb).where(norm > maxnorm, g),)


register(OpSpec(name="renorm", forward=_renorm_fwd, backward=_renorm_bw,
                params={"p": 2.0, "dim": 0, "maxnorm": 1.0}, saves=("self",), dtype_rule="self",
                inplace=True, torch_inplace=True, paddle_inplace=True,
                doc="renorm(input, p, dim, maxnorm): slices along dim with p-norm above maxnorm "
                    "are scaled down to it; saves its input."))


# ---- embedding_renorm ---------------------------------------------------------------------------

def _embedding_renorm_rule(spec, ins, params):
    """PyTorch's checks (embedding_renorm_cpu_), all before anything is written: a 2-D weight,
    Long/Int indices, every index a row (negative ones count from the end, as ``select``),
    a floating weight once a row is read."""
    w, idx = ins[0], ins[1]
    if w.ndim != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {w.ndim}-dimensional tensor "
                           "for argument #1 'self' (while checking arguments for embedding_renorm_)")
    if idx._dtype.torch_name not in ("Long", "Int"):
        raise RuntimeError("Expected tensor for argument #2 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got torch.{idx._dtype.torch_name}Tensor "
                           "instead (while checking arguments for embedding_renorm_)")
    if idx.numel():
        n = w.shape[0]
        floating = w._dtype.is_floating_point
        for i in sorted({int(i) for i in idx._a.reshape(-1).tolist()}):  # torch's walk
            if not -n <= i < n:
                raise IndexError(f"select(): index {i} out of range for tensor of size "
                                 f"{list(w.shape)} at dimension 0")
            if not floating:  # the first row read is the first norm taken
                raise RuntimeError("norm(): input dtype should be either floating point or "
                                   f"complex. Got {w._dtype.torch_name} instead.")
    return w._dtype


def _embedding_renorm_fwd(xp, w, index, out=None, dt=None, max_norm=1.0, norm_type=2.0):
    target = out if out is not None else w.copy()
    rows = xp.unique(index.reshape(-1) % w.shape[0])  # -1 is the last row, as torch's select
    if rows.size:
        sel = target[rows]
        # torch: the row's norm read as a double, scale = max_norm / (norm + 1e-7) in double,
        # then ``row *= scale`` in the row's dtype
        norm = _slice_norms(xp, sel, float(norm_type), (1,)).astype("float64")
        scale = xp.where(norm > max_norm, max_norm / (norm + 1e-7), 1.0)
        target[rows] = sel * scale.astype(target.dtype)
    return target


register(OpSpec(name="embedding_renorm", forward=_embedding_renorm_fwd, args=("self", "index"),
                params={"max_norm": 1.0, "norm_type": 2.0}, dtype_rule=_embedding_renorm_rule, inplace=True,
                torch_inplace=True, paddle_inplace=True, method=False, function=False, out=False,
                inplace_check=lambda t, ins, p: None, internal_overlap_ok=True,
                doc="torch.embedding_renorm_(weight, indices, max_norm, norm_type): rows used by "
                    "indices rescaled to max_norm; not differentiable (both frameworks run it "
                    "without grad)."))


# ---- Paddle-only kernels: gather_nd, scatter_nd_add, index_sample, stanh, i0e, i1e, slices -----
# (Paddle names their grad nodes after these specs: GatherNdGradNode, ScatterNdAddGradNode...
# They are neither inplace_lab functions nor core Tensor methods: the paddle facade calls them.)

def _nd_index(index, k):
    return tuple(index[..., i] for i in range(k))


def check_gather_nd(shape, index):
    """Paddle's gather_nd checks (index a numpy/cupy array): its rank rule, its bounds."""
    k = index.shape[-1] if index.ndim else 0
    if k > len(shape):
        raise ValueError(
            "(InvalidArgument) Input(Index).shape[-1] should be no greater than Input(X).rank"
            f"\n  [Hint: Expected index_dims[index_dims_size - 1] <= x_dims_size, but received "
            f"index_dims[index_dims_size - 1]:{k} > x_dims_size:{len(shape)}.] "
            "(at /paddle/paddle/phi/infermeta/binary.cc:2225)\n")
    for j in range(k):
        col = index[..., j]
        if col.size and int(col.max()) >= shape[j]:
            v = int(col.max())
            raise ValueError(
                f"(InvalidArgument) Input(index[-1)] has wrong value, it is [{v}]\n  [Hint: "
                f"Expected index_value < input_dims[j], but received index_value:{v} >= "
                f"input_dims[j]:{shape[j]}.] (at /paddle/paddle/phi/kernels/funcs/gather.h:137)\n")
    return k


def _gather_nd_fwd(xp, a, index, out=None, dt=None):
    k = check_gather_nd(a.shape, index)
    r = a[_nd_index(index, k)] if k else xp.broadcast_to(a, index.shape[:-1] + a.shape).copy()
    return r if out is None else _assign(out, r)


def _assign(out, r):
    out[...] = r
    return out


def _gather_nd_bw(c, g):
    from .. import creation
    from .dispatch import call

    shape, dt, dev = c.input_meta[0]
    z = creation.zeros(shape, dtype=g._dtype, device=dev)
    return (call(OPS_PADDLE["scatter_nd_add"], (z, c["index"], g), {}), None)


def check_scatter_nd_add(shape, index, updates_shape):
    """Paddle's scatter_nd_add checks: the updates' shape, the index's bounds."""
    a_shape = shape
    k = index.shape[-1]
    want = tuple(index.shape[:-1]) + tuple(a_shape[k:])
    for i, (r, u) in enumerate(zip(want, updates_shape)):
        if r != u:
            raise ValueError(
                "(InvalidArgument) Updates has wrong shape. The dimensions of Updates and "
                f"Input(Updates) should match, but received Updates's{i}-th dimension is {r}, "
                f"Input(Updates)'s {i}-th dimension is {u}.\n  [Hint: Expected "
                f"r_updates_dims[i] == updates_dims[i], but received r_updates_dims[i]:{r} != "
                f"updates_dims[i]:{u}.] (at /paddle/paddle/phi/infermeta/ternary.cc:2693)\n")
    for j in range(k):
        col = index[..., j]
        bad = col[(col < -a_shape[j]) | (col >= a_shape[j])]
        if bad.size:
            n = a_shape[j]
            raise IndexError(
                "(OutOfRange) The index is out of bounds, please check whether the dimensions of "
                f"index and input meet the requirements. It should be less than [{n}] and "
                f"greater or equal to [-{n}], but received [{int(bad.reshape(-1)[0])}]\n  "
                "[Hint: Expected (index_value >= -output_dims[j] && index_value < "
                "output_dims[j]) == true, but received (index_value >= -output_dims[j] && "
                "index_value < output_dims[j]):0 != true:1.] (at "
                "/paddle/paddle/phi/kernels/funcs/scatter.h:316)\n")
    return k


def _scatter_nd_add_fwd(xp, a, index, updates, out=None, dt=None):
    k = check_scatter_nd_add(a.shape, index, updates.shape)
    target = out if out is not None else a.copy()
    if target is not a and out is not None:
        target[...] = a
    backend.add_at(xp, target, _nd_index(index, k), updates.astype(target.dtype, copy=False))
    return target


def _scatter_nd_add_bw(c, g):
    from .dispatch import call

    gx = g if c.needs_input_grad[0] else None
    gu = call(OPS_PADDLE["gather_nd"], (g, c["index"]), {}) if c.needs_input_grad[2] else None
    return (gx, None, gu)


def check_index_sample(a, index):
    """Paddle's index_sample shape checks (a and index: anything with shape/ndim)."""
    if a.ndim != 2 or index.ndim != 2:
        which, t = ("X", a) if a.ndim != 2 else ("Index", index)
        raise ValueError(
            f"(InvalidArgument) Inputs({which}) shape of IndexSample op should be 2-D, but got "
            f"{which}'s shape = {list(t.shape)}, please check {which} shape.\n  [Hint: Expected "
            f"{'input' if which == 'X' else 'index'}_dims.size() == 2, but received "
            f"{'input' if which == 'X' else 'index'}_dims.size():{t.ndim} != 2:2.] (at "
            f"/paddle/paddle/phi/infermeta/binary.cc:{2460 if which == 'X' else 2468})\n")
    if a.shape[0] != index.shape[0]:
        raise ValueError(
            "(InvalidArgument) Inputs(X)'s value of dimension 0 must same with Inputs(Index)'s "
            f"value of dimension 0, but got {a.shape[0]} of Inputs(X), and got "
            f"{index.shape[0]} of Inputs(Index), please check Inputs shape.\n  [Hint: Expected "
            f"input_dims[0] == index_dims[0], but received input_dims[0]:{a.shape[0]} != "
            f"index_dims[0]:{index.shape[0]}.] (at /paddle/paddle/phi/infermeta/binary.cc:2476)\n")


def check_index_sample_values(n, index):
    """Paddle's index_sample kernel: every index in [0, n)."""
    for bad, hint, line in ((index < 0, "index_vec[i] >= 0, but received index_vec[i]:{v} < "
                             "0:0", 53), (index >= n, "index_vec[i] < value_length, but received "
                                          "index_vec[i]:{v} >= value_length:" + str(n), 62)):
        if bad.any():
            v = int(index[bad].reshape(-1)[0])
            raise ValueError(
                f"(InvalidArgument) Variable value (index) of OP(index_sample) expected >= 0 and "
                f"< {n}, but got {v}. Please check input value.\n  [Hint: Expected "
                f"{hint.format(v=v)}.] (at "
                f"/paddle/paddle/phi/kernels/cpu/index_sample_kernel.cc:{line})\n")


def _index_sample_fwd(xp, a, index, out=None, dt=None):
    check_index_sample(a, index)
    check_index_sample_values(a.shape[1], index)
    r = xp.take_along_axis(a, index.astype(np.int64, copy=False), axis=1)
    return r if out is None else _assign(out, r)


def _index_sample_bw(c, g):
    from .. import creation

    shape, dt, dev = c.input_meta[0]
    z = creation.zeros(shape, dtype=g._dtype, device=dev)
    return (z.scatter_add(1, c["index"].long(), g), None)


def _stanh_fwd(xp, a, out=None, dt=None, scale_a=0.67, scale_b=1.7159):
    r = (scale_b * xp.tanh(scale_a * a.astype(dt.np, copy=False))).astype(dt.np, copy=False)
    return r if out is None else _assign(out, r)


def _stanh_bw(c, g):
    a, b = c["scale_a"], c["scale_b"]
    t = (c["self"] * a).tanh()
    return (g * (a * b) * (1 - t * t),)


def _sp_scaled(fname):
    def fwd(xp, a, out=None, dt=None):
        from ..backend import special_for

        r = getattr(special_for(xp), fname)(xp.asarray(a, dtype=dt.np)).astype(dt.np, copy=False)
        return r if out is None else _assign(out, r)

    return fwd


def _i0e_bw(c, g):
    x = c["self"]
    return (g * (_unary("i1e", x) - x.sign() * c["result"]),)


def _i1e_bw(c, g):
    x, r = c["self"], c["result"]
    d = _unary("i0e", x) - r * (x.sign() + x.reciprocal())
    return (g * d.where(x != 0, d * 0 + 0.5),)


def _unary(name, x):
    from .dispatch import call

    return call(OPS_PADDLE[name], (x,), {})


def _slices(shape, axes, starts, ends, strides):
    idx = [slice(None)] * len(shape)
    for ax, s, e, st in zip(axes, starts, ends, strides):
        idx[ax] = slice(s, e, st)
    return tuple(idx)


def _strided_slice_fwd(xp, a, out=None, dt=None, axes=(), starts=(), ends=(), strides=()):
    r = a[_slices(a.shape, axes, starts, ends, strides)].copy()
    return r if out is None else _assign(out, r)


def _strided_slice_bw(c, g):
    from .. import creation

    shape, dt, dev = c.input_meta[0]
    n = layout.numel(shape)
    cells = np.arange(n).reshape(shape)[_slices(shape, c["axes"], c["starts"], c["ends"],
                                                c["strides"])].reshape(-1)
    z = creation.zeros((n,), dtype=g._dtype, device=dev)
    ix = creation.tensor(cells, dtype=_int64(), device=dev)
    return (z.index_add(0, ix, g.reshape(-1)).reshape(shape),)


def _int64():
    from .. import dtypes

    return dtypes.int64


_FLOATS = "float"
OPS_PADDLE = {
    "gather_nd": OpSpec(name="gather_nd", forward=_gather_nd_fwd, backward=_gather_nd_bw,
                        args=("self", "index"), saves=("index",), dtype_rule="self",
                        method=False, function=False, out=False),
    "scatter_nd_add": OpSpec(name="scatter_nd_add", forward=_scatter_nd_add_fwd,
                             backward=_scatter_nd_add_bw, args=("self", "index", "updates"),
                             saves=("index",), dtype_rule="self", method=False,
                             function=False, out=False),
    "index_sample": OpSpec(name="index_sample", forward=_index_sample_fwd,
                           backward=_index_sample_bw, args=("self", "index"), saves=("index",),
                           dtype_rule="self", method=False, function=False, out=False),
    "stanh": OpSpec(name="stanh", forward=_stanh_fwd, backward=_stanh_bw,
                    params={"scale_a": 0.67, "scale_b": 1.7159}, saves=("self",),
                    dtype_rule=_FLOATS, method=False, function=False, out=False),
    "i0e": OpSpec(name="i0e", forward=_sp_scaled("i0e"), backward=_i0e_bw,
                  saves=("self", "result"), dtype_rule=_FLOATS, method=False, function=False,
                  out=False),
    "i1e": OpSpec(name="i1e", forward=_sp_scaled("i1e"), backward=_i1e_bw,
                  saves=("self", "result"), dtype_rule=_FLOATS, method=False, function=False,
                  out=False),
    "strided_slice": OpSpec(name="strided_slice", forward=_strided_slice_fwd,
                            backward=_strided_slice_bw,
                            params={"axes": (), "starts": (), "ends": (), "strides": ()},
                            dtype_rule="self", method=False, function=False, out=False),
}
OPS_PADDLE["crop"] = dataclasses.replace(OPS_PADDLE["strided_slice"], name="crop")
for _s in OPS_PADDLE.values():
    register(_s)


# ---- add_n and multiplex, over their inputs stacked along a new first axis ----------------------

def _add_n_fwd(xp, a, out=None, dt=None):
    r = a.sum(axis=0, dtype=a.dtype)
    return r if out is None else _assign(out, r)


def check_multiplex(shape, index):
    """Paddle's multiplex checks (shape: the stacked candidates')."""
    m, n = shape[0], shape[1]
    rows = index.reshape(-1).astype(np.int64, copy=False)
    if rows.shape[0] != n:
        raise ValueError(
            "(InvalidArgument) The 2nd-dim of input tensors and the 1st-dim of Ids must be "
            f"the same, but received input tensor's 1st-dim={n}, Ids' 1st-dim={rows.shape[0]}")
    if rows.size and int(rows.max()) >= m:
        k = int(rows[rows >= m][0])
        raise RuntimeError(
            "(PreconditionNotMet) index exceeds the number of candidate tensors.\n  [Hint: "
            "Expected static_cast<size_t>(k) < ins.size(), but received "
            f"static_cast<size_t>(k):{k} >= ins.size():{m}.] (at "
            "/paddle/paddle/phi/kernels/cpu/multiplex_kernel.cc:45)\n")
    return rows


def _multiplex_fwd(xp, a, index, out=None, dt=None):
    rows = check_multiplex(a.shape, index)
    n = a.shape[1]
    r = a[rows, xp.arange(n)]
    return r if out is None else _assign(out, r)


def _multiplex_bw(c, g):
    from .. import creation

    shape, dt, dev = c.input_meta[0]
    z = creation.zeros(shape, dtype=g._dtype, device=dev)
    rows = c["index"].reshape([-1]).long()
    n = shape[1]
    z[rows, creation.arange(n, device=dev)] = g
    return (z, None)


OPS_PADDLE["add_n"] = register(OpSpec(
    name="add_n", forward=_add_n_fwd, dtype_rule="self", method=False, function=False,
    out=False, backward=lambda c, g: (g.unsqueeze(0).expand(c.input_meta[0][0]),)))
OPS_PADDLE["multiplex"] = register(OpSpec(
    name="multiplex", forward=_multiplex_fwd, backward=_multiplex_bw, args=("self", "index"),
    saves=("index",), dtype_rule="self", method=False, function=False, out=False))


# ---- Paddle's scatter (rows of x replaced, or zeroed then accumulated, by updates) ---------------

def _paddle_scatter_fwd(xp, a, index, updates, out=None, dt=None, overwrite=True):
    ix = index.reshape(-1).astype(np.int64, copy=False)
    target = a.copy()
    if overwrite:
        target[ix] = updates
    else:
        target[ix] = 0
        backend.add_at(xp, target, ix, updates.astype(target.dtype, copy=False))
    return target if out is None else _assign(out, target)


def _paddle_scatter_bw(c, g):
    from .. import creation

    index = c["index"].reshape([-1]).long()
    gx = gu = None
    if c.needs_input_grad[0]:
        keep = np.ones(c.input_meta[0][0][:1], dtype=g._dtype.np)
        keep[backend.to_numpy(index._a)] = 0
        mask = creation.tensor(keep, device=g.device).reshape([-1] + [1] * (g.ndim - 1))
        gx = g * mask
    if c.needs_input_grad[2]:
        gu = g.index_select(0, index)
    return (gx, None, gu)


# (not registered: "scatter" is PyTorch's op in the table; Paddle's node is ScatterGradNode)
PADDLE_SCATTER = OpSpec(name="scatter", forward=_paddle_scatter_fwd, backward=_paddle_scatter_bw,
                        args=("self", "index", "updates"), params={"overwrite": True},
                        saves=("index",), dtype_rule="self", method=False, function=False,
                        out=False)
