"""Memory formats, the ``*_copy`` ops, ``unsafe_split``/``unsafe_chunk`` and smaller Tensor
methods PyTorch has (``dim_order``, ``storage_type``, ``nonzero_static``, ``isreal`` ...).

Memory formats: ``torch.channels_last`` lays a 4-dim NCHW tensor out as NHWC (strides
``(C*H*W, 1, W*C, C)``), ``channels_last_3d`` a 5-dim NCDHW one as NDHWC. A copy into a
memory format (``clone``/``contiguous``/``to``/``*_like``/``empty(memory_format=)``) makes the
usual fresh result (CloneBackward0, ToCopyBackward0 ...) and lays its storage out in the
format before anyone else sees it (``relayout``). Elementwise results follow their inputs'
layout already (TensorIterator, ``layout.py``), so ``y + 1`` of a channels-last ``y`` stays
channels-last as in PyTorch.

The ``*_copy`` ops are PyTorch's functional forms of the view ops: the view op's node under the
name ``<ViewNode>_copy`` (``PermuteBackward0_copy``) over a fresh contiguous result.
``unsafe_split`` and friends return tensors over the input's storage that are *not* views to
autograd (no ``_base``, their own version counter, ``UnsafeSplitBackward0``), so an in-place
op on one is allowed, as in PyTorch.
"""
from __future__ import annotations

import dataclasses
import warnings
from collections import namedtuple

from .. import backend, layout
from ..storage import Storage
from ..tensor import Tensor
from . import dispatch
from .table import OPS, OpSpec, register

# ---- memory formats ----------------------------------------------------------------------------


class memory_format:
    """``torch.memory_format``: one of four singletons, printed ``torch.channels_last``."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return (_by_name, (self._name,))


memory_format.__module__ = "torch"
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
_FORMATS = {m._name: m for m in (contiguous_format, preserve_format, channels_last,
                                 channels_last_3d)}
_RANK = {"channels_last": 4, "channels_last_3d": 5}


def _by_name(name):
    return _FORMATS[name]


def check_format(fname, mf, argname="memory_format"):
    """A memory_format argument, or torch's TypeError naming what came instead."""
    if mf is not None and not isinstance(mf, memory_format):
        from ..dtypes import dtype

        got = "torch.dtype" if isinstance(mf, dtype) else type(mf).__name__
        raise TypeError(f"{fname}(): argument '{argname}' must be torch.memory_format, not {got}")
    return mf


def format_strides(shape, mf):
    """The strides of a fresh tensor of ``shape`` laid out in ``mf`` (contiguous or channels
    last; c10's ``get_channels_last_strides_2d/3d``, errors as torch's)."""
    shape = tuple(shape)
    if mf is None or mf is contiguous_format:
        return layout.contiguous_strides(shape)
    if mf is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    rank = _RANK[mf._name]
    if len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {mf._name} format")
    st = [0] * rank
    st[1] = 1
    st[-1] = shape[1]
    for d in range(rank - 2, 1, -1):
        st[d] = st[d + 1] * shape[d + 1]
    st[0] = st[2] * shape[2]
    return tuple(st)


def is_format_contiguous(shape, strides, mf):
    """``is_contiguous(memory_format=mf)``: c10's channels-last contiguity (size-1 dims aside)."""
    if mf is None or mf is contiguous_format or mf is preserve_format:
        return layout.is_contiguous(shape, strides)
    rank = _RANK[mf._name]
    if len(shape) != rank:
        return False
    expected = 1
    for d in (1,) + tuple(range(rank - 1, 1, -1)) + (0,):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def suggest_format(t):
    """ATen's ``suggest_memory_format``: channels_last(_3d) when the strides say so."""
    shape, strides = t._shape, t._strides
    if len(shape) == 4 and layout.suggests_channels_last(shape, strides):
        return channels_last
    if len(shape) == 5 and not layout.is_contiguous(shape, strides) and \
            is_format_contiguous(shape, strides, channels_last_3d):
        return channels_last_3d
    return contiguous_format


