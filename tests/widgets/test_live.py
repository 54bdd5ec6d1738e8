"""``inplace_lab.inspect``: follows later changes to the inspected tensors, and only those."""
import asyncio
import gc
import threading

import pytest

pytest.importorskip("anywidget")

import inplace_lab as il  # noqa: E402
from inplace_lab import hooks  # noqa: E402


@pytest.fixture
def live():
    made = []

    def make(*tensors, **kw):
        ins = il.inspect(*tensors, **kw)
        made.append(ins)
        return ins

    yield make
    for ins in made:
        ins.close()


def test_shows_the_tensors_now_under_their_variable_names(live):
    a = il.zeros(4)
    ins = live(a)
    assert ins.labels() == ["a"]
    html = ins.views["storage"].html
    assert 'data-tensor="a"' in html and "0." in html


def test_an_inplace_write_through_a_view_redraws_with_the_changed_cells(live):
    a = il.zeros(4)
    ins = live(a)
    a[1:3].add_(5)
    ins.flush()
    html = ins.views["storage"].html
    assert "5." in html and html.count('class="cell changed"') == 2
    assert ins.step == len(ins.trace.steps) - 1  # follows the newest step
    assert any(s.event == "bump" for s in ins.trace.steps)


def test_unrelated_tensors_are_not_recorded(live):
    a = il.zeros(4)
    ins = live(a)
    b = il.ones(3)
    b.mul_(2)
    assert ins.trace.steps == []


def test_backward_shows_the_gradient_and_watches_it(live):
    w = il.ones(3, requires_grad=True)
    ins = live(w)
    (w * 2).sum().backward()
    assert any(s.event == "accumulate" for s in ins.trace.steps)
    n = len(ins.trace.steps)
    with il.no_grad():
        w.grad.zero_()  # the gradient's storage is watched from its accumulation on
    assert len(ins.trace.steps) > n
    ins.flush()
    ins.tabs.selected_index = ins.kinds.index("graph")
    assert 'id="' in ins.views["graph"].html and "w" in ins.views["graph"].tensor_ids.values()


def test_many_writes_in_a_kernel_cell_cost_one_redraw(live):
    a = il.zeros(4)

    async def cell():
        ins = live(a, debounce=0.01)
        for _ in range(200):
            a.add_(1)
        before = ins.refresh_count  # nothing redrawn while the cell runs
        await asyncio.sleep(0.05)  # the cell yields to the kernel's loop
        return ins, before

    out = []  # in a thread of its own: another test's event loop may be running in this one
    runner = threading.Thread(target=lambda: out.append(asyncio.run(cell())))
    runner.start()
    runner.join(10)
    ins, before = out[0]
    assert before == 0 and ins.refresh_count == 1
    assert "200." in ins.views["storage"].html


def test_without_an_event_loop_redraws_are_throttled(live):
    a = il.zeros(4)
    ins = live(a, debounce=60)
    for _ in range(50):
        a.add_(1)
    assert ins.refresh_count <= 1
    ins.flush()
    assert "50." in ins.views["storage"].html


def test_close_stops_listening(live):
    a = il.zeros(2)
    ins = live(a)
    ins.close()
    a.add_(1)
    assert ins.trace.steps == []
    assert ins.trace._on_event not in hooks._subscribers


def test_inspector_does_not_keep_tensors_alive(live):
    def cell():  # a frame that ends, as a notebook's `del a` would
        a = il.zeros(2)
        return live(a)

    ins = cell()
    gc.collect()
    assert ins.tensors() == []
    ins.flush()
    assert "no longer exist" in ins.views["storage"].html


def test_inspect_rejects_non_tensors():
    with pytest.raises(TypeError, match="at least one tensor"):
        il.inspect()
    with pytest.raises(TypeError, match="expected inplace_lab tensors"):
        il.inspect([1, 2])
