"""Layout maths (``inplace_lab.layout``) as properties, checked against numpy and torch."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inplace_lab import layout
from tests.core.strategies import (basic_indices, geometries, permutations_of, same_numel_shapes,
                                   shapes)

torch = pytest.importorskip("torch")

FAST = settings(max_examples=60, deadline=None)


def numpy_cells(shape, strides, offset):
    """Storage positions of every element, computed by numpy's own striding over an arange."""
    if layout.numel(shape) == 0:
        return []
    need = layout.storage_size_needed(shape, strides, offset)
    base = np.arange(max(need, 1), dtype=np.int64)
    view = np.lib.stride_tricks.as_strided(base[offset:] if offset < base.size else base[:0],
                                           shape=shape, strides=[s * 8 for s in strides])
    return view.ravel().tolist()


def torch_window(shape, strides, offset):
    need = max(layout.storage_size_needed(shape, strides, offset), 1)
    return torch.zeros(need + offset).as_strided(shape, strides, offset)


@FAST
@given(shapes())
def test_contiguous_strides_match_torch(shape):
    assert layout.contiguous_strides(shape) == torch.empty(shape).stride()
    assert layout.is_contiguous(shape, layout.contiguous_strides(shape))


@FAST
@given(geometries(negative=False))
def test_is_contiguous_matches_torch(geo):
    shape, strides, offset = geo
    assert layout.is_contiguous(shape, strides) == torch_window(*geo).is_contiguous()


@FAST
@given(geometries(negative=True))
def test_cells_match_numpy_striding(geo):
    assert layout.cells(*geo) == numpy_cells(*geo)


@FAST
@given(geometries(negative=True))
def test_extent_bounds_every_cell(geo):
    lo, hi = layout.extent(*geo)
    cs = layout.cells(*geo)
    if cs:
        assert (lo, hi) == (min(cs), max(cs) + 1)
    else:
        assert lo == hi == geo[2]


@FAST
@given(geometries(negative=True))
def test_positions_agree_with_cells(geo):
    assert layout.positions(*geo).ravel().tolist() == layout.cells(*geo)


@FAST
@given(geometries(negative=True))
def test_internal_overlap_is_sound(geo):
    """Never says "no overlap" when two elements share a cell (it may be conservative)."""
    shape, strides, _ = geo
    cs = layout.cells(*geo)
    if len(set(cs)) < len(cs):
        assert layout.has_internal_overlap(shape, strides)


@FAST
@given(geometries(negative=False))
def test_internal_overlap_agrees_with_torch_where_torch_decides(geo):
    """torch: 0 = no overlap (dense), 1 = overlap (a zero stride), 2 = too hard to tell."""
    verdict = torch._debug_has_internal_overlap(torch_window(*geo))
    if verdict == 0:
        assert not layout.has_internal_overlap(geo[0], geo[1])
    elif verdict == 1:
        assert layout.has_internal_overlap(geo[0], geo[1])


def test_zero_stride_on_a_real_dim_overlaps():
    assert layout.has_internal_overlap((2, 3), (0, 1))
    assert not layout.has_internal_overlap((1, 3), (0, 1))  # size-1 dims never repeat a cell
    assert layout.has_internal_overlap((2, 3), (2, 1))  # rows 0-2 and 2-4 share cell 2
    assert not layout.has_internal_overlap((2, 3), (1, 2))  # a transpose


@FAST
@given(geometries(max_dims=3, negative=True), geometries(max_dims=3, negative=True))
def test_overlap_kind_matches_cell_sets(a, b):
    kind = layout.overlap_kind(a, b)
    shared = set(layout.cells(*a)) & set(layout.cells(*b))
    if kind == "none":
        assert not shared
    elif kind == "partial":
        assert shared
    else:
        assert kind == "full" and a == b


def test_overlap_kind_examples():
    row = ((3,), (1,), 0)
    assert layout.overlap_kind(row, row) == "full"
    assert layout.overlap_kind(((3,), (1,), 1), row) == "partial"  # a[1:] vs a[:-1]
    assert layout.overlap_kind(((3,), (2,), 0), ((3,), (2,), 1)) == "none"  # evens vs odds
    assert layout.overlap_kind(((0,), (1,), 0), row) == "none"


@FAST
@given(st.lists(shapes(max_dims=3, min_size=1, max_size=3), min_size=1, max_size=3))
def test_broadcast_shapes_match_torch_binary_ops(shps):
    """Folded pairwise like ``a + b + c``: same result, same error text (rightmost mismatch)."""
    try:
        r = torch.zeros(shps[0])
        for s in shps[1:]:
            r = r + torch.zeros(s)
        want = tuple(r.shape)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            layout.broadcast_shapes(*shps)
        assert str(got.value) == str(e)
    else:
        assert layout.broadcast_shapes(*shps) == want


