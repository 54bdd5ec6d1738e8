"""Memory accounting (``inplace_lab.memory``): exact bytes, peaks, frees, and no hidden temporaries.

The accounting counts storages; tracemalloc independently counts numpy's buffers. For the
in-place kernels both must show no allocation at all, and for their out-of-place forms
exactly one result-sized buffer.
"""
from __future__ import annotations

import gc
import tracemalloc

import pytest

import inplace_lab as il

MB64 = 67_108_864


@pytest.fixture(autouse=True)
def _collect():
    gc.collect()
    yield
    gc.collect()


def test_classic_figure_relu_peaks_at_two_tensors():
    x = il.rand([1, 64, 512, 512])
    assert x.nbytes == MB64
    base = il.memory_allocated()
    il.reset_peak_memory_stats()
    y = il.relu(x)
    assert il.max_memory_allocated() - base + MB64 == 134_217_728
    assert il.memory_allocated() == base + MB64
    del y


def test_classic_figure_relu_inplace_peaks_at_one_tensor():
    x = il.rand([1, 64, 512, 512])
    base = il.memory_allocated()
    il.reset_peak_memory_stats()
    r = il.relu_(x)
    assert r is x and x._version == 1
    assert il.max_memory_allocated() == base  # = 67,108,864 above whatever else is alive
    assert il.max_memory_allocated() - base + MB64 == 67_108_864


def test_allocation_and_free_are_exact():
    base = il.memory_allocated()
    x = il.zeros(1000, dtype=il.float64)
    assert il.memory_allocated() == base + 8000
    del x
    gc.collect()
    assert il.memory_allocated() == base


def test_a_view_keeps_its_storage_alive():
    base = il.memory_allocated()
    x = il.zeros(250)
    v = x[10:20]
    del x
    gc.collect()
    assert il.memory_allocated() == base + 1000  # the whole storage, not just the view's cells
    assert v.untyped_storage().nbytes() == 1000
    del v
    gc.collect()
    assert il.memory_allocated() == base


def test_reset_peak_starts_from_what_is_alive():
    x = il.zeros(1000)
    y = il.zeros(1000)
    del y
    gc.collect()
    il.reset_peak_memory_stats()
    assert il.max_memory_allocated() == il.memory_allocated()
    del x


def test_memory_snapshot_lists_live_storages_per_device():
    x = il.zeros(10, dtype=il.int32)
    x.name = "x"
    recs = [r for r in il.memory_snapshot("cpu") if r.storage_id == x.untyped_storage().id]
    assert len(recs) == 1
    r = recs[0]
    assert (r.device, r.nbytes, r.dtype, r.owners, r.simulated) == ("cpu", 40, "int32", ("x",), False)
    assert all(rec.device == "cpu" for rec in il.memory_snapshot("cpu"))


def test_from_numpy_memory_is_not_counted():
    import numpy as np

    base = il.memory_allocated()
    t = il.from_numpy(np.zeros(100))
    assert il.memory_allocated() == base and t.numel() == 100


def test_resize_growing_the_storage_is_accounted_and_keeps_views_valid():
    base = il.memory_allocated()
    x = il.arange(4.0)
    v = x[1:3]
    il.reset_peak_memory_stats()
    x.resize_(10)
    assert il.memory_allocated() == base + 40
    assert il.max_memory_allocated() == base + 56  # new buffer allocated before the old is freed
    x[1] = 9.0
    assert v.tolist() == [9.0, 2.0] and x[:4].tolist() == [0.0, 9.0, 2.0, 3.0]
    v.fill_(5)
    assert x[:4].tolist() == [0.0, 5.0, 5.0, 3.0]
    del x, v
    gc.collect()
    assert il.memory_allocated() == base


N = 1 << 18  # 1 MiB of float32


def _traced(fn):
    """(result, peak numpy bytes traced while fn ran, accounting delta, accounting peak delta)."""
    gc.collect()
    base = il.memory_allocated()
    il.reset_peak_memory_stats()
    tracemalloc.start()
    try:
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak, il.memory_allocated() - base, il.max_memory_allocated() - base


INPLACE = {
    "add_": lambda x, y: x.add_(y),
    "add_scalar": lambda x, y: x.add_(2.0),
    "mul_": lambda x, y: x.mul_(y),
    "relu_": lambda x, y: x.relu_(),
    "copy_": lambda x, y: x.copy_(y),
    "fill_": lambda x, y: x.fill_(3.0),
    "zero_": lambda x, y: x.zero_(),
    "iadd": lambda x, y: x.__iadd__(y),
}


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_kernels_allocate_nothing(name):
    x, y = il.rand(N), il.rand(N)
    out, peak, delta, acct_peak = _traced(lambda: INPLACE[name](x, y))
    assert out is x and x._version == 1
    assert delta == 0 and acct_peak == 0
    assert peak < 64 * 1024, f"{name} allocated {peak} bytes of numpy buffers"


OUT_OF_PLACE = {
    "add": lambda x, y: il.add(x, y),
    "add_scalar": lambda x, y: x + 2.0,
    "mul": lambda x, y: il.mul(x, y),
    "relu": lambda x, y: il.relu(x),
    "clone": lambda x, y: x.clone(),
    "full_like": lambda x, y: il.full_like(x, 3.0),
    "zeros_like": lambda x, y: il.zeros_like(x),
}


@pytest.mark.parametrize("name", OUT_OF_PLACE)
def test_out_of_place_forms_allocate_exactly_the_result(name):
    x, y = il.rand(N), il.rand(N)
    r, peak, delta, acct_peak = _traced(lambda: OUT_OF_PLACE[name](x, y))
    assert delta == acct_peak == r.nbytes == 4 * N
    assert 4 * N <= peak < 4 * N + 64 * 1024, f"{name}: {peak} bytes traced for a {4 * N}-byte result"
