"""The Inspector's state, without a browser: the step, the slider and play, what each tab
shows at a step, rendering on demand, and the selection shared by the pictures."""
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("anywidget")

import inplace_lab as il  # noqa: E402
from inplace_lab.widgets import Inspector  # noqa: E402
from inplace_lab.widgets import pictures  # noqa: E402


def program():
    with il.trace() as tr:
        x = il.arange(6.).reshape(2, 3)
        w = il.ones(2, 3, requires_grad=True)
        v = x.t()
        v.mul_(2)
        y = (w * x).sum()
    return tr, (x, w, v, y)


def first(tr, event, kind=None):
    return next(i for i, s in enumerate(tr.steps) if s.event == event and (kind is None or s.kind == kind))


def test_opens_at_the_last_step_that_touched_tensors():
    tr, _ = program()
    ins = Inspector(tr)
    i = ins.step
    assert tr.steps[i].inputs or tr.steps[i].outputs
    assert all(not (s.inputs or s.outputs) for s in tr.steps[i + 1:])
    assert ins.slider.max == ins.play.max == len(tr.steps) - 1
    assert ins.slider.value == ins.play.value == i


def test_setting_step_moves_slider_and_play_and_redraws_storage():
    tr, _ = program()
    ins = Inspector(tr)
    mul = first(tr, "op", "inplace")
    ins.step = mul
    assert ins.slider.value == ins.play.value == mul
    view = ins.views["storage"]
    assert view.step == mul
    assert view.html == il.viz.storage_diagram(tr.steps[mul]).fragment()
    assert "rect" in view.html and 'class="cell changed"' in view.html  # the cells mul_ wrote
    assert "mul_" in ins.summary.value
    assert "v.mul_(2)" in ins.source.value


def test_moving_the_slider_or_play_sets_the_step():
    tr, _ = program()
    ins = Inspector(tr)
    ins.slider.value = 2  # as the browser syncs a drag
    assert ins.step == 2 and ins.views["storage"].step == 2
    ins.play.value = 4  # as the browser syncs a tick of play
    assert ins.step == 4 and ins.views["storage"].step == 4


def test_a_move_from_the_browser_is_not_written_back():
    # writing the slider's value back from the kernel would race the student's next move
    # (slider and play are linked in the browser: ipywidgets.jslink)
    tr, _ = program()
    ins = Inspector(tr)
    play_before = ins.play.value
    ins.slider.value = 1
    assert ins.play.value == play_before
    assert ins.play_link.source == (ins.play, "value")
    assert ins.play_link.target == (ins.slider, "value")


def test_step_is_clamped_to_the_trace():
    tr, _ = program()
    ins = Inspector(tr)
    ins.step = 10_000
    assert ins.step == len(tr.steps) - 1
    ins.step = -3
    assert ins.step == 0


def test_only_the_visible_tab_is_rendered_and_pictures_are_cached():
    tr, _ = program()
    ins = Inspector(tr)
    assert ins.render_count == 1  # the storage tab at the opening step
    assert ins.views["graph"].html == "" and ins.views["memory"].html == ""
    ins.tabs.selected_index = ins.kinds.index("graph")
    assert ins.render_count == 2 and 'class="node' in ins.views["graph"].html
    start = ins.step
    ins.step = 1
    assert ins.views["storage"].step == start  # hidden tabs wait until they are shown
    ins.step = start  # back: the graph comes from the cache
    assert ins.render_count == 3


def test_versions_tab_grows_with_the_step():
    tr, _ = program()
    ins = Inspector(tr)
    ins.tabs.selected_index = ins.kinds.index("versions")
    bump = first(tr, "bump")
    ins.step = bump - 1
    before = ins.views["versions"].html
    ins.step = bump
    after = ins.views["versions"].html
    assert "mul" not in before and "mul" in after


def test_graph_tab_marks_tensor_boxes_clickable():
    tr, (x, w, v, y) = program()
    ins = Inspector(tr)
    ins.tabs.selected_index = ins.kinds.index("graph")
    ids = ins.views["graph"].tensor_ids
    assert "w" in ids.values() and "y" in ids.values()
    for nid in ids:
        assert f'id="{nid}"' in ins.views["graph"].html


def test_graph_tab_before_any_grad_says_so():
    tr, _ = program()
    ins = Inspector(tr, step=0)
    ins.tabs.selected_index = ins.kinds.index("graph")
    assert "no autograd graph yet" in ins.views["graph"].html


def test_selecting_in_one_picture_selects_in_all():
    tr, _ = program()
    ins = Inspector(tr)
    ins.views["storage"].selected = "w"  # as the browser syncs a click
    assert ins.selected == "w"
    assert all(v.selected == "w" for v in ins.views.values())
    ins.views["graph"].selected = ""
    assert ins.selected == "" and all(v.selected == "" for v in ins.views.values())


def test_selection_from_python_reaches_every_picture():
    tr, _ = program()
    ins = Inspector(tr)
    ins.selected = "x"
    assert [v.selected for v in ins.views.values()] == ["x"] * len(ins.views)


def test_error_trace_gets_an_error_tab_and_opens_at_the_error():
    with pytest.raises(il.errors.LeafInplaceError):
        with il.trace() as tr:
            p = il.ones(3, requires_grad=True)
            p.add_(1)
    ins = Inspector(tr)
    assert ins.kinds[-1] == "explain" and ins.tabs.titles[-1] == "Error"
    assert tr.steps[ins.step].event == "error"
    assert "LeafInplaceError" in ins.header.value
    ins.tabs.selected_index = len(ins.kinds) - 1
    assert "Why it is forbidden" in ins.views["explain"].html


def test_a_renderer_failure_shows_in_its_tab_only(monkeypatch):
    tr, _ = program()
    ins = Inspector(tr)

    def broken(*a, **k):
        raise ValueError("boom")

    monkeypatch.setattr(il.viz, "memory_timeline", broken)
    ins.tabs.selected_index = ins.kinds.index("memory")
    assert "could not draw the memory picture" in ins.views["memory"].html
    assert "boom" in ins.views["memory"].html


def test_large_trace_draws_one_picture_per_step_change():
    with il.trace() as tr:
        x = il.zeros(8)
        for _ in range(1500):
            x.add_(1)
    assert len(tr.steps) > 3000
    ins = Inspector(tr)
    ins.tabs.selected_index = ins.kinds.index("versions")
    n = ins.render_count
    for i in (0, 1000, 2000):
        ins.step = i
    assert ins.render_count == n + 3
    assert len(ins.views["storage"].html) < 50_000  # the browser never gets all steps at once


def test_describe_names_each_event_in_the_course_words():
    tr, _ = program()
    words = [pictures.describe(s) for s in tr.steps]
    assert any("writes into v in place" in w for w in words)
    assert any("(a view: same storage)" in w for w in words)
    assert any(w.startswith("alloc storage") for w in words)


def test_error_step_storage_shows_the_values_the_failed_op_left_untouched():
    with pytest.raises(il.errors.LeafInplaceError):
        with il.trace() as tr:
            p = il.full((3,), 7.0, requires_grad=True)
            p.add_(1)
    ins = Inspector(tr)
    assert tr.steps[ins.step].event == "error"
    assert ins.views["storage"].html.count(">7.<") == 3

