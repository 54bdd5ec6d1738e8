"""Padding: ``constant_pad_nd`` (ConstantPadNdBackward0) and the reflect/replicate pads
(ReflectionPad{1,2,3}DBackward0, ReplicationPad{1,2,3}DBackward0).

``pad`` lists (before, after) pairs starting from the *last* dim, as ``F.pad``; a
negative amount crops. The backward of a constant pad is the opposite crop (itself a
constant pad, so it is differentiable again) and saves no tensor; the backward of
reflect/replicate adds each output's gradient back to the input cell it copied. It reads
only the input's shape, yet PyTorch's node saves the input (``_saved_self``, with the
amounts as ``_saved_padding``), so writing the input before backward fails, here too.
"""
from __future__ import annotations

from . import dispatch
from .table import OpSpec, register


def _check_pad(shape, pad):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > len(shape):
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{len(shape)}")


def _pairs(ndim, pad):
    """[(axis, before, after)] from the last axis back, as F.pad reads ``pad``."""
    return [(ndim - 1 - i, int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(len(pad) // 2)]


def _cpad_fwd(xp, x, out=None, dt=None, pad=(), value=0):
    _check_pad(x.shape, pad)
    shape, src, dst = list(x.shape), [slice(None)] * x.ndim, [slice(None)] * x.ndim
    for ax, b, a in _pairs(x.ndim, pad):
        n = x.shape[ax]
        if n + b + a < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        shape[ax] = n + b + a
        src[ax] = slice(max(0, -b), n - max(0, -a))
        dst[ax] = slice(max(0, b), max(0, b) + max(0, n - max(0, -b) - max(0, -a)))
    y = xp.full(tuple(shape), value, dtype=dt.np)
    if all(s.stop is None or s.stop > s.start for s in src):
        y[tuple(dst)] = x[tuple(src)]
    return y


CONSTANT_PAD = register(OpSpec(
    name="_constant_pad_nd", forward=_cpad_fwd,
    backward=lambda c, g: (dispatch.call(CONSTANT_PAD, (g,), {"pad": tuple(-p for p in c["pad"]),
                                                              "value": 0}),),
    params={"pad": (), "value": 0}, dtype_rule="self", method=False, function=False, out=False,
    node_name="ConstantPadNdBackward0",
    doc="constant_pad_nd(input, pad, value=0): saves nothing (its backward crops the gradient)."))


# ---- reflect / replicate ------------------------------------------------------------------------

def _source_index(xp, n, b, a, mode):
    """For every output position along one axis, the input position it copies."""
    i = xp.arange(-b, n + a)
    if mode == "reflect":
        i = xp.abs(i)
        return (n - 1) - xp.abs((n - 1) - i)
    return xp.clip(i, 0, n - 1)


def _check_nonconstant_dims(shape, pad):
    """ATen's check of the input's rank against the padding's length (every non-constant mode)."""
    k = len(pad) // 2
    if len(shape) not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {len(shape)}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _check_nonconstant(shape, pad, mode):
    _check_nonconstant_dims(shape, pad)
    for i, (ax, b, a) in enumerate(_pairs(len(shape), pad)):
        n = shape[ax]
        if n + b + a < 1:
            raise RuntimeError(f"input (W: {n}) is too small. Calculated output W: {n + b + a}")
        if mode == "reflect" and (b >= n or a >= n):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                               "corresponding input dimension, but got: padding "
                               f"({b}, {a}) at dimension {ax} of input {list(shape)}")
        if mode == "replicate" and n == 0:
            raise RuntimeError(f"Expected {len(shape) - 1}D or {len(shape)}D (batch mode) tensor "
                               "with possibly 0 batch size and other non-zero dimensions for "
                               f"input, but got: {list(shape)}")


def _index_pad_fwd(mode):
    def fwd(xp, x, out=None, dt=None, padding=()):
        _check_nonconstant(x.shape, padding, mode)
        for ax, b, a in _pairs(x.ndim, padding):
            x = xp.take(x, _source_index(xp, x.shape[ax], b, a, mode), axis=ax)
        return x
    return fwd


def _index_pad_grad_fwd(xp, g, out=None, dt=None, input_shape=(), pad=(), mode="reflect"):
    """Each output cell's gradient added to its source cell: per padded axis, a product
    with the (out, n) one-hot matrix of the source index (cells copied twice add up)."""
    for ax, b, a in _pairs(len(input_shape), pad):
        n = input_shape[ax]
        onehot = (_source_index(xp, n, b, a, mode)[:, None] == xp.arange(n)[None, :]).astype(g.dtype)
        g = xp.moveaxis(xp.moveaxis(g, ax, -1) @ onehot, -1, ax)
    return g


_GRAD = register(OpSpec(name="_index_pad_grad", forward=_index_pad_grad_fwd, dtype_rule="self",
                        params={"input_shape": (), "pad": (), "mode": "reflect"}, method=False,
                        function=False, out=False))

INDEX_PADS = {}
for _mode, _title in (("reflect", "Reflection"), ("replicate", "Replication")):
    for _k in (1, 2, 3):
        INDEX_PADS[_mode, _k] = register(OpSpec(
            name=f"_{_title.lower()}_pad{_k}d", forward=_index_pad_fwd(_mode),
            backward=lambda c, g, _mode=_mode: (dispatch.call(
                _GRAD, (g,), {"input_shape": tuple(c.input_meta[0][0]), "pad": c["padding"],
                              "mode": _mode}),),
            params={"padding": ()}, saves=("self",), dtype_rule="self", method=False,
            function=False, out=False, node_name=f"{_title}Pad{_k}DBackward0",
            doc=f"{_mode} padding of the last {_k} dim(s): saves its input (as PyTorch)."))
