"""Lazy storage: an op's fresh result gets its Storage object only when something needs it.

Nothing a user can observe may depend on when the object is made: the byte accounting (live
bytes, peak, listeners' alloc/free pairs, ``memory_snapshot``'s order), storage identity
across views and ``untyped_storage()``, values after metadata changes, and pickling.
"""
from __future__ import annotations

import gc
import pickle

import pytest

import inplace_lab as il
from inplace_lab import memory


@pytest.fixture(autouse=True)
def _collect():
    gc.collect()
    yield
    gc.collect()


def _lazy(t) -> bool:
    return bool(t._own)


def test_an_op_result_is_counted_at_once_and_freed_when_it_dies():
    x = il.ones(1000)
    base = il.memory_allocated()
    il.reset_peak_memory_stats()
    y = x * 2.0
    assert _lazy(y)
    assert il.memory_allocated() == base + 4000
    z = y + 1.0  # both alive: the peak sees both
    del y
    assert il.memory_allocated() == base + 4000  # y freed at once (no GC pass needed)
    assert il.max_memory_allocated() == base + 8000
    del z
    assert il.memory_allocated() == base


def test_the_storage_is_made_on_first_need_and_takes_the_count_over():
    x = il.ones(10)
    y = x.exp()
    base = il.memory_allocated()
    st = y.untyped_storage()
    assert not _lazy(y) and st is y.untyped_storage()  # one object from now on
    assert il.memory_allocated() == base  # made, not counted twice
    v = y[2:5]
    assert v.untyped_storage() is st and v._base is y
    del y, st
    assert il.memory_allocated() == base  # the view keeps the bytes alive
    del v
    assert il.memory_allocated() == base - 40


def test_views_of_a_lazy_result_share_its_storage_and_version():
    y = il.arange(6.0) * 1.0
    v = y.view(2, 3)
    v.add_(1.0)
    assert y._version == 1 and v._version == 1
    assert y.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert y.untyped_storage() is v.untyped_storage()
    assert y.data_ptr() == v.data_ptr()


def test_in_place_geometry_change_on_a_lazy_result_keeps_its_values():
    y = il.arange(6.0).view(2, 3) * 1.0
    assert _lazy(y)
    y.t_()
    assert y.shape == (3, 2) and y.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_data_assignment_frees_the_old_bytes_of_a_lazy_result():
    y = il.ones(100) * 2.0
    other = il.zeros(10)
    base = il.memory_allocated()
    y.data = other
    assert il.memory_allocated() == base - 400
    assert y.untyped_storage() is other.untyped_storage()


def test_memory_snapshot_lists_lazy_results_in_allocation_order():
    a = il.ones(3) * 1.0
    b = il.ones(5) * 1.0
    a.untyped_storage()  # made after b's allocation, still listed before it
    snap = [r for r in il.memory_snapshot() if r.storage_id in
            (a.untyped_storage().id, b.untyped_storage().id)]
    assert [r.nbytes for r in snap] == [12, 20]
    assert snap[0].step < snap[1].step


def test_a_listener_sees_one_alloc_and_one_free_per_result():
    events = []

    def cb(what, sid, dev, nbytes):
        events.append((what, sid, nbytes))

    x = il.ones(4)
    memory._listeners.append(cb)
    try:
        y = x * 3.0  # made while listening: a storage with an id at once
        del y
        early = x * 2.0
    finally:
        memory._listeners.remove(cb)
    late = x * 5.0  # made without a listener ...
    memory._listeners.append(cb)
    try:
        del late  # ... freed while listening: the free is still reported, with an id
    finally:
        memory._listeners.remove(cb)
    del early
    kinds = [(w, n) for w, _, n in events]
    assert kinds == [("alloc", 16), ("free", 16), ("alloc", 16), ("free", 16)]
    assert events[0][1] == events[1][1] and events[2][1] != events[3][1]


def test_pickling_a_lazy_result_round_trips():
    y = il.arange(4.0) * 2.0
    z = pickle.loads(pickle.dumps(y))
    assert z.tolist() == [0.0, 2.0, 4.0, 6.0] and z.dtype == y.dtype


def test_detach_and_numpy_share_the_bytes():
    y = il.ones(3) * 2.0
    d = y.detach()
    a = y.numpy()
    a[0] = 7.0
    assert d.tolist() == [7.0, 2.0, 2.0]
    assert d.untyped_storage() is y.untyped_storage()
    base = il.memory_allocated()
    del y, d
    assert il.memory_allocated() == base  # the numpy array keeps the storage
    del a
    assert il.memory_allocated() == base - 12


def test_an_unknown_attribute_still_reads_as_python_says():
    y = il.ones(2) * 1.0
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'nope'"):
        y.nope
    assert not hasattr(y, "nope") and _lazy(y)
