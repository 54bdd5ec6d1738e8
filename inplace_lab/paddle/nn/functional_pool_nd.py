"""The pooling engine behind ``functional_pool``: any number of spatial dims, Paddle's rules.

A window pool is written as its *taps*: pad the input (``-inf`` for max, ``0`` for sums),
take one strided slice per kernel offset, stack them on a new last axis and reduce it
(``max`` / ``sum``). Every step is a differentiable facade op, so gradients follow; the
max's mask (``return_mask``) is computed on the side in numpy, as Paddle's int32 flat
index into each input plane (the first maximum of a window wins, as in Paddle's kernel).

Paddle's geometry (``pooling.cc``): ``out = (in + pad_before + pad_after - k) // s + 1``
(``ceil_mode`` rounds up); an average divides by the valid (non-padding) cell count when
``exclusive``, else by the cells the window covers inside input + padding.
Adaptive windows are ``[floor(i * n / o), ceil((i + 1) * n / o))`` per dim; being boxes,
they pool one dim at a time.
"""
from __future__ import annotations

import itertools

import numpy as np


def _pd():
    from inplace_lab import paddle as pd

    return pd


def out_sizes(spatial, kernel, stride, pads, ceil_mode):
    out = []
    for n, k, s, (pb, pa) in zip(spatial, kernel, stride, pads):
        span = n + pb + pa - k
        out.append((-(-span // s) if ceil_mode else span // s) + 1)
    return out


def same_pads(spatial, kernel, stride):
    """Paddle's 'SAME': ``ceil(in / stride)`` outputs, the odd padding cell after."""
    pads = []
    for n, k, s in zip(spatial, kernel, stride):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        pads.append([total // 2, total - total // 2])
    return pads


def _edges(spatial, kernel, stride, pads, out):
    """Per dim (before, after) so the padded length is exactly ``(out - 1) * s + k``."""
    return [[pb, (o - 1) * s + k - n - pb]
            for n, k, s, (pb, _), o in zip(spatial, kernel, stride, pads, out)]


def _taps(x, kernel, stride, edges, out, fill):
    """Stack the strided slices of the padded ``x``, one per kernel offset, on a new axis."""
    from inplace_lab.nn import functional as core

    nd = len(kernel)
    amounts = tuple(v for before, after in reversed(edges) for v in (before, after))
    if any(amounts):
        x = core.pad(x, amounts, value=fill)
    lead = (slice(None),) * (x.ndim - nd)
    parts = [x[lead + tuple(slice(t, t + s * (o - 1) + 1, s)
                            for t, s, o in zip(offset, stride, out))]
             for offset in itertools.product(*[range(k) for k in kernel])]
    return _pd().stack(parts, axis=-1)


def max_pool(x, kernel, stride, pads, ceil_mode, return_mask):
    """x is channels-first; returns the pooled tensor (and the int32 mask)."""
    spatial = list(x.shape[2:])
    out = out_sizes(spatial, kernel, stride, pads, ceil_mode)
    edges = _edges(spatial, kernel, stride, pads, out)
    y = _taps(x, kernel, stride, edges, out, float("-inf")).max(axis=-1)
    if not return_mask:
        return y
    return y, _mask(x.numpy(), kernel, stride, edges, out)


def _mask(a, kernel, stride, edges, out):
    nd = len(kernel)
    spatial = a.shape[2:]
    padded = _np_pad(a.astype(np.float64), edges, -np.inf)
    best = np.full(a.shape[:2] + tuple(out), -np.inf)
    index = np.zeros(a.shape[:2] + tuple(out), dtype=np.int64)
    grids = np.meshgrid(*[np.arange(o) for o in out], indexing="ij")
    for offset in itertools.product(*[range(k) for k in kernel]):
        sl = tuple(slice(t, t + s * (o - 1) + 1, s) for t, s, o in zip(offset, stride, out))
        v = padded[(slice(None), slice(None)) + sl]
        flat = np.zeros(tuple(out), dtype=np.int64)
        for d in range(nd):  # input coordinate of this tap, flattened row-major
            coord = grids[d] * stride[d] + offset[d] - edges[d][0]
            flat = flat * spatial[d] + coord
        better = v > best
        best = np.where(better, v, best)
        index = np.where(better, flat, index)
    return _pd().to_tensor(index.astype(np.int32))


def _np_pad(a, edges, fill):
    """numpy's pad of the trailing dims, where a negative amount crops (as the core's pad)."""
    a = np.pad(a, [(0, 0)] * (a.ndim - len(edges)) + [(max(b, 0), max(e, 0)) for b, e in edges],
               constant_values=fill)
    crop = tuple(slice(-min(b, 0), a.shape[a.ndim - len(edges) + i] + min(e, 0))
                 for i, (b, e) in enumerate(edges))
    return a[(slice(None),) * (a.ndim - len(edges)) + crop]


def avg_pool(x, kernel, stride, pads, ceil_mode, exclusive):
    spatial = list(x.shape[2:])
    out = out_sizes(spatial, kernel, stride, pads, ceil_mode)
    edges = _edges(spatial, kernel, stride, pads, out)
    total = _taps(x, kernel, stride, edges, out, 0.0).sum(axis=-1)
    dt = str(x.dtype).split(".")[-1]
    return total / _pd().to_tensor(_counts(spatial, kernel, stride, pads, out, exclusive)
                                   .astype(dt))


def _counts(spatial, kernel, stride, pads, out, exclusive):
    """Each window's divisor, one factor per dim (windows are boxes): the real cells when
    ``exclusive``, else the cells inside input + padding (a ceil_mode window that runs past
    the padded end counts only what it covers)."""
    count = np.ones([1] * len(spatial), dtype=np.float64)
    for d, (n, k, s, (pb, pa), o) in enumerate(zip(spatial, kernel, stride, pads, out)):
        start = np.arange(o) * s  # in padded coordinates
        if exclusive:
            c = np.minimum(start + k, n + pb) - np.maximum(start, pb)
        else:
            c = np.minimum(start + k, n + pb + pa) - start
        shape = [1] * len(spatial)
        shape[d] = o
        count = count * np.maximum(c, 1).reshape(shape)
    return count


def lp_pool(x, norm_type, kernel, stride, pads, ceil_mode):
    """``(sum over the window of x ** p) ** (1 / p)``."""
    spatial = list(x.shape[2:])
    out = out_sizes(spatial, kernel, stride, pads, ceil_mode)
    edges = _edges(spatial, kernel, stride, pads, out)
    return (_taps(x ** norm_type, kernel, stride, edges, out, 0.0).sum(axis=-1)
            ** (1.0 / norm_type))


def _bounds(n, o):
    return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]


def adaptive_pool(x, out, kind, return_mask=False):
    """kind 'avg' or 'max'; x channels-first, ``out`` one size per spatial dim (None keeps
    the input's size)."""
    pd = _pd()
    nd = len(out)
    spatial = list(x.shape[2:])
    out = [n if o is None else o for n, o in zip(spatial, out)]
    y = x
    for d in range(nd):
        axis = 2 + d
        lead = (slice(None),) * axis
        parts = [y[lead + (slice(a, b),)] for a, b in _bounds(spatial[d], out[d])]
        red = [p.mean(axis=axis, keepdim=True) if kind == "avg" else
               p.max(axis=axis, keepdim=True) for p in parts]
        y = pd.concat(red, axis=axis)
    if not return_mask:
        return y
    a = x.numpy()
    index = np.zeros(a.shape[:2] + tuple(out), dtype=np.int64)
    for pos in itertools.product(*[range(o) for o in out]):
        box = [_bounds(n, o)[i] for n, o, i in zip(spatial, out, pos)]
        win = a[(slice(None), slice(None)) + tuple(slice(lo, hi) for lo, hi in box)]
        local = win.reshape(a.shape[0], a.shape[1], -1).argmax(-1)
        coords = np.unravel_index(local, [hi - lo for lo, hi in box])
        flat = np.zeros_like(local)
        for d in range(nd):
            flat = flat * spatial[d] + coords[d] + box[d][0]
        index[(slice(None), slice(None)) + pos] = flat
    return y, pd.to_tensor(index.astype(np.int32))


def max_unpool(x, indices, out_spatial):
    """Scatter each value to its flat index in a zero plane of ``out_spatial``."""
    pd = _pd()
    n, c = x.shape[:2]
    size = int(np.prod(out_spatial))
    flat_x = x.reshape([n, c, -1])
    flat_i = indices.astype("int64").reshape([n, c, -1])
    bad = np.flatnonzero(flat_i.numpy() >= size)  # Paddle's kernel names the first one
    if bad.size:
        top = int(flat_i.numpy().ravel()[bad[0]])
        what = ("depth * output tensor " if len(out_spatial) == 3 else "") + \
            "height * output tensor width"
        raise ValueError(f"(InvalidArgument) index should less than output tensor {what}. "
                         f"Expected {top} < {size}, but got {top} >= {size}. Please check "
                         "input value.")
    zeros = pd.zeros([n, c, size], dtype=str(x.dtype).split(".")[-1])
    return pd.put_along_axis(zeros, flat_i, flat_x, axis=2).reshape([n, c] + list(out_spatial))
