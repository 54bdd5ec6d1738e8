"""PyTorch's and Paddle's CPU ``sum`` in their own orders of additions (ATen's SumKernel
``cascade_sum``; Eigen's reducers behind Paddle's, at the end of this module).

Floating-point addition is not associative, so a sum's last bits depend on the order it
adds in. numpy adds pairwise; PyTorch's CPU kernel walks the TensorIterator's loops with
four interleaved accumulators per row (``row_sum``), SIMD lanes (``Vectorized``, 8
floats or 4 doubles wide), and a cascade of partial sums every 16 rows (``multi_row_sum``). Where that
matters (``(x - x.mean()).sum()`` is exactly 0 in one order and 6e-08 in the other, and a
``log`` after it turns that into -inf against -16.6) a lesson shows different numbers.
This module replays the kernel's order with numpy, for float32 and float64 sums that
PyTorch runs on one thread (fewer than ``GRAIN_SIZE`` = 32768 input elements); larger
sums, other dtypes and other devices keep numpy's (pairwise) order.

The layout PyTorch iterates in: the reduced dims first (innermost), sorted by the input's
strides, the kept dims after them; neighbouring dims that are one run of memory merged;
the first two dims are the kernel's 2-D loop (``size0``, ``size1``), any further dims loop
around it, each pass adding into the (zero-filled) output.
"""
from __future__ import annotations

import numpy as np

from ..layout import _perm

GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE: more input elements and the reduction splits
_ILP = 4  # row_sum's interleaved accumulators; also scalar/vectorized_outer_sum's rows
# numpy's in-order running sum, called as the ufunc method (np.cumsum's Python wrapper would
# warn about inf - inf from numpy's own frame, which the package's warning filter leaves alone)
_accumulate = np.add.accumulate


# Bytes in the ``Vectorized`` registers the sum kernel uses: ATen registers its reduction
# kernels for AVX2 (and the default build, also 32-byte vectors), not AVX512, so a sum is
# the same on an AVX512 machine (checked against torch 2.13 on one)
VECTOR_BYTES = 32


def _ceil_log2(x: int) -> int:
    return 1 if x <= 2 else (x - 1).bit_length()


def _seq(m):
    """``((0 + m[0]) + m[1]) + ...``: a sequential sum over axis 0, starting at +0 (numpy's
    accumulate adds in order; ``+ 0.0`` turns its -0.0, where the sum from +0 has +0.0)."""
    n = m.shape[0]
    if n == 0:
        return np.zeros(m.shape[1:], m.dtype)
    if n > 32 or m.ndim == 1:
        return _accumulate(m, axis=0)[-1] + 0.0
    s = m[0] + 0.0  # (a short axis: one add per row over the other axes at once)
    for i in range(1, n):
        s += m[i]
    return s


def _seq1(b):
    """``_seq`` over axis 1 (each of axis 0's rows its own sum): one add per step of a short
    axis over everything else at once (numpy's accumulate makes one short call per row)."""
    if b.shape[1] == 0:
        return np.zeros(b.shape[:1] + b.shape[2:], b.dtype)
    s = b[:, 0] + 0.0
    for i in range(1, b.shape[1]):
        s += b[:, i]
    return s