def relayout(t, mf):
    """Lay a fresh, unshared tensor's storage out in ``mf`` (values, graph and counter kept)."""
    strides = format_strides(t._shape, mf)
    if strides == t._strides and t._offset == 0:
        return t
    dev = t._storage.device
    st = Storage.allocate(layout.numel(t._shape), t._dtype, dev)
    new = Tensor._make(st, t._shape, strides, 0)
    if layout.numel(t._shape):
        new._a[...] = t._a
    t._storage = st
    t._set_geometry(t._shape, strides, 0)
    return t


# ---- the memory_format keyword of Tensor methods ------------------------------------------------

_orig: dict = {}


def _no_positional(fname, args):
    if args:
        raise TypeError(f"{fname}() takes 0 positional arguments but {len(args)} "
                        f"{'was' if len(args) == 1 else 'were'} given")


def _required_format(fname, mf):
    if mf is None:
        raise TypeError(f"{fname}(): argument 'memory_format' must be torch.memory_format, not "
                        "NoneType")
    check_format(fname, mf)


def is_contiguous(self, *args, memory_format=contiguous_format):
    _no_positional("is_contiguous", args)
    _required_format("is_contiguous", memory_format)
    return is_format_contiguous(self._shape, self._strides, memory_format)


def contiguous(self, *args, memory_format=contiguous_format):
    _no_positional("contiguous", args)
    _required_format("contiguous", memory_format)
    if memory_format is None or memory_format is contiguous_format:
        return _orig["contiguous"](self)
    if is_format_contiguous(self._shape, self._strides, memory_format):
        return self
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return clone(self, memory_format=memory_format)


def clone(self, *args, memory_format=None, **kwargs):
    if self._pol is None or not self._pol.startswith("paddle"):
        _no_positional("clone", args)
    check_format("clone", memory_format)
    if memory_format is None or memory_format is preserve_format:
        return _orig["clone"](self, *args, **kwargs)
    format_strides(self._shape, memory_format)  # (the rank error before anything is made)
    return relayout(_orig["clone"](self, *args, **kwargs), memory_format)


def to(self, *args, memory_format=None, **kwargs):
    check_format("to", memory_format)
    if memory_format is None or memory_format is preserve_format:
        return _orig["to"](self, *args, **kwargs)
    format_strides(self._shape, memory_format)
    out = _orig["to"](self, *args, **kwargs)
    if out is self:
        if suggest_format(self) is memory_format:
            return self
        out = dispatch.call(OPS["_to_copy"], (self,), {"dtype": self._dtype})
    return relayout(out, memory_format)


def _caster(name):
    def cast(self, *args, memory_format=preserve_format):
        _no_positional(name, args)
        check_format(name, memory_format)
        out = _orig[name](self)
        if memory_format is not preserve_format and memory_format is not None:
            return to(out if out is not self else self, memory_format=memory_format)
        return out

    cast.__name__ = cast.__qualname__ = name
    return cast


def resize_(self, *sizes, memory_format=None):
    """``resize_(..., memory_format=)``: resized as before, then restrided in the format
    (torch's ``empty_tensor_restride``; the version moves only with the shape)."""
    check_format("resize_", memory_format)
    if memory_format is None:
        return _orig["resize_"](self, *sizes)
    if memory_format is preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")
    shape = tuple(int(n) for n in layout.dims_arg(sizes))
    strides = format_strides(shape, memory_format)  # (the rank error, before any change)
    _orig["resize_"](self, *sizes)
    if self._strides != strides:
        self._set_geometry(self._shape, strides)
    return self


def _new_empty(self, *size, **kwargs):
    if "memory_format" in kwargs:
        raise TypeError("new_empty() got an unexpected keyword argument 'memory_format'")
    return _orig["new_empty"](self, *size, **kwargs)


