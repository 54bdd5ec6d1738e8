"""Backward graphs: structure, error highlights, collapsing, escaping, both layout paths."""
import json
import re
import shutil
import subprocess
import time

import pytest

import inplace_lab as il
from inplace_lab import viz
from inplace_lab.viz.graph import has_dot

from .conftest import ARTIFACTS, EVIL


def test_graph_of_a_loss_has_nodes_leaves_and_saved_tensors(artifact):
    w = il.ones(3, requires_grad=True)
    v = il.ones(3, requires_grad=True)
    loss = (w.exp() * v).sum()
    g = artifact(viz.graph(loss), "graph_loss")
    m = g.model
    assert sorted(m.names_of(m.ids_of("node"))) == ["ExpBackward0", "MulBackward0", "SumBackward0"]
    assert len(m.ids_of("accumulate")) == 2
    assert sorted(m.names_of(m.ids_of("leaf"))) == ["v", "w"]
    assert m.names_of(m.ids_of("output")) == ["loss"]
    # Mul saved self (exp's result) and other (v: merged into v's leaf box); Exp saved its result
    saved_edges = [e for e in m.edges if e[2] == "saved"]
    assert len(saved_edges) == 3
    leaf_v = m.ids_of("leaf")[m.names_of(m.ids_of("leaf")).index("v")]
    assert any(b == leaf_v for _, b, _ in saved_edges)
    assert "saved v0, now v0" in g.dot


def test_leaf_error_highlights_the_leaf_its_accumulator_and_every_node_that_saved_it(artifact):
    w = il.ones(3, requires_grad=True)
    v = il.ones(3, requires_grad=True)
    a = w * 2  # saves nothing of w (the other operand is a number)
    e = w.exp()  # saves its result, not w
    s = w.sin()  # saves w
    p = w * v  # saves w (v requires grad)
    with pytest.raises(il.errors.LeafInplaceError) as info:
        w.add_(1)
    g = artifact(viz.graph(info.value), "graph_leaf_error")
    hi = sorted(g.model.names_of(g.model.highlighted))
    assert hi == ["AccumulateGrad", "MulBackward0", "SinBackward0", "w"]
    assert "ExpBackward0" in g.model.names_of(g.model.nodes)  # drawn, not highlighted
    assert g.model.sentence.startswith("w is a leaf that requires grad")
    assert "SinBackward0 and MulBackward0 saved its value" in g.model.sentence
    del a, e, s, p


def test_saved_tensor_error_highlights_the_saved_tensor_and_the_op_that_modified_it(artifact):
    x = il.ones(3, requires_grad=True)
    with pytest.raises(il.errors.SavedTensorModifiedError) as info:
        with il.trace():
            y = x.exp()
            y.add_(1)
            y.sum().backward()
    g = artifact(viz.graph(info.value), "graph_saved_error")
    hi = g.model.names_of(g.model.highlighted)
    assert sorted(hi) == ["AddBackward0", "ExpBackward0", "result = y"]
    assert g.model.modifier == "add_ (y.add_(1))"
    assert "saved v0, now v1" in g.dot


def test_saved_tensor_error_without_a_trace_still_finds_the_modifier():
    x = il.ones(3, requires_grad=True)
    w = il.ones(3, requires_grad=True)
    y = x * 1
    z = y * w  # Mul saves y (w requires grad)
    y.mul_(3)
    with pytest.raises(il.errors.SavedTensorModifiedError) as info:
        z.sum().backward()
    g = viz.graph(info.value)
    assert sorted(g.model.names_of(g.model.highlighted)) == ["MulBackward0", "MulBackward0", "self = y"]
    assert g.model.modifier == "MulBackward0"


def test_views_point_to_their_base_with_a_dotted_edge():
    x = il.ones(4, requires_grad=True)
    v = x[1:3]
    out = (v * v).sum()
    g = viz.graph(out)
    view_edges = [e for e in g.model.edges if e[2] == "view"]
    assert view_edges
    assert "dotted" in g.dot


