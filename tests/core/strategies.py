"""Shared hypothesis strategies for layout maths: shapes, strided windows, reshapes, view chains.

A *geometry* is ``(shape, strides, offset)`` in elements, as in ``inplace_lab.layout``.
Sizes stay small so brute-force checks (listing every cell) stay cheap.
"""
from __future__ import annotations

from math import prod

from hypothesis import strategies as st

MAX_DIMS = 4
MAX_SIZE = 4


def shapes(min_dims=0, max_dims=MAX_DIMS, min_size=0, max_size=MAX_SIZE):
    """Tuples of small dimension sizes (zero-size dims included by default)."""
    return st.lists(st.integers(min_size, max_size), min_size=min_dims, max_size=max_dims).map(tuple)


@st.composite
def geometries(draw, min_dims=0, max_dims=MAX_DIMS, negative=False, zero_strides=True, min_size=0):
    """An arbitrary strided window: any strides (zero and, optionally, negative) and an offset
    large enough that every cell index is >= 0."""
    shape = draw(shapes(min_dims, max_dims, min_size=min_size))
    lo = -6 if negative else (0 if zero_strides else 1)
    strides = tuple(draw(st.integers(lo, 12)) for _ in shape)
    if not zero_strides:
        strides = tuple(s if s != 0 else 1 for s in strides)
    need = sum((n - 1) * -s for n, s in zip(shape, strides) if s < 0 and n > 0)
    offset = need + draw(st.integers(0, 5))
    return shape, strides, offset


@st.composite
def contiguous_geometries(draw, min_dims=0, max_dims=MAX_DIMS):
    from inplace_lab import layout

    shape = draw(shapes(min_dims, max_dims))
    return shape, layout.contiguous_strides(shape), draw(st.integers(0, 3))


def _factor(n):
    out, p = [], 2
    while n > 1 and p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


@st.composite
def same_numel_shapes(draw, shape):
    """Another shape with ``prod(shape)`` elements: prime factors regrouped, ones sprinkled in."""
    n = prod(shape)
    if n == 0:
        k = draw(st.integers(1, 3))
        dims = [draw(st.integers(0, 4)) for _ in range(k)]
        dims[draw(st.integers(0, k - 1))] = 0
        return tuple(dims)
    factors = draw(st.permutations(_factor(n))) if n > 1 else []
    dims = []
    for f in factors:
        if dims and draw(st.booleans()):
            dims[-1] *= f
        else:
            dims.append(f)
    for _ in range(draw(st.integers(0, 2))):
        dims.insert(draw(st.integers(0, len(dims))), 1)
    return tuple(dims)


def _slice_of(draw, n):
    start = draw(st.integers(0, n))
    stop = draw(st.integers(start, n))
    step = draw(st.integers(1, 3))
    return slice(start, stop, step)


@st.composite
def basic_indices(draw, shape):
    """A basic index (ints, slices, None) valid for ``shape``, as a tuple."""
    idx = []
    for n in shape:
        kind = draw(st.sampled_from(["slice", "int", "full", "none"] if n else ["slice", "full"]))
        if kind == "int":
            idx.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            idx.append(_slice_of(draw, n))
        elif kind == "none":
            idx.append(None)
            idx.append(slice(None))
        else:
            idx.append(slice(None))
    return tuple(idx)


@st.composite
def permutations_of(draw, ndim):
    return tuple(draw(st.permutations(list(range(ndim)))))