def dim_order(self, *, ambiguity_check=False):
    """torch's ``Tensor.dim_order`` (its Python code, on this tensor's sizes and strides)."""
    if not isinstance(ambiguity_check, (bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    if isinstance(ambiguity_check, list):
        for m in ambiguity_check:
            if not isinstance(m, memory_format):
                raise TypeError(
                    "The ambiguity_check argument must be a bool or a list of memory formats.")
    shape, strides = self._shape, self._strides

    def invalid_unique_format(valid):
        n = sum(1 for m in valid if is_format_contiguous(shape, strides, m))
        return n != 1

    def multiple_orders():
        dup = any(a == b for a, b in zip(strides, strides[1:]))
        return dup or any(s == 1 for s in shape)

    valid = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    if check and multiple_orders() and invalid_unique_format(valid):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact "
                           "one of the given memory formats.")
    perm, ambiguous = _logical_to_physical(shape, strides, bool(ambiguity_check))
    if ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(perm)


def _logical_to_physical(shape, strides, ambiguity_check):
    nd = len(shape)
    if nd == 0:
        return [], False
    if nd == 1:
        return [0], False
    contig = layout.is_contiguous(shape, strides)
    cl = is_format_contiguous(shape, strides, channels_last)
    if contig and not cl:
        return list(range(nd)), False
    if cl and not contig:
        return [0, *range(2, nd), 1], False

    def ge(a, b):
        if b == 0:
            return True
        if a == 0:
            return False
        return a >= b or a % b == 0

    def should_swap(a, b):
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if ge(shape[b], shape[a]) else 1
        if ge(sb, sa):
            return -1
        if ge(sa, sb):
            return 1
        return 0

    perm = list(reversed(range(nd)))
    for i in range(1, nd):
        d1 = i
        for d0 in reversed(range(i)):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    amb = False
    if ambiguity_check:
        for i in range(nd - 1):
            if should_swap(perm[i], perm[i + 1]) != -1:
                amb = True
                break
    return list(reversed(perm)), amb


# ---- unsafe_split / unsafe_chunk / unsafe_split_with_sizes ---------------------------------------

def _spec_as(name, node_name, base=None):
    spec = OPS[base or name]
    return dataclasses.replace(spec, name=name, node_name=node_name, method=False,
                               function=False, select=None)


_UNSAFE = {
    "split": _spec_as("unsafe_split", "UnsafeSplitBackward0", "split"),
    "split_with_sizes": _spec_as("unsafe_split_with_sizes", "UnsafeSplitWithSizesBackward0",
                                 "_split_with_sizes"),
    "chunk": _spec_as("unsafe_chunk", "UnsafeSplitBackward0", "chunk"),
}


def _unview(views):
    """The pieces as torch's unsafe ops return them: same storage, no base, own counter."""
    outs = []
    for v in views:
        t = Tensor._make(v._storage, v._shape, v._strides, v._offset)
        if v._grad_fn is not None:
            t._grad_fn, t._output_nr, t._requires_grad = v._grad_fn, v._output_nr, True
        if v._pol is not None:
            t._policy = v._pol
        outs.append(t)
    return tuple(outs)


def _need_tensor(fname, x, argname="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def unsafe_split(input, split_size, dim=0):
    """``torch.unsafe_split``: split's pieces, not views to autograd (UnsafeSplitBackward0)."""
    _need_tensor("unsafe_split", input)
    if not isinstance(split_size, int) or isinstance(split_size, bool):
        raise TypeError("unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    n = input._shape[layout.wrap_dim(dim, input.ndim)] if input.ndim else 0
    if split_size == 0 and n != 0:
        raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}")
    return _unview(dispatch.call_view(_UNSAFE["split"], (input, split_size, dim), {}))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    _need_tensor("unsafe_split_with_sizes", input)
    return _unview(dispatch.call_view(_UNSAFE["split_with_sizes"],
                                      (input, list(split_sizes), dim), {}))


def unsafe_chunk(input, chunks, dim=0):
    _need_tensor("unsafe_chunk", input)
    return _unview(dispatch.call_view(_UNSAFE["chunk"], (input, chunks, dim), {}))


# ---- the *_copy ops ------------------------------------------------------------------------------

_COPY_SPECS: dict = {}


def _copy_spec(spec):
    name = spec.node_name + "_copy"
    s = _COPY_SPECS.get(name)
    if s is None:
        s = _COPY_SPECS[name] = dataclasses.replace(
            spec, name=spec.name + "_copy", node_name=name, method=False, function=False,
            select=None)
    return s


def _fresh_copies(views):
    outs = []
    for v in views:
        dev = v._storage.device
        t = Tensor._wrap(v._a.copy(), dev, v._pol)  # (numpy's and cupy's copy: C order)
        if v._grad_fn is not None:
            t._grad_fn, t._output_nr, t._requires_grad = v._grad_fn, v._output_nr, True
        outs.append(t)
    return outs


def view_copy_op(view_name):
    """``torch.<view>_copy``: the view op's node renamed ``..._copy``, a fresh contiguous result."""
    base = OPS[view_name]

    def fn(input, *args, **kwargs):
        _need_tensor(f"{view_name}_copy", input)
        if view_name == "split":  # (split_copy takes an int; sizes: split_with_sizes_copy)
            size = args[0] if args else kwargs.get("split_size")
            if not isinstance(size, int) or isinstance(size, bool):
                raise TypeError("split_copy(): argument 'split_size' (position 2) must be int, "
                                f"not {type(size).__name__}")
            if "split_size" in kwargs:
                args = (kwargs.pop("split_size"),) + args
        spec = base
        if spec.select is not None:
            spec = spec.select((input,) + args, kwargs) or spec
        views = dispatch.call_view(_copy_spec(spec), (input,) + args, kwargs)
        many = isinstance(views, tuple)
        outs = _fresh_copies(views if many else (views,))
        return tuple(outs) if many else outs[0]

    fn.__name__ = fn.__qualname__ = f"{view_name}_copy"
    fn.__doc__ = (f"torch.{view_name}_copy: ``{view_name}`` as a fresh tensor "
                  f"({base.node_name}_copy).")
    return fn


COPY_OPS = {f"{n}_copy": view_copy_op(n) for n in (
    "view", "permute", "transpose", "t", "expand", "diagonal", "select", "slice", "squeeze",
    "unsqueeze", "unbind", "unfold", "split", "alias", "as_strided")}


def split_with_sizes_copy(input, split_sizes, dim=0):
    _need_tensor("split_with_sizes_copy", input)
    spec = _copy_spec(OPS["_split_with_sizes"])
    spec = dataclasses.replace(spec, name="split_with_sizes_copy")
    views = dispatch.call_view(spec, (input, list(split_sizes), dim), {})
    return tuple(_fresh_copies(views))


def _not_implemented(c, g):
    raise RuntimeError("derivative for aten::detach_copy is not implemented")


_DETACH_COPY = dataclasses.replace(OPS["alias"], name="detach_copy", method=False,
                                   function=False, select=None, backward=_not_implemented,
                                   node_name="torch::autograd::NotImplemented")


def detach_copy(input):
    """``torch.detach_copy``: a fresh copy that, as in torch 2.13, still requires grad through
    a ``NotImplemented`` node (its backward raises)."""
    _need_tensor("detach_copy", input)
    return _fresh_copies([dispatch.call_view(_DETACH_COPY, (input,), {})])[0]


_NARROW_COPY = dataclasses.replace(OPS["narrow"], name="narrow_copy",
                                   node_name="NarrowCopyBackward0", method=False,
                                   function=False, select=None)


def narrow_copy(input, dim, start, length):
    """``narrow_copy``: narrow's cells in a fresh tensor (NarrowCopyBackward0)."""
    _need_tensor("narrow_copy", input)
    v = dispatch.call_view(_NARROW_COPY, (input, dim, start, length), {})
    return _fresh_copies([v])[0]


COPY_OPS.update(split_with_sizes_copy=split_with_sizes_copy, detach_copy=detach_copy,
                narrow_copy=narrow_copy)


# ---- torch.fill ----------------------------------------------------------------------------------

def _fill_out_fwd(xp, a, value, out=None, dt=None):
    if hasattr(value, "shape"):
        return xp.broadcast_to(value.astype(a.dtype), a.shape).copy()
    return xp.full(a.shape, value, dtype=a.dtype)


def _fill_out_bw(c, g):
    from .elementwise import zeros_grad

    return (zeros_grad(g) if c.needs_input_grad[0] else None,
            g.sum() if len(c.needs_input_grad) > 1 and c.needs_input_grad[1] else None)


def _fill_out_select(args, kwargs):
    v = args[1] if len(args) > 1 else kwargs.get("value")
    return _FILL_T if isinstance(v, Tensor) else None


_FILL = register(OpSpec(name="_fill_out", forward=_fill_out_fwd, backward=_fill_out_bw,
                        args=("self", "value"), dtype_rule="self", method=False,
                        function=False, out=False, node_name="FillBackward0",
                        select=_fill_out_select))
_FILL_T = dataclasses.replace(_FILL, node_name="FillBackward1", select=None)


def fill(input, value):
    """``torch.fill(input, value)``: a new tensor of input's shape and dtype, all ``value``
    (FillBackward0; a 0-dim tensor value: FillBackward1, its gradient the sum)."""
    _need_tensor("fill", input)
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.ndim} dimensions.")
    spec = _FILL_T if isinstance(value, Tensor) else _FILL
    return dispatch.call(spec, (input, value), {})


# ---- isreal, nonzero_static, histogramdd ---------------------------------------------------------

def isreal(input):
    """True where the imaginary part is 0: everywhere for a real tensor (a fresh bool tensor)."""
    _need_tensor("isreal", input)
    if input._dtype.is_complex:
        return input.imag == 0
    out = Tensor._wrap(backend.xp_of(input._storage.device).ones(input._shape, dtype=bool),
                       input._storage.device, input._pol)
    return out


def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero`` padded with ``fill_value`` (or cut) to exactly ``size`` rows."""
    _need_tensor("nonzero_static", input)
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not "
                        f"{type(size).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    nz = input.nonzero()
    xp = backend.xp_of(input._storage.device)
    a = nz._a
    res = xp.full((size, max(input.ndim, 1) if input.ndim else 0), fill_value, dtype=a.dtype)
    k = min(size, a.shape[0])
    res[:k] = a[:k]
    return Tensor._wrap(res, input._storage.device, input._pol)


HistogramddResult = namedtuple("histogramdd", ["hist", "bin_edges"], module="torch.return_types")


def torch_linspace(start, end, steps, npdt):
    """ATen's CPU linspace in ``npdt`` (numpy), bit for bit: the first half counts up from
    ``start``, the second down from ``end``, each a fused multiply-add (emulated one width up)."""
    import numpy as np

    wide = np.float64 if npdt == np.float32 else np.longdouble
    s, e = npdt(start), npdt(end)
    step = (e - s) / npdt(steps - 1) if steps > 1 else npdt(0)
    k = np.arange(steps)
    up = (wide(s) + wide(step) * k.astype(wide)).astype(npdt)
    down = (wide(e) - wide(step) * (steps - k - 1).astype(wide)).astype(npdt)
    return np.where(k < steps // 2, up, down).astype(npdt)


def _cfmt(v):
    """A double as C++'s ostream prints it (``1``, ``0.5``, ``nan``, ``inf``)."""
    return f"{v:g}"


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):  # noqa: A002
    """``torch.histogramdd`` as ATen computes it: per dimension, edges by torch's linspace
    between the data's (or ``range``'s) ends in the input's dtype (equal ends widened by 0.5),
    each point counted in the bin whose edges hold it (the last bin closed), weights summed in
    the input dtype; ``density`` divides by the total and by every bin's lengths. No grad."""
    import numpy as np

    _need_tensor("histogramdd", input)
    dt = input._dtype
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if dt.name not in ("float32", "float64"):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{dt.torch_name}'")
    n = input._shape[-1]
    if isinstance(bins, (list, tuple)):
        given = [b for b in bins]
        tensors = [isinstance(b, Tensor) for b in given]
        if any(tensors):
            for k, b in enumerate(given):
                if not isinstance(b, Tensor):
                    raise TypeError(f"expected Tensor as element {k} in argument 1, but got "
                                    f"{type(b).__name__}")
        else:
            for k, b in enumerate(given):
                if not isinstance(b, int) or isinstance(b, bool):
                    raise TypeError(f"expected Tensor as element {k} in argument 1, but got "
                                    f"{type(b).__name__}")
    elif isinstance(bins, int) and not isinstance(bins, bool):
        given = [bins] * n
    else:
        raise TypeError(f"histogramdd(): argument 'bins' must be tuple of ints, not "
                        f"{type(bins).__name__}")
    if len(given) != n:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    if weight is not None:
        if tuple(weight._shape) != tuple(input._shape[:-1]):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with "
                f"shape {list(input._shape)} and weight with shape {list(weight._shape)}")
        if weight._dtype is not dt:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight "
                f"tensor should have the same dtype, but got input({_CNAME[dt.name]}), and "
                f"weight({_CNAME.get(weight._dtype.name, weight._dtype.name)})")
    npdt = dt.np.type
    pts = backend.to_numpy(input._a).reshape(-1, n).astype(npdt)
    edges = []
    if isinstance(given[0], Tensor) if given else False:
        edges = [backend.to_numpy(b._a).astype(npdt).reshape(-1) for b in given]
    else:
        for d, b in enumerate(given):
            if b <= 0:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for "
                                   f"dimension {d}")
        if range is not None:
            rng = [float(v) for v in range]
            if len(rng) != 2 * n:
                raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range "
                                   f"should have {2 * n} elements, but got {len(rng)}")
        for d, b in enumerate(given):
            if range is not None:
                lo, hi = rng[2 * d], rng[2 * d + 1]
            elif pts.shape[0]:
                lo, hi = float(pts[:, d].min()), float(pts[:, d].max())
                if np.isnan(pts[:, d]).any():
                    lo = hi = float("nan")
            else:
                lo, hi = 0.0, 1.0
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise RuntimeError(f"torch.histogramdd: dimension {d}'s range "
                                   f"[{_cfmt(lo)}, {_cfmt(hi)}] is not finite")
            if lo > hi:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                                   f"{_cfmt(lo)} max {_cfmt(hi)} for dimension {d}")
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            edges.append(torch_linspace(lo, hi, b + 1, npdt))
    shape = tuple(max(len(e) - 1, 0) for e in edges)
    hist = np.zeros(shape, dtype=npdt)
    if pts.shape[0] and all(shape):
        keep = np.ones(pts.shape[0], dtype=bool)
        pos = []
        for d, e in enumerate(edges):
            v = pts[:, d]
            keep &= (v >= e[0]) & (v <= e[-1])
            p = np.searchsorted(e, v, side="right") - 1
            pos.append(np.clip(p, 0, len(e) - 2))
        w = np.ones(pts.shape[0], dtype=npdt) if weight is None else \
            backend.to_numpy(weight._a).reshape(-1).astype(npdt)
        np.add.at(hist, tuple(p[keep] for p in pos), w[keep])
    if density:
        hist = (hist / npdt(float(hist.sum(dtype=npdt)))).astype(npdt)
        for d, e in enumerate(edges):
            lens = np.diff(e).astype(npdt)
            hist = (hist / lens.reshape([-1 if k == d else 1 for k in builtins_range(n)])
                    ).astype(npdt)
    dev = input._storage.device

    def wrap(a):
        return Tensor._wrap(backend.to_device_array(np.ascontiguousarray(a, dtype=npdt), dev),
                            dev, input._pol)

    return HistogramddResult(wrap(hist), tuple(wrap(e) for e in edges))


