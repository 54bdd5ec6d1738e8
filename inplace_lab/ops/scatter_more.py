"""The ``*_scatter`` ops (out-of-place inverses of the view ops) and small split/flag methods.

``torch.select_scatter(x, src, dim, index)`` is ``x.clone()`` with ``src`` written into the
cells ``x.select(dim, index)`` would see; ``slice_scatter``, ``diagonal_scatter`` and
``as_strided_scatter`` do the same for their views. None of them is a view and none writes
into ``x``: they are what functionalization turns ``x.select(0, 1).copy_(src)`` into.

One kernel serves all four: the view's geometry (from the view op's own geometry rule in
``shape.py``, on a contiguous stand-in for ``x``) says which cells of the clone ``src`` fills.
Backward, as PyTorch's derivatives.yaml: ``src`` gets the gradient seen through the view,
``self`` the gradient with those cells zeroed (``select_scatter(grad, zeros_like(src), ...)``);
as_strided_scatter's ``self`` gradient is torch's own (it *keeps* the scattered cells and
zeroes the rest: ``as_strided_scatter_backward``).

Also here: ``hsplit``/``vsplit``/``dsplit``, ``split_with_sizes`` (views, as torch) and the
flag methods ``is_signed``, ``is_nonzero``, ``is_same_size``, ``is_conj``, ``is_neg``,
``resolve_conj``, ``resolve_neg``.
"""
from __future__ import annotations

from types import SimpleNamespace

from .. import layout
from ..tensor import Tensor
from . import dispatch, shape
from .table import OPS, OpSpec, register


# ---- the *_scatter ops ------------------------------------------------------------------------

def _stand_in(a):
    """A contiguous tensor-like of ``a``'s shape: what the view ops' geometry rules read."""
    shp = tuple(a.shape)
    return SimpleNamespace(_shape=shp, _strides=layout.contiguous_strides(shp), _offset=0,
                           ndim=len(shp))


def _select_view(a, dim, index):
    return shape._select_geo(_stand_in(a), dim, index)


def _slice_view(a, dim=0, start=None, end=None, step=1):
    if step is not None and int(step) <= 0:
        raise RuntimeError("slice step must be positive")
    return shape._slice_geo(_stand_in(a), dim, start, end, step)


def _diagonal_view(a, offset=0, dim1=0, dim2=1):
    return shape._diagonal_geo(_stand_in(a), offset, dim1, dim2)


def _as_strided_view(a, size, stride, storage_offset=None):
    off = 0 if storage_offset is None else int(storage_offset)
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    need = layout.storage_size_needed(size, stride, off)
    if need > a.size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and "
            f"itemsize {a.itemsize} requiring a storage size of {need * a.itemsize} are out of "
            f"bounds for storage of size {a.size * a.itemsize}")
    return size, stride, off


def _scatter_kernel(view_of):
    """The forward: a copy of ``a`` with ``src`` in the cells of ``view_of(a, **params)``."""

    def fwd(xp, a, src, out=None, dt=None, **params):
        geo = view_of(a, **params)
        if tuple(src.shape) != tuple(geo[0]):
            raise RuntimeError("expected src to have a size equal to the slice of self. src size "
                               f"= {list(src.shape)}, slice size = {list(geo[0])}")
        shp = tuple(a.shape)
        idx = layout.element_index_map((shp, layout.contiguous_strides(shp), 0), geo)
        res = xp.array(a, copy=True).reshape(-1)  # (row-major: the stand-in's cell order)
        if idx.size:
            res[xp.asarray(idx)] = src.astype(a.dtype, copy=False).reshape(-1)
        res = res.reshape(shp)
        if out is not None:
            out[...] = res
            return out
        return res

    return fwd


def _zeros_like_src(c, g):
    from .. import creation

    shp, _, dev = c.input_meta[1]
    return creation.zeros(shp, dtype=g._dtype, device=dev)


def _select_scatter_bw(c, g):
    dim, index = c["dim"], c["index"]
    return (g.select_scatter(_zeros_like_src(c, g), dim, index) if c.needs_input_grad[0] else None,
            g.select(dim, index) if c.needs_input_grad[1] else None)


def _slice_scatter_bw(c, g):
    p = (c["dim"], c["start"], c["end"], c["step"])
    src_grad = None
    if c.needs_input_grad[1]:
        src_grad = dispatch.call_view(OPS["slice"], (g,), dict(zip(("dim", "start", "end", "step"), p)))
    return (g.slice_scatter(_zeros_like_src(c, g), *p) if c.needs_input_grad[0] else None,
            src_grad)


def _diagonal_scatter_bw(c, g):
    p = (c["offset"], c["dim1"], c["dim2"])
    return (g.diagonal_scatter(_zeros_like_src(c, g), *p) if c.needs_input_grad[0] else None,
            g.diagonal(*p) if c.needs_input_grad[1] else None)