def test_long_chains_collapse_and_a_thousand_nodes_render_fast(artifact):
    x = il.ones(2, requires_grad=True)
    w = il.ones(2, requires_grad=True)
    y = x
    for _ in range(1000):
        y = y * w
    out = y.sum()
    t0 = time.perf_counter()
    g = viz.graph(out)
    if g.svg is None:
        g.dot  # without dot only the DOT is built
    elapsed = time.perf_counter() - t0
    artifact(g, "graph_1000_collapsed")
    assert g.model.collapsed >= 990
    assert len(g.model.nodes) < 20
    assert elapsed < 1.0
    assert viz.graph(out, collapse=False, layout="browser").model.collapsed == 0


def test_user_text_is_escaped_in_dot_and_svg():
    held = [il.ones(2, requires_grad=True)]
    held[0].name = EVIL
    out = (held[0] * 2).sum()
    g = viz.graph(out)
    assert EVIL not in g.dot and "&lt;script&gt;" in g.dot
    if g.svg is not None:
        assert EVIL not in g.svg and "<script" not in g.svg
    assert EVIL not in g.to_html()


@pytest.mark.skipif(not has_dot(), reason="the dot executable is not installed")
def test_server_side_svg_carries_node_ids_and_highlight_classes():
    w = il.ones(2, requires_grad=True)
    s = w.sin()
    with pytest.raises(il.errors.LeafInplaceError) as info:
        w.mul_(2)
    svg = viz.graph(info.value).to_svg()
    assert svg.startswith("<svg")
    assert re.search(r'class="node accumulate highlight"', svg)
    del s


def test_browser_layout_page_is_self_contained_and_lays_out_with_the_bundled_graphviz():
    w = il.ones(2, requires_grad=True)
    g = viz.graph((w * w).sum(), layout="browser")
    assert g.svg is None and g.needs_layout
    page = g.to_html()
    assert 'class="il-figure il-graph" data-dot=' in page
    assert "Viz.instance()" in page
    assert not re.search(r'(src|href)="https?:', page)
    assert "cdn" not in page.lower().split("<script>")[0]
    with pytest.raises(RuntimeError, match="dot"):
        g.to_svg()
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the page's script is not executed here")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    runner = ARTIFACTS / "render_dot.cjs"
    runner.write_text(
        "const vm = require('vm'); const fs = require('fs');\n"
        "const ctx = {console, WebAssembly, TextDecoder, TextEncoder, setTimeout, URL, crypto,"
        " location: {href: 'file:///page.html'}};\n"
        "ctx.self = ctx; ctx.globalThis = ctx; vm.createContext(ctx);\n"
        f"vm.runInContext(fs.readFileSync({json.dumps(str(viz.page.STATIC / 'viz-standalone.js'))},"
        " 'utf8'), ctx);\n"
        "ctx.Viz.instance().then(v => process.stdout.write("
        "v.renderString(fs.readFileSync(0, 'utf8'), {format: 'svg'})))"
        ".catch(e => { console.error(String(e).slice(0, 300)); process.exit(1); });\n")
    out = subprocess.run([node, str(runner)], input=g.dot, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr[-500:]
    assert "<svg" in out.stdout and "MulBackward0" in out.stdout


def test_freed_graph_error_highlights_the_node_and_what_it_had_saved(artifact):
    """A second backward: the node that needed a freed value is red, with its freed saved
    tensors, including a Python number PyTorch wrapped and saved (x * 2 keeps other=2)."""
    for make, saved in ((lambda x: x * 2, "other = 2"), (lambda x: x.exp(), "result")):
        x = il.ones(3, requires_grad=True)
        y = make(x).sum()
        y.backward()
        with pytest.raises(il.errors.BackwardTwiceError) as info:
            y.backward()
        g = artifact(viz.graph(info.value), "graph_freed_" + saved.split()[0])
        hi = sorted(g.model.names_of(g.model.highlighted))
        node = "MulBackward0" if saved.startswith("other") else "ExpBackward0"
        assert hi == sorted([node, saved])
        assert "freed" in g.dot


def test_a_live_graph_shows_a_saved_number_as_saved():
    x = il.ones(3, requires_grad=True)
    g = viz.graph((x * 2 + 1).sum())
    assert "other = 2" in g.model.names_of(g.model.nodes)
    assert "wrapped number · saved" in g.dot and not g.model.highlighted