_CNAME = {"float32": "float", "float64": "double", "float16": "c10::Half"}
builtins_range = range


# ---- smaller Tensor methods --------------------------------------------------------------------

def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                      layout=None, pin_memory=False):
    from .. import creation

    t = creation.empty_strided(size, stride, dtype=dtype or self._dtype,
                               device=device or self.device, requires_grad=requires_grad)
    if self._pol is not None:
        t._policy = self._pol
    return t


def storage_type(self):
    """The legacy typed-storage class (``torch.FloatStorage``) of this tensor's dtype (torch
    goes through the deprecated typed storage: its warning, once per process)."""
    from . import tensor_extras

    if not tensor_extras._WARNED[0]:
        tensor_extras._WARNED[0] = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                      "UntypedStorage will be the only storage class. This should only matter "
                      "to you if you are using storages directly.  To access UntypedStorage "
                      "directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=2)
    name = f"{self._dtype.torch_name}Storage"
    cls = _STORAGE_TYPES.get(name)
    if cls is None:
        cls = _STORAGE_TYPES[name] = type(name, (), {"__module__": "torch"})
    return cls


_STORAGE_TYPES: dict = {}


def as_subclass(self, cls):
    """A tensor of class ``cls`` over the same data, no history (torch's ``as_subclass``)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass(): argument 'cls' must be a type subclassing Tensor, "
                        f"not {cls!r}")
    a = dispatch.call_view(OPS["alias"], (self,), {})
    a.__class__ = cls
    return a


def _false(doc):
    return property(lambda self: False, doc=doc)


def install(type_method):
    """Tensor's memory_format keywords and the methods above (after ops.install, which would
    otherwise put the plain clone/contiguous/to/type back)."""
    from ..tensor import Tensor as T

    if _orig:
        return
    for name in ("clone", "contiguous", "to", "type", "float", "double", "half", "bfloat16",
                 "long", "int", "short", "char", "byte", "bool", "resize_", "new_empty"):
        if callable(getattr(T, name, None)):
            _orig[name] = getattr(T, name)
    T.clone, T.contiguous, T.to, T.is_contiguous = clone, contiguous, to, is_contiguous
    T.type = type_method
    for name in ("float", "double", "half", "long", "int", "short", "char", "byte", "bool"):
        if name in _orig:
            setattr(T, name, _caster(name))
    T.dim_order = dim_order
    T.resize_ = resize_
    T.new_empty = _new_empty
    T.unsafe_split = unsafe_split
    T.unsafe_chunk = unsafe_chunk
    T.unsafe_split_with_sizes = unsafe_split_with_sizes
    T.narrow_copy = narrow_copy
    T.isreal = isreal
    T.nonzero_static = nonzero_static
    T.new_empty_strided = new_empty_strided
    T.storage_type = storage_type
    T.as_subclass = as_subclass
    T.const_data_ptr = T.data_ptr
    for n in ("meta", "sparse", "sparse_csr", "quantized", "mkldnn", "nested", "xpu", "mps",
              "ipu", "vulkan", "xla", "mtia", "maia"):
        setattr(T, f"is_{n}", _false(f"False: this library has no {n} tensors."))
    install_leftovers(T)


# ---- smaller leftovers of Tensor's API ---------------------------------------------------------

def is_set_to(self, tensor):
    """True when both tensors are the same window on the same storage (offset, sizes, strides)."""
    _need_tensor("is_set_to", tensor, "tensor")
    return (self._storage is tensor._storage and self._offset == tensor._offset and
            self._shape == tensor._shape and self._strides == tensor._strides)


def map2_(self, x, y, callable):
    """``self[i] = callable(self[i], x[i], y[i])`` (x, y broadcast to self); CPU only, no
    version bump (as torch's, and as ``map_``)."""
    import numpy as np

    from . import tensor_extras

    tensor_extras._check_apply(self, "map2_")
    _need_tensor("map2_", x, "x1")
    _need_tensor("map2_", y, "x2")
    a = self._a
    b = np.broadcast_to(x._a, a.shape).reshape(-1).tolist()
    c = np.broadcast_to(y._a, a.shape).reshape(-1).tolist()
    new = [callable(p, q, r) for p, q, r in zip(a.reshape(-1).tolist(), b, c)]
    a[...] = np.asarray(new, dtype=a.dtype).reshape(a.shape)
    return self


def _volatile_get(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


def _volatile_set(self, value):
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                  "instead.", UserWarning, stacklevel=2)


_REINFORCE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def reinforce(self, reward):
    raise RuntimeError(_REINFORCE)


def module_load(self, other, assign=False):
    """What ``nn.Module.load_state_dict`` makes of a loaded value (torch's default)."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def install_leftovers(T):
    T.is_set_to = is_set_to
    T.map2_ = map2_
    T.is_distributed = lambda self: False
    T.volatile = property(_volatile_get, _volatile_set)
    T.reinforce = reinforce
    T.module_load = module_load


# ---- channels-last results of the 4-dim NN kernels --------------------------------------------
# ATen's CPU convolution, pooling, padding and upsampling kernels allocate their result in the
# input's suggested memory format (convolution: the input's or the weight's), so a
# channels-last batch stays channels-last through a CNN, as in torch 2.13.

def _conv_layout(ins, params, shape):
    if len(shape) != 4:
        return None
    for t in ins[:2]:
        if isinstance(t, Tensor) and layout.suggests_channels_last(t._shape, t._strides):
            return format_strides(shape, channels_last)
    return None


def _suggest_layout(ins, params, shape):
    x = ins[0]
    if len(shape) == 4 and isinstance(x, Tensor) and \
            layout.suggests_channels_last(x._shape, x._strides):
        return format_strides(shape, channels_last)
    return None


def _any_layout(*positions):
    """The result in channels-last when any of the tensors at ``positions`` suggests it
    (the backward kernels: ATen lays the gradient out as the forward's memory format)."""
    def rule(ins, params, shape):
        if len(shape) != 4:
            return None
        for i in positions:
            t = ins[i] if i < len(ins) else None
            if isinstance(t, Tensor) and layout.suggests_channels_last(t._shape, t._strides):
                return format_strides(shape, channels_last)
        return None
    return rule


def _set_layouts():
    for name, rule in (("_max_pool2d_grad", _any_layout(1)),
                       ("_avg_pool2d_grad", _any_layout(0)),
                       ("_adaptive_avg_pool2d_grad", _any_layout(0)),
                       ("_conv2d_grad_input", _any_layout(0, 1)),
                       ("_conv2d_grad_weight", _any_layout(0, 1)),
                       ("_conv2d", _conv_layout), ("_conv_transpose", _conv_layout),
                       ("_max_pool2d", _suggest_layout),
                       ("_max_pool2d_with_indices", _suggest_layout),
                       ("_avg_pool2d", _suggest_layout), ("_adaptive_avg_pool2d", _suggest_layout),
                       ("_adaptive_max_pool2d", _suggest_layout),
                       ("_constant_pad_nd", _suggest_layout)):
        spec = OPS.get(name)
        if spec is not None and not spec.layout:
            spec.layout = rule
    for name in ("_max_pool2d_with_indices", "_adaptive_max_pool2d"):  # (composite backwards)
        spec = OPS.get(name)
        if spec is not None and spec.backward is not None and spec.backward_array is None:
            spec.backward = _grad_like_output(spec.backward)


def _grad_like_output(backward):
    """A composite backward (scatter_add into zeros) whose input gradient ATen lays out as the
    channels-last gradient that came in."""
    def bw(c, g):
        grads = backward(c, g)
        if g is None or g.ndim != 4 or not layout.suggests_channels_last(g._shape, g._strides):
            return grads
        return tuple(x if x is None or x.ndim != 4 or
                     is_format_contiguous(x._shape, x._strides, channels_last)
                     else contiguous(x, memory_format=channels_last) for x in grads)
    return bw


_set_layouts()