def _as_strided_scatter_bw(c, g):
    """torch's formulas: src gets ``grad.contiguous().as_strided(...)``; self gets the same
    cells of the gradient (not zeroed: as_strided_scatter_backward), zeros elsewhere."""
    p = (c["size"], c["stride"], c["storage_offset"])
    part = g.contiguous().as_strided(*p)
    self_grad = None
    if c.needs_input_grad[0]:
        from .. import creation

        self_grad = creation.zeros_like(g)
        self_grad.as_strided(*p).copy_(part)  # (torch's copy_: the gradient's version is 1)
    return self_grad, (part if c.needs_input_grad[1] else None)


def _need_tensors(name):
    """torch's argument parser: ``self`` and ``src`` must be tensors (no Python numbers)."""

    def select(args, kwargs):
        src = args[1] if len(args) > 1 else kwargs.get("src")
        for pos, (arg, label) in enumerate(((args[0] if args else None, "input"), (src, "src")), 1):
            if not isinstance(arg, Tensor):
                raise TypeError(f"{name}(): argument '{label}' (position {pos}) must be Tensor, "
                                f"not {type(arg).__name__}")
        return None

    return select


for _name, _view, _bw, _params in (
        ("select_scatter", _select_view, _select_scatter_bw, {"dim": 0, "index": 0}),
        ("slice_scatter", _slice_view, _slice_scatter_bw,
         {"dim": 0, "start": None, "end": None, "step": 1}),
        ("diagonal_scatter", _diagonal_view, _diagonal_scatter_bw,
         {"offset": 0, "dim1": 0, "dim2": 1}),
        ("as_strided_scatter", _as_strided_view, _as_strided_scatter_bw,
         {"size": (), "stride": (), "storage_offset": None})):
    register(OpSpec(name=_name, forward=_scatter_kernel(_view), backward=_bw,
                    args=("self", "src"), params=_params, dtype_rule="self", layout="preserve",
                    select=_need_tensors(_name), nondiff=(),
                    doc=f"torch.{_name}(input, src, ...): a copy of input with src written "
                        "where the view would see (not a view, input unchanged)."))


# ---- splits (views, as torch) -------------------------------------------------------------------

def split_with_sizes(self, split_sizes, dim=0):
    """``torch.split(x, [sizes])``: slice views with SplitWithSizesBackward0."""
    return dispatch.call_view(OPS["_split_with_sizes"], (self, list(split_sizes), dim), {})


def _dir_split(name, dim, min_ndim, what):
    def fn(self, indices_or_sections):
        if self.ndim < min_ndim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} "
                               f"dimension, but got a tensor with "
                               f"{self.ndim} dimensions!")
        d = 0 if (name == "hsplit" and self.ndim == 1) else dim
        if isinstance(indices_or_sections, int):
            n = self._shape[d]
            if indices_or_sections == 0 or n % indices_or_sections:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {d}, but the size of the "
                    f"dimension {n} is not divisible by the split_size {indices_or_sections}!")
        return self.tensor_split(indices_or_sections, d)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: tensor_split along {what} (sections must divide it evenly)."
    return fn


hsplit = _dir_split("hsplit", 1, 1, "dim 1 (dim 0 of a 1-d tensor)")
vsplit = _dir_split("vsplit", 0, 2, "dim 0")
dsplit = _dir_split("dsplit", 2, 3, "dim 2")


# ---- flags --------------------------------------------------------------------------------------

def is_signed(self):
    """False only for unsigned integers and bool."""
    return self._dtype.name not in ("bool", "uint8", "uint16", "uint32", "uint64")


def is_nonzero(self):
    """The truth of a one-element tensor (RuntimeError for none or several)."""
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def is_same_size(self, other):
    return tuple(self._shape) == tuple(other._shape)


def is_conj(self):
    """Always False: this library has no lazy conjugate views."""
    return False


def is_neg(self):
    """Always False: this library has no lazy negative views."""
    return False


def resolve_conj(self):
    """``self`` itself (no conjugate bit to materialize)."""
    return self


def resolve_neg(self):
    """``self`` itself (no negative bit to materialize)."""
    return self


for _f in (split_with_sizes, hsplit, vsplit, dsplit, is_signed, is_nonzero, is_same_size,
           is_conj, is_neg, resolve_conj, resolve_neg):
    register(OpSpec(name=_f.__name__, forward=_f, kind="composite", method=True,
                    args=("self",), doc=_f.__doc__))


def prelu(self, weight):
    """``x.prelu(weight)`` is ``F.prelu(x, weight)`` (PreluKernelBackward0)."""
    from ..nn import functional_layers

    return functional_layers.prelu(self, weight)


register(OpSpec(name="prelu", forward=prelu, kind="composite", method=True, function=False,
                args=("self",), doc=prelu.__doc__))
