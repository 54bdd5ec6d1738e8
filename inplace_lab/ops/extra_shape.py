"""torch-level shape functions that compose table ops, as PyTorch's own composites do.

``torch.reshape(x, s)``, ``torch.flatten(x, 1)``, ``torch.ravel(x)`` are the Tensor
methods of ``methods.py`` under a function's signature (a view when the strides allow
one, else a copy: the very same code). ``broadcast_to``/``broadcast_tensors``/
``meshgrid`` are ``expand`` views; ``dstack``, ``fliplr``/``flipud``,
``repeat_interleave``, ``diagflat`` and ``diff`` are the chains of table ops PyTorch
records (``diff`` is ``SubBackward0`` over two ``SliceBackward0`` narrows, so a
student sees the same graph). Only ``rot90``, ``diag_embed`` and the 2-D ``diag``
copy have kernels of their own, because PyTorch gives them one node
(``Rot90Backward0``, ``DiagEmbedBackward0``, ``DiagonalBackward0_copy``).

>>> import inplace_lab.torch as torch
>>> x = torch.arange(6.).reshape(2, 3)
>>> torch.flatten(x)._base is x, torch.rot90(x).stride()
(True, (1, 3))
"""
from __future__ import annotations

import warnings

from .. import dtypes, layout
from ..tensor import Tensor
from . import dispatch, join, methods
from .table import OPS, OpSpec, register


def _composite(fn, method=True, args=("self",), **kw):
    register(OpSpec(name=fn.__name__, forward=fn, kind="composite", method=method, args=args,
                    doc=fn.__doc__, **kw))


def _need_tensor(fname, x, argname="input", pos=1):
    if not isinstance(x, Tensor):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"{fname}(): argument '{argname}'{where} must be Tensor, "
                        f"not {type(x).__name__}")


# ---- the Tensor methods as functions -------------------------------------------------------------

def reshape(input, shape):
    """``torch.reshape(input, shape)``: ``input.reshape(shape)`` (a view when possible)."""
    return methods.reshape(input, shape)


def flatten(input, start_dim=0, end_dim=-1):
    """``torch.flatten``: a view when possible; the input itself when nothing is merged."""
    return methods.flatten(input, start_dim, end_dim)


def ravel(input):
    """``torch.ravel``: ``contiguous().view(-1)`` (a view of the input or of its copy)."""
    return methods.ravel(input)


def numel(input):
    """``torch.numel(input)``: the number of elements, a Python int."""
    _need_tensor("numel", input)
    return input.numel()


for _f in (reshape, flatten, ravel, numel):  # (the Tensor methods are methods.py's own;
    _composite(_f, method=False,              # Paddle's reshape_/flatten_ are its facade's)
               paddle_inplace=_f.__name__ in ("reshape", "flatten"))


# ---- broadcasting views --------------------------------------------------------------------------

def broadcast_to(input, size):
    """``input.expand(size)``: a view with stride 0 on the broadcast dims (ExpandBackward0)."""
    return dispatch.call_view(OPS["expand"], (input, tuple(size)), {})


def broadcast_tensors(*tensors):
    """Each tensor expanded to the common shape; one already of that shape is returned itself."""
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got "
                            f"{type(t).__name__}")
    shape = layout.broadcast_shapes(*(t._shape for t in tensors))
    return tuple(t if t._shape == shape else broadcast_to(t, shape) for t in tensors)


_MESHGRID_WARNING = ("torch.meshgrid: in an upcoming release, it will be required to pass the "
                     "indexing argument.")


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: tensor i viewed along output dim i, then expanded (views, no copy).

    ``indexing='xy'`` swaps the first two output dims (Cartesian: x varies along columns).
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=3)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._dtype is not tensors[0]._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    pos = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        pos[0], pos[1] = 1, 0
    shape = [0] * len(tensors)
    for t, p in zip(tensors, pos):
        shape[p] = t.numel()
    grids = []
    for t, p in zip(tensors, pos):
        view_shape = [1] * len(tensors)
        view_shape[p] = -1
        grids.append(broadcast_to(dispatch.call_view(OPS["view"], (t, view_shape), {}), shape))
    return tuple(grids)


_composite(broadcast_to)
_composite(broadcast_tensors, method=False, args=("tensors",))
_composite(meshgrid, method=False, args=("tensors",))


# ---- copies built from table ops ----------------------------------------------------------------

def _atleast_3d(t):
    if t.ndim == 0:
        return methods.reshape(t, (1, 1, 1))
    if t.ndim == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    if t.ndim == 2:
        return t.unsqueeze(-1)
    return t


