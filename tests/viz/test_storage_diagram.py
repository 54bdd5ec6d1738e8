"""Storage diagrams: one strip per storage, one overlay per tensor on exactly its cells."""
import re
import time

import inplace_lab as il
from inplace_lab import viz

from .conftest import EVIL


def _covers(svg: str, label: str) -> list:
    return [int(m) for m in re.findall(
        rf'class="cover" data-tensor="{re.escape(label)}" data-cell="(\d+)"', svg)]


def test_transpose_and_column_share_one_strip_with_three_overlays(artifact):
    x = il.arange(6.).reshape(2, 3)
    xt, col = x.t(), x[:, 1]
    pic = artifact(viz.storage_diagram(x, xt, col, names=["x", "x.t()", "x[:, 1]"]), "storage_x_t_col")
    assert len(pic.model) == 1
    strip = pic.model[0]
    assert [t.label for t in strip.tensors] == ["x", "x.t()", "x[:, 1]"]
    assert [t.positions for t in strip.tensors] == [[0, 1, 2, 3, 4, 5], [0, 3, 1, 4, 2, 5], [1, 4]]
    svg = pic.to_svg()
    assert svg.count('class="cell"') == 6
    assert sorted(_covers(svg, "x")) == [0, 1, 2, 3, 4, 5]
    assert sorted(_covers(svg, "x.t()")) == [0, 1, 2, 3, 4, 5]
    assert _covers(svg, "x[:, 1]") == [1, 4]
    # the transpose visits cell 3 second: the element order is written on the cells
    assert re.search(r'data-tensor="x.t\(\)" data-cell="3" data-order="1"', svg)


def test_non_contiguous_and_overlapping_views_carry_a_badge(artifact):
    b = il.arange(10.)
    step, e = b[::2], b[:3].expand(2, 3)
    pic = artifact(viz.storage_diagram(b, step, e, names=["b", "b[::2]", "e"]), "storage_badges")
    svg = pic.to_svg()
    assert 'class="badge" data-tensor="b[::2]"' in svg and "NON-CONTIGUOUS" in svg
    assert 'class="badge" data-tensor="e"' in svg and "OVERLAPPING" in svg
    assert 'class="badge" data-tensor="b"' not in svg
    # expand: cells 0..2 each hold two elements of e
    assert re.search(r'data-tensor="e" data-cell="0" data-order="0,3"', svg)


def test_views_share_one_counter_line_and_point_to_their_base():
    b = il.zeros(4)
    v = b[1:3]
    svg = viz.storage_diagram(b, v, names=["b", "v"]).to_svg()
    assert 'class="view-of" data-view="v" data-base="b"' in svg
    assert svg.count('class="version-counter"') == 1
    assert "shared by b, v" in svg


def test_variable_names_are_found_in_the_calling_code():
    weights = il.zeros(3)
    pic = viz.storage_diagram(weights)
    assert pic.model[0].tensors[0].label == "weights"


def test_trace_step_highlights_the_cells_the_in_place_op_wrote(artifact):
    with il.trace() as tr:
        y = il.zeros(2, 3)
        v = y[:, 1]
        v.add_(5)
    pic = artifact(viz.storage_diagram(tr.ops()[-1]), "storage_step_changed")
    strip = pic.model[0]
    assert strip.changed == {1, 4}
    assert [t.label for t in strip.tensors] == ["y", "v"]  # the view's base comes along
    assert strip.values[1] == 5.0 and strip.values[0] == 0.0
    assert pic.to_svg().count('class="cell changed"') == 2


def test_large_storage_is_elided_and_draws_fast(artifact):
    big = il.zeros(10 ** 7)
    sparse = big[::1000]
    t0 = time.perf_counter()
    pic = viz.storage_diagram(big, sparse, names=["big", "sparse"])
    elapsed = time.perf_counter() - t0
    artifact(pic, "storage_large")
    svg = pic.to_svg()
    assert 'class="cell elided"' in svg
    assert svg.count('class="cell"') < 60
    assert 9999999 in set(_covers(svg, "big")) and 9999000 in set(_covers(svg, "sparse"))
    assert elapsed < 1.0  # 0.2 s budget on a quiet machine (benchmarks/ measures it)


def test_tensor_names_are_escaped():
    t = il.zeros(2)
    svg = viz.storage_diagram(t, names=[EVIL]).to_svg()
    assert EVIL not in svg and "&lt;script&gt;" in svg