def _multi_row_sum(m):
    """ATen's ``multi_row_sum`` over axis 0 of ``m`` (every other axis its own accumulator):
    rows added in order into level 0; every ``step`` rows level 0 moves into level 1, every
    ``step`` of those level 1 into level 2, every ``step`` of those level 2 into level 3;
    then ``((0 + 1) + 2) + 3`` (a level that was never used adds +0, which changes nothing
    in a sum that started at +0)."""
    size = m.shape[0]
    step = 1 << max(4, _ceil_log2(size) // 4)
    if size < step:
        return _seq(m)
    rest = m.shape[1:]
    nb = size // step
    cur = _seq1(m[:nb * step].reshape((nb, step) + rest))  # each block's rows, in order
    acc0 = _seq(m[nb * step:])  # the rows after the last whole block
    for level in (1, 2, 3):
        if level == 3:  # the top level is only ever added to
            acc0 += _seq(cur)
            break
        ng = len(cur) // step
        if ng * step < len(cur):
            acc0 += _seq(cur[ng * step:])  # this level's partial group
        if ng == 0:
            break
        cur = _seq1(cur[:ng * step].reshape((ng, step) + rest))  # whole groups, moved up
    return acc0


def _row_sum(x):
    """ATen's ``row_sum`` over axis 0: four interleaved accumulators (``_multi_row_sum`` of
    the rows taken four at a time), the leftover rows added to the first, then 0+1+2+3."""
    n = x.shape[0]
    q = n // _ILP
    if q == 0:
        return _seq(x)
    p = _multi_row_sum(x[:q * _ILP].reshape((q, _ILP) + x.shape[1:]))
    if q * _ILP < n:
        p = np.concatenate([p[:1], x[q * _ILP:], p[1:]])
    return _seq(p)  # (p[0] is a sum from +0 already: 0 + p[0] is p[0])


def _inner(v, lanes):
    """``vectorized_inner_sum``: axis 0 reduced and contiguous, at least one vector long; the
    vectors' lanes summed by ``row_sum``, the leftover elements added to 0 one by one, then
    the lanes in order. Every other axis is independent."""
    n = v.shape[0]
    vs = n // lanes
    vacc = _row_sum(v[:vs * lanes].reshape((vs, lanes) + v.shape[1:]))  # (lanes,) + rest
    if vs * lanes < n:
        vacc = np.concatenate([v[vs * lanes:], vacc])
    return _seq(vacc)


def _outer(v, group):
    """``vectorized_outer_sum`` (``group`` = 4 vectors of columns) / ``scalar_outer_sum``
    (``group`` = 4): axis 0 reduced; the columns (axis 1) of whole groups by
    ``multi_row_sum``, the others by ``row_sum``."""
    cols = v.shape[1]
    j = cols // group * group
    if j == cols:
        return _multi_row_sum(v)
    if j == 0:
        return _row_sum(v)
    return np.concatenate([_multi_row_sum(v[:, :j]), _row_sum(v[:, j:])])


def _line_sums(v, st0, st1, lanes):
    """``cascade_sum``'s choice for one 2-D pass: ``v`` (size0 reduced, size1, outer dims...)
    with input strides ``st0``/``st1`` (elements) -> the sum of each of the size1 lines."""
    size0, size1 = v.shape[:2]
    if st0 == 1 and size0 >= lanes:
        return _inner(v, lanes)
    if st1 == 1 and size1 >= lanes:
        return _outer(v, _ILP * lanes)
    if st0 < st1:
        return _row_sum(v)  # scalar_inner_sum
    return _outer(v, _ILP)


def _loop_dims(shape, strides, out_strides):
    """TensorIterator's dims for the reduction, innermost first: ``reorder_dimensions``
    (the output first: its reduced dims, stride 0, go innermost; then by strides, a 0 stride
    having no say, a tie putting the smaller dim first) and ``coalesce_dimensions`` (a dim
    of size 1, or one that continues the previous in every operand, merges into it).
    Returns ``[size, input stride, output stride]`` lists."""
    perm = _perm(shape, (out_strides, strides), reduction=True)
    dims = [[shape[d], strides[d], out_strides[d]] for d in perm]
    merged = [dims[0]]
    for size, ist, ost in dims[1:]:
        prev = merged[-1]
        if prev[0] == 1 or size == 1 or (prev[0] * prev[1] == ist and prev[0] * prev[2] == ost):
            if prev[0] == 1:
                prev[1], prev[2] = ist, ost
            prev[0] *= size
        else:
            merged.append([size, ist, ost])
    return merged


def torch_sum(a, axes, keepdim: bool, out_dtype, mean: bool = False):
    """``a.sum(axes)`` (``mean``: ``a.mean(axes)``, PyTorch's CPU mean being that sum divided
    by the count) in PyTorch's CPU order, or None where this does not model it (the caller
    then sums with numpy): ``a`` a numpy array of float32/float64 summed in its own dtype
    (or cast to ``out_dtype`` first), fewer than ``GRAIN_SIZE`` elements, not empty; ``axes``
    a tuple of non-negative dims (all when empty)."""
    r = _torch_sum(a, axes, keepdim, out_dtype)
    if r is None or not mean:
        return r
    n = 1
    for d in axes or range(a.ndim):
        n *= a.shape[d]
    return r / n


def _torch_sum(a, axes, keepdim, out_dtype):
    out_dtype = np.dtype(out_dtype)
    if a.size >= GRAIN_SIZE or a.size == 0 or type(a) is not np.ndarray or \
            out_dtype.kind != "f" or out_dtype.itemsize not in (4, 8):
        return None
    if a.dtype != out_dtype:  # (``sum(dtype=)``: torch casts first, keeping the layout)
        if a.dtype.kind not in "biuf" or a.dtype.itemsize < 4 and a.dtype.kind == "f":
            return None
        a = a.astype(out_dtype, order="K")
    dt = a.dtype
    item = dt.itemsize
    if not axes or len(axes) == a.ndim:
        if a.flags.c_contiguous:  # one run of memory: the 1-D loop
            r = _line_sums(a.reshape(-1, 1), 1, 0, VECTOR_BYTES // item)[0] + 0.0
            #   (the output starts at +0)
            return r.reshape((1,) * a.ndim) if keepdim else r.reshape(())
    strides = [s // item for s in a.strides]
    if any(s < 0 for s in strides):
        return None
    nd = a.ndim
    reduced = set(axes) if axes else set(range(nd))
    out_shape = tuple(1 if d in reduced else a.shape[d] for d in range(nd))
    kept_shape = tuple(a.shape[d] for d in range(nd) if d not in reduced)
    if all(a.shape[d] == 1 for d in reduced):  # nothing to add: 0 + x
        res = np.zeros(out_shape, dt) + a.reshape(out_shape)
        return res if keepdim else res.reshape(kept_shape)
    ost, acc = [0] * nd, 1
    for d in range(nd - 1, -1, -1):
        if d not in reduced:
            ost[d] = acc
            acc *= a.shape[d]
    dims = _loop_dims(a.shape, strides, ost)
    if len(dims) == 1:
        dims.append([1, 0, 0])
    v = np.lib.stride_tricks.as_strided(a, shape=tuple(d[0] for d in dims),
                                        strides=tuple(d[1] * item for d in dims))
    r = _line_sums(v, dims[0][1], dims[1][1], VECTOR_BYTES // item)  # (size1, outer dims...)
    nred = 1
    while nred < len(dims) and dims[nred][2] == 0:
        nred += 1  # dims 1.. that are reduced too: their passes add into the same outputs
    if nred > 1:  # in the iterator's order (dim 1 fastest)
        lines = r.transpose(tuple(range(nred - 2, -1, -1)) + tuple(range(nred - 1, r.ndim)))
        out = _seq(lines.reshape((-1,) + lines.shape[nred - 1:]))
    else:
        out = r + 0.0  # (each output: 0 + its one pass)
    out = out.transpose(tuple(range(out.ndim - 1, -1, -1)))  # the kept dims, outermost first
    res = np.ascontiguousarray(out).reshape(kept_shape)
    return res.reshape(out_shape) if keepdim else res


def torch_nansum(a, axes, keepdim: bool, out_dtype):
    """``nansum``: the same order, each NaN read as 0 (ATen's NanSumCastLoadPolicy). The
    zeros go into a copy with ``a``'s own strides, which decide the order."""
    if type(a) is not np.ndarray or a.dtype.kind != "f" or a.size == 0 or \
            any(s < 0 for s in a.strides):
        return None
    nan = np.isnan(a)
    if nan.any():
        extent = sum((n - 1) * s for n, s in zip(a.shape, a.strides)) // a.itemsize + 1
        b = np.lib.stride_tricks.as_strided(np.empty(extent, a.dtype), a.shape, a.strides)
        b[...] = a
        b[nan] = 0
        a = b
    return torch_sum(a, axes, keepdim, out_dtype)


# ---- Paddle's order (Eigen's reducers, Paddle 3.3.1's CPU kernels) ---------------------------
# A reduction over every axis is Eigen's full reduction of the values in row-major order:
# ``sum`` its tree reducer (halves while longer than 1024 packets; a leaf adds packets into two
# interleaved accumulators), ``mean`` its MeanReducer (one packet accumulator, then / n). A
# reduction over some axes adds each output's values one by one from 0, the first reduced axis
# fastest; ``mean`` divides that by their count. Packets are 8 floats or 4 doubles (AVX).

_EIGEN_LEAF = 1024  # Eigen's LeafSize: packets per tree leaf


def _predux(p):
    """Eigen's ``predux`` of a packet: its halves added until one lane is left."""
    while p.shape[0] > 1:
        h = p.shape[0] // 2
        p = p[:h] + p[h:]
    return p[0]


def _eigen_leaf(a, lanes):
    """InnerMostDimReducer's leaf: packets into two interleaved accumulators, a last odd packet
    into the first, the second added to it; the leftover values from 0 one by one; then
    ``leftover + predux(packets)``."""
    n = a.shape[0]
    pairs = n // (2 * lanes)
    whole = n // lanes
    p = a[:pairs * 2 * lanes].reshape(pairs, 2, lanes)
    p0, p1 = _seq(p[:, 0]), _seq(p[:, 1])
    if whole > 2 * pairs:
        p0 = p0 + a[2 * pairs * lanes:whole * lanes]
    p0 = p0 + p1
    return _seq(a[whole * lanes:]) + _predux(p0)


def _eigen_tree(a, lanes, first=0):
    """Eigen's tree reducer over ``a`` (starting at element ``first`` of the whole: a split
    falls on a packet boundary of the whole), from 0."""
    n = a.shape[0]
    if n <= lanes * _EIGEN_LEAF:
        return _eigen_leaf(a, lanes)
    split = lanes * -(-(first + -(-n // 2)) // lanes)
    left = min(split - first, n)
    acc = a.dtype.type(0) + _eigen_tree(a[:left], lanes, first)
    if left < n:
        acc = acc + _eigen_tree(a[left:], lanes, split)
    return acc


def _eigen_mean(a, lanes):
    """Eigen's MeanReducer over ``a``: one packet accumulator, the leftover values one by one,
    ``(leftover + predux(packets)) / n``."""
    n = a.shape[0]
    whole = n // lanes
    p = _seq(a[:whole * lanes].reshape(whole, lanes))
    return (_seq(a[whole * lanes:]) + _predux(p)) / a.dtype.type(n)


def paddle_sum(a, axes, keepdim: bool, out_dtype, mean: bool = False):
    """``a.sum(axes)`` (``mean``: ``a.mean(axes)``) in Paddle's CPU order, or None where this
    does not model it: float32/float64 summed in their own dtype, not empty."""
    dt = a.dtype
    if type(a) is not np.ndarray or a.size == 0 or np.dtype(out_dtype) != dt or \
            dt.kind != "f" or dt.itemsize not in (4, 8):
        return None
    nd = a.ndim
    reduced = sorted(set(axes)) if axes else list(range(nd))
    out_shape = tuple(1 if d in reduced else a.shape[d] for d in range(nd))
    lanes = VECTOR_BYTES // dt.itemsize
    if len(reduced) == nd:
        flat = np.ascontiguousarray(a).reshape(-1)
        r = _eigen_mean(flat, lanes) if mean else _eigen_tree(flat, lanes)
        r = np.asarray(r, dt)
        return r.reshape(out_shape) if keepdim else r.reshape(())
    kept = [d for d in range(nd) if d not in reduced]
    b = a.transpose(kept + reduced[::-1])  # (the first reduced axis last: fastest)
    b = b.reshape(tuple(a.shape[d] for d in kept) + (-1,))
    r = _accumulate(b, axis=-1)[..., -1] + 0.0
    if mean:
        r = r / dt.type(b.shape[-1])
    return r.reshape(out_shape) if keepdim else r
