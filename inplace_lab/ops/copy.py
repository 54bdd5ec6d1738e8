"""Ops that move or overwrite data as a whole: clone, contiguous, copy_, fill_, zero_, to/type."""
from __future__ import annotations

import dataclasses

from .. import dtypes, layout
from ..scalars import as_value, check_value
from ..tensor import Tensor
from .elementwise import zeros_grad
from .table import OpSpec, register


def _clone_fwd(xp, a, out=None, dt=None, memory_format=None):
    """PyTorch's preserve_format: a non-overlapping and dense input keeps its strides, anything
    else (expanded, sliced) comes out C-contiguous."""
    if xp.__name__ == "numpy" and layout.is_dense(a.shape, [s // a.itemsize for s in a.strides]):
        return a.copy(order="K")
    return a.copy()


register(OpSpec(name="clone", forward=_clone_fwd, backward=lambda c, g: g, dtype_rule="self",
                params={"memory_format": None}, out=False))


def _contig_fwd(xp, a, out=None, dt=None):
    return xp.ascontiguousarray(a)


# contiguous() of a non-contiguous tensor is a copy recorded as CloneBackward0, like PyTorch.
register(OpSpec(name="_contiguous_copy", forward=_contig_fwd, backward=lambda c, g: g,
                dtype_rule="self", method=False, function=False, out=False,
                node_name="CloneBackward0"))


def _target_dtype(spec, ins, params):
    return ins[0]._dtype


def _copy_fwd(xp, a, src, out=None, dt=None, non_blocking=False):
    if out is None:
        raise RuntimeError("copy_ is in-place only")
    if not hasattr(src, "shape") or xp is __import__("numpy"):
        out[...] = src
    else:
        out[...] = xp.asarray(src)
    return out


def _copy_bw(c, g):
    gs = None
    if c.needs_input_grad[1]:
        shape, dt, _ = c.input_meta[1]
        gs = g.sum_to_size(shape) if g.shape != shape else g
        if gs._dtype is not dt:
            gs = gs.to(dt)
    return (zeros_grad(g) if c.needs_input_grad[0] else None, gs)


def _src_may_overlap(target, ins, params) -> bool:
    """A source that is one cell broadcast (``x[:] = x[1:2]``: expanded, so not dense, which
    PyTorch calls too hard to check) copies the same value into every cell whatever the
    order: allowed, as in PyTorch. Any other overlap is looked for."""
    src = ins[1] if len(ins) > 1 else None
    if not isinstance(src, Tensor) or src.numel() <= 1:
        return True
    return any(n > 1 and s != 0 for n, s in zip(src._shape, src._strides))


register(OpSpec(name="copy", forward=_copy_fwd, backward=_copy_bw, args=("self", "src"),
                params={"non_blocking": False}, dtype_rule=_target_dtype, inplace=True,
                torch_inplace=True, paddle_inplace=True, method=False, function=False,
                out=False, node_name="torch::autograd::CopyBackwards",
                overlap_inputs=_src_may_overlap))


def _fill_fwd(xp, a, value, out=None, dt=None):
    if out is None:
        raise RuntimeError("fill_ is in-place only")
    if isinstance(value, (int, float, complex)):  # PyTorch's checked conversion of a number
        check_value(value, out)
        value = as_value(xp, value, out.dtype)
    out[...] = value
    return out


def _fill_bw(c, g):
    """The target's old values are gone; a 0-dim tensor value gets every cell's grad (torch)."""
    return (zeros_grad(g) if c.needs_input_grad[0] else None,
            g.sum() if c.needs_input_grad[1] else None)


def _fill_select(args, kwargs):
    """``fill_(Tensor)`` is another overload in PyTorch: FillBackward3, not FillBackward2."""
    v = args[1] if len(args) > 1 else kwargs.get("value")
    return _FILL_TENSOR if hasattr(v, "_vc") else None


_FILL = register(OpSpec(name="fill", forward=_fill_fwd, internal_overlap_ok=True,
                        args=("self", "value"), backward=_fill_bw, dtype_rule=_target_dtype,
                        inplace=True, paddle_inplace=True, method=False, function=False,
                        out=False, node_name="FillBackward2", select=_fill_select))
# fill_ with a 0-dim *tensor* value: PyTorch's FillBackward3 (also setitem's, which turns a
# number into such a tensor first, as PyTorch's valueToTensor does). Unlike fill_(Scalar) it
# refuses an expanded target (``x.expand(2, 3)[:] = 1.`` raises); it reads value.item() before
# writing, so the value may live in the target (``x.fill_(x[1])``, ``x[:] = x[1]``)
_FILL_TENSOR = dataclasses.replace(_FILL, node_name="FillBackward3", select=None,
                                   internal_overlap_ok=False, overlap_inputs=False)


def _zero_fwd(xp, a, out=None, dt=None):
    if out is None:
        raise RuntimeError("zero_ is in-place only")
    out[...] = 0
    return out


register(OpSpec(name="zero", forward=_zero_fwd, internal_overlap_ok=True, backward=lambda c, g: zeros_grad(g),
                dtype_rule=_target_dtype, inplace=True, paddle_inplace=True, method=False,
                function=False, out=False))


def _to_dtype_rule(spec, ins, params):
    return dtypes.from_any(params["dtype"])


def _cast_fwd(xp, a, out=None, dt=None, dtype=None):
    return a.astype(dt.np)


def _cast_bw(c, g):
    """The gradient goes back in the input's dtype *and* device (``x.cuda()`` sends it home)."""
    shape, dt, dev = c.input_meta[0]
    if not (dt.is_floating_point or dt.is_complex):
        return None
    return g.to(dev, dt) if dev is not None else g.to(dt)


register(OpSpec(name="_to_copy", forward=_cast_fwd, backward=_cast_bw, params={"dtype": None},
                dtype_rule=_to_dtype_rule, method=False, function=False, out=False,
                node_name="ToCopyBackward0"))
