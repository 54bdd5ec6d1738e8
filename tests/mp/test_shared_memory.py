"""share_memory_ and queues with real processes (fork and spawn)."""
from __future__ import annotations

import gc
import os
import sys

import pytest

import inplace_lab as il
import inplace_lab.multiprocessing as mp

sys.path.insert(0, os.path.dirname(__file__))
import mp_workers  # noqa: E402


def test_share_memory_is_in_place_on_the_storage():
    x = il.arange(6.0)
    v = x[2:5]
    st = x.untyped_storage()
    before = il.memory_allocated("cpu")
    assert not x.is_shared()
    assert x.share_memory_() is x
    assert x.is_shared() and v.is_shared() and x.untyped_storage() is st
    assert x._version == 0 and x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    v.mul_(10)  # views keep working on the moved buffer
    assert x.tolist() == [0.0, 1.0, 20.0, 30.0, 40.0, 5.0]
    assert il.memory_allocated("cpu") == before  # the move: one alloc, one free of the same size
    assert x.share_memory_() is x  # already shared: nothing happens


def test_segment_is_unlinked_when_the_last_tensor_dies():
    x = il.ones(4).share_memory_()
    name = mp._segments[x.untyped_storage()].name
    assert os.path.exists(f"/dev/shm/{name}") or os.name != "posix"
    del x
    gc.collect()
    assert not os.path.exists(f"/dev/shm/{name}")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_in_place_write_in_a_child_is_visible_in_the_parent(method):
    if method not in mp.get_all_start_methods():
        pytest.skip(f"{method} is not available here")
    ctx = mp.get_context(method)
    q_in, q_out = ctx.Queue(), ctx.Queue()
    t = il.zeros(3)
    p = ctx.Process(target=mp_workers.add_one_in_place, args=(q_in, q_out))
    p.start()
    q_in.put(t)
    shared, child_version, seen = q_out.get(timeout=120)
    p.join(timeout=120)
    assert p.exitcode == 0
    assert shared and child_version == 1 and seen == [1.0, 1.0, 1.0]
    assert t.is_shared() and t.tolist() == [1.0, 1.0, 1.0]  # the parent sees the child's write
    assert t._version == 0  # version counters are per process: the write was out of band


def test_views_arrive_on_one_storage_and_come_back_to_the_parents_storage():
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    x = il.zeros(6)
    a, b = x[:3], x[3:]
    p = ctx.Process(target=mp_workers.write_views, args=(q_in, q_out))
    p.start()
    q_in.put((a, b))
    same, a_seen = q_out.get(timeout=120)
    back = q_out.get(timeout=120)
    p.join(timeout=120)
    assert p.exitcode == 0 and same and a_seen == [0.0, 0.0, 0.0]
    assert x.tolist() == [0.0, 0.0, 0.0, 7.0, 7.0, 7.0]
    assert back.untyped_storage() is x.untyped_storage() and back.storage_offset() == 3


def test_plain_pickle_copies_but_keeps_sharing_inside_one_pickle():
    import pickle

    x = il.arange(4.0)
    a, b = pickle.loads(pickle.dumps((x[:2], x[1:])))
    assert a.untyped_storage() is b.untyped_storage() is not x.untyped_storage()
    a[1] = 9.0
    assert b[0].item() == 9.0 and x[1].item() == 1.0


def test_module_share_memory_moves_every_parameter_and_buffer_in_place():
    m = il.nn.Sequential(il.nn.Linear(2, 2), il.nn.BatchNorm1d(2))
    params = list(m.parameters())
    assert m.share_memory() is m
    assert all(p.is_shared() for p in m.parameters()) and all(b.is_shared() for b in m.buffers())
    assert all(a is b for a, b in zip(m.parameters(), params))