@st.composite
def view_requests(draw):
    geo = draw(geometries(max_dims=3, zero_strides=True, negative=False))
    return geo, draw(same_numel_shapes(geo[0]))


@settings(max_examples=150, deadline=None)
@given(view_requests())
def test_view_strides_match_torch_view(req):
    """``view`` succeeds exactly when torch's does, with the same strides."""
    (shape, strides, offset), new_shape = req
    mine = layout.view_strides(shape, strides, new_shape)
    try:
        theirs = torch_window(shape, strides, offset).view(new_shape).stride()
    except RuntimeError:
        theirs = None
    assert mine == theirs


def test_view_strides_refuses_a_transpose_flatten():
    assert layout.view_strides((2, 3), (1, 2), (6,)) is None
    assert layout.view_strides((2, 3), (3, 1), (3, 2)) == (2, 1)


def _apply_basic(geo, idx):
    """Geometry of ``t[idx]`` via the library, and the same view made by numpy."""
    import inplace_lab as il

    shape, strides, offset = geo
    need = max(layout.storage_size_needed(shape, strides, offset), 1)
    base = il.arange(need + offset)
    return base.as_strided(shape, strides, offset)[idx]


@FAST
@given(st.data())
def test_views_of_views_cover_a_subset_of_the_base_cells(data):
    geo = data.draw(geometries(min_dims=1, max_dims=3, negative=False))
    v1 = _apply_basic(geo, data.draw(basic_indices(geo[0])))
    v2 = v1.permute(data.draw(permutations_of(v1.ndim)))
    v3 = v2[data.draw(basic_indices(tuple(v2.shape)))]
    base_cells = set(layout.cells(*geo))
    for v in (v1, v2, v3):
        cs = layout.cells(tuple(v.shape), v.stride(), v.storage_offset())
        assert set(cs) <= base_cells
        # the values of an arange storage are the cell numbers: the view reads exactly them
        assert np.asarray(v).ravel().tolist() == cs
        assert v._base is v1._base


@FAST
@given(st.data())
def test_views_of_views_match_numpy(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_size=1))
    a = np.arange(layout.numel(shape)).reshape(shape)
    import inplace_lab as il

    t = il.from_numpy(a.copy())
    i1 = data.draw(basic_indices(shape))
    perm = data.draw(permutations_of(a[i1].ndim))
    i2 = data.draw(basic_indices(a[i1].transpose(perm).shape))
    want = a[i1].transpose(perm)[i2]
    got = t[i1].permute(tuple(perm))[i2]
    assert tuple(got.shape) == want.shape
    assert got.stride() == tuple(s // a.itemsize for s in want.strides) or want.size <= 1 or \
        any(n == 1 for n in want.shape)
    assert np.array_equal(np.asarray(got), want)


@FAST
@given(geometries(negative=False), st.data())
def test_expand_strides_match_torch(geo, data):
    shape = geo[0]
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = tuple(lead) + tuple(n if n != 1 else data.draw(st.sampled_from([1, 3, -1])) for n in shape)
    try:
        want = torch_window(*geo).expand(target).stride()
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e).split("(")[0]):
            layout.expand_strides(shape, geo[1], target)
    else:
        assert layout.expand_strides(shape, geo[1], target) == want


@pytest.mark.parametrize("shape,total", [((-1, 3), 12), ((2, -1, 2), 12), ((4, 3), 12), ((0, -1), 0)])
def test_infer_size_resolves_minus_one_like_torch(shape, total):
    try:
        want = tuple(torch.empty(total).view(shape).shape)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            layout.infer_size(shape, total)
        assert str(got.value) == str(e)
    else:
        assert layout.infer_size(shape, total) == want


@pytest.mark.parametrize("shape,total", [((5,), 6), ((-1, 4), 6), ((-1, -1), 4), ((-2, 2), 4)])
def test_infer_size_errors_match_torch(shape, total):
    with pytest.raises(RuntimeError) as want:
        torch.empty(total).view(shape)
    with pytest.raises(RuntimeError) as got:
        layout.infer_size(shape, total)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dim,ndim", [(3, 3), (-4, 3), (1, 0), (-2, 0)])
def test_wrap_dim_error_text_matches_torch(dim, ndim):
    with pytest.raises(IndexError) as want:
        torch.empty((2,) * ndim).sum(dim)
    with pytest.raises(IndexError) as got:
        layout.wrap_dim(dim, ndim)
    assert str(got.value) == str(want.value)