def dstack(tensors, *, out=None):
    """``cat`` along dim 2 of the inputs made at least 3-D (CatBackward0 over unsqueeze views)."""
    ts = join._tensor_list(tensors, "dstack")
    if not ts:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return join.cat([_atleast_3d(t) for t in ts], 2, out=out)


def fliplr(input):
    """``flip(input, [1])``: a reversed copy (FlipBackward0)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return join.flip(input, [1])


def flipud(input):
    """``flip(input, [0])``: a reversed copy (FlipBackward0)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return join.flip(input, [0])


_composite(dstack, method=False, args=("tensors",))
_composite(fliplr)
_composite(flipud)


# ---- rot90: one node, PyTorch's strides ---------------------------------------------------------

def _rot90_dims(ndim, k, dims):
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = layout.wrap_dim(dims[0], ndim), layout.wrap_dim(dims[1], ndim)
    if d0 == d1:  # (named as given: [-1, 1] of a matrix is one dim twice)
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    return d0, d1, k % 4


def _rot90_fwd(xp, a, out=None, dt=None, k=1, dims=(0, 1)):
    """PyTorch's recipe, so the result has its strides: k=1 is flip(d1) then a transposed view
    of that copy, k=2 flips both, k=3 flips d0 then transposes, k=0 is a contiguous clone."""
    d0, d1, k = _rot90_dims(a.ndim, k, dims)
    if k == 1:
        return xp.flip(a, d1).copy().swapaxes(d0, d1)
    if k == 2:
        return xp.flip(a, (d0, d1)).copy()
    if k == 3:
        return xp.flip(a, d0).copy().swapaxes(d0, d1)
    return xp.array(a, order="C")


register(OpSpec(name="rot90", forward=_rot90_fwd, params={"k": 1, "dims": (0, 1)},
                backward=lambda c, g: g.rot90(-c["k"], c["dims"]), dtype_rule="self",
                node_name="Rot90Backward0", out=False, doc="rot90(input, k=1, dims=[0, 1])"))


# ---- repeat_interleave ---------------------------------------------------------------------------

def _repeats_index_fwd(xp, r, out=None, dt=None, output_size=None):
    """``repeat_interleave(repeats)``: ``[0]*r[0] + [1]*r[1] + ...`` in repeats' own dtype."""
    if r.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if r.dtype.kind not in "iu":
        name = dt.torch_name
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for \'{name}\'')
    if r.size and int(r.min()) < 0:
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and int(r.sum()) != output_size:
        raise RuntimeError("allocated size does not match required size")
    return xp.repeat(xp.arange(r.shape[0], dtype=r.dtype), r)


_REPEATS_INDEX = register(OpSpec(name="_repeat_interleave_index", forward=_repeats_index_fwd,
                                 params={"output_size": None}, dtype_rule="self", method=False,
                                 function=False, out=False))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element (along ``dim``, or of the flattened input) ``repeats`` times.

    As PyTorch records it: an int repeat is ``unsqueeze -> expand -> clone -> flatten``
    (ViewBackward0 on top); a tensor of repeats builds an index and ``index_select``s
    (IndexSelectBackward0). ``repeat_interleave(repeats)`` alone gives that index.
    """
    if repeats is None:
        return dispatch.call(_REPEATS_INDEX, (input,), {"output_size": output_size})
    src = input if dim is not None else methods.flatten(input)
    d = layout.wrap_dim(0 if dim is None else dim, input.ndim)
    if isinstance(repeats, Tensor):
        if repeats.ndim == 0 or (repeats.ndim == 1 and repeats._shape[0] == 1):
            repeats = broadcast_to(methods.reshape(repeats, (1,)), (src._shape[d],))
        elif repeats.ndim == 1:
            if repeats._shape[0] != src._shape[d]:
                raise RuntimeError(
                    "repeats must have the same size as input along dim, but got "
                    f"repeats.size(0) = {repeats._shape[0]} and input.size({d}) = {src._shape[d]}")
        else:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        index = dispatch.call(_REPEATS_INDEX, (repeats,), {"output_size": output_size})
        return src.index_select(d, index)
    repeats = int(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    grown = src.unsqueeze(d + 1)
    size = list(grown._shape)
    size[d + 1] = repeats
    if output_size is not None and output_size != src._shape[d] * repeats:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected "
                           f"{src._shape[d] * repeats} but got {output_size}")
    copy = dispatch.call(OPS["_contiguous_copy"], (grown.expand(size),), {})
    return methods.flatten(copy, d, d + 1)


_composite(repeat_interleave)


# ---- diagonals ------------------------------------------------------------------------------------

def _embed_dims(ndim_out, offset, dim1, dim2):
    d1, d2 = layout.wrap_dim(dim1, ndim_out), layout.wrap_dim(dim2, ndim_out)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diag_embed_fwd(xp, a, out=None, dt=None, offset=0, dim1=-2, dim2=-1):
    d1, d2 = _embed_dims(a.ndim + 1, offset, dim1, dim2)
    n = (a.shape[-1] if a.ndim else 1) + abs(offset)
    lead = list(a.shape[:-1])
    shape = []
    for i in range(a.ndim + 1):
        shape.append(n if i in (d1, d2) else lead.pop(0))
    res = xp.zeros(shape, dtype=a.dtype)
    moved = xp.moveaxis(res, (d1, d2), (-2, -1))  # (a view of res)
    idx = xp.arange(n - abs(offset))
    moved[..., idx + max(-offset, 0), idx + max(offset, 0)] = a
    return res


register(OpSpec(name="diag_embed", forward=_diag_embed_fwd, dtype_rule="self",
                params={"offset": 0, "dim1": -2, "dim2": -1}, node_name="DiagEmbedBackward0",
                backward=lambda c, g: g.diagonal(c["offset"], c["dim1"], c["dim2"]),
                doc="diag_embed(input, offset=0, dim1=-2, dim2=-1)"))


def _diag_copy_fwd(xp, a, out=None, dt=None, diagonal=0):
    return xp.diagonal(a, diagonal).copy()  # (a copy even where the diagonal is contiguous)


def _diag_copy_bw(c, g):
    """Zeros of the input's shape with ``g`` on the diagonal (PyTorch's diagonal_backward),
    made as the ``diagonal`` view's backward makes it (a fresh gradient: version 0)."""
    from types import SimpleNamespace

    from .shape import _diagonal_geo, scatter_to_geometry

    shape = tuple(c.input_meta[0][0])
    base = SimpleNamespace(_shape=shape, _strides=layout.contiguous_strides(shape), _offset=0,
                           ndim=len(shape))
    return scatter_to_geometry(g, (shape, base._strides, 0),
                               _diagonal_geo(base, c["diagonal"], 0, 1))


