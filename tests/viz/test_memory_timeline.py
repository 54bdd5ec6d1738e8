"""Memory timelines: exact live bytes per step, the peak marked, two traces compared."""
import gc
import re

import inplace_lab as il
from inplace_lab import viz

from .conftest import EVIL

SHAPE = (1, 64, 512, 512)  # float32: 67,108,864 bytes


def _relu_traces():
    gc.collect()
    with il.trace() as out_of_place:
        x = il.randn(*SHAPE)
        y = il.relu(x)
    del x, y
    gc.collect()
    with il.trace() as in_place:
        x = il.randn(*SHAPE)
        il.relu_(x)
    del x
    return out_of_place, in_place


def test_relu_against_relu_in_place_peaks_are_exact(artifact):
    a, b = _relu_traces()
    pic = artifact(viz.memory_timeline([a, b], names=["relu", "relu_"]), "memory_relu_vs_relu_")
    relu, relu_ = pic.model
    assert (relu.name, relu.device) == ("relu", "cpu")
    assert relu.peak_above_start == 134_217_728
    assert relu_.peak_above_start == 67_108_864
    svg = pic.to_svg()
    assert svg.count('class="peak"') == 2
    assert re.search(r'class="alloc" data-label="y" data-bytes="67108864"', svg)


def test_overlay_draws_both_series_on_one_chart(artifact):
    a, b = _relu_traces()
    pic = artifact(viz.memory_timeline([a, b], names=["relu", "relu_"], overlay=True),
                   "memory_overlay")
    svg = pic.to_svg()
    assert svg.count('class="live"') == 2
    assert svg.count('class="legend"') == 2


def test_allocations_and_frees_are_labelled_with_tensor_names():
    gc.collect()
    with il.trace() as tr:
        a = il.zeros(256)
        b = a * 2
        b.add_(1)  # the next step sees b bound (a result is named once its line has run)
        del b
    [s] = viz.memory_timeline(tr).model
    kinds = [(k, label, n) for _, k, label, n in s.events]
    assert ("alloc", "a", 1024) in kinds and ("alloc", "b", 1024) in kinds
    assert ("free", "b", 1024) in kinds
    assert s.peak_above_start == 2048
    assert s.live[-1] - s.start == 1024


def test_memory_labels_are_escaped():
    gc.collect()
    holder = {}
    with il.trace() as tr:
        holder["t"] = il.zeros(4)
        holder["t"].name = EVIL
        holder["t"].add_(1)
    svg = viz.memory_timeline(tr, names=[EVIL]).to_svg()
    assert EVIL not in svg


def test_trace_without_allocations_draws_a_flat_line():
    import inplace_lab as il

    with il.trace() as tr:
        pass
    pic = il.viz.memory_timeline(tr)
    assert "<svg" in pic.to_svg()
    (series,) = pic.model
    assert series.live == [series.start]