_DIAG_COPY = register(OpSpec(name="_diag_copy", forward=_diag_copy_fwd, backward=_diag_copy_bw,
                             params={"diagonal": 0}, dtype_rule="self", method=False,
                             function=False, node_name="DiagonalBackward0_copy"))


def diag(input, diagonal=0, *, out=None):
    """1-D: a matrix with ``input`` on diagonal ``diagonal`` (DiagEmbedBackward0);
    2-D: a *copy* of that diagonal (not a view, unlike ``diagonal``: DiagonalBackward0_copy)."""
    kw = {} if out is None else {"out": out}
    if input.ndim == 1:
        return dispatch.call(OPS["diag_embed"], (input, diagonal, -2, -1), kw)  # (its defaults)
    if input.ndim == 2:
        return dispatch.call(_DIAG_COPY, (input, diagonal), kw)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagflat(input, offset=0):
    """``diag_embed`` of ``input.contiguous().view(-1)``: a square matrix."""
    flat = dispatch.call_view(OPS["view"], (methods.contiguous(input), -1), {})
    return dispatch.call(OPS["diag_embed"], (flat, offset, -2, -1), {})


_composite(diag)
_composite(diagflat)


# ---- diff ---------------------------------------------------------------------------------------

def _check_pad(input, t, d, argname):
    if t is None:
        return
    _need_tensor("diff", t, argname, pos=0)
    if t.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(input.ndim):
        if i != d and t._shape[i] != input._shape[i]:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input "
                f"except along the differencing dimension; input.size({i}) = {input._shape[i]}, "
                f"but got tensor.size({i}) = {t._shape[i]}")


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along ``dim``: ``x[1:] - x[:-1]``, n times (logical_xor for
    bool), after joining ``prepend``/``append`` (CatBackward0). ``n=0`` is a copy
    (CopyBackwards), as PyTorch's ``zeros_like(x).copy_(x)``."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = layout.wrap_dim(dim, input.ndim)
    _check_pad(input, prepend, d, "prepend")
    _check_pad(input, append, d, "append")
    x = input
    if prepend is not None or append is not None:
        x = join.cat([t for t in (prepend, input, append) if t is not None], d)
    if n == 0:
        from .. import creation

        return creation.zeros_like(x).copy_(x)
    length = x._shape[d] - 1
    sub = OPS["logical_xor" if x._dtype is dtypes.bool_ else "sub"]
    for _ in range(min(n, x._shape[d])):
        x = dispatch.call(sub, (x.narrow(d, 1, length), x.narrow(d, 0, length)), {})
        length -= 1
    return x


_composite(diff)
