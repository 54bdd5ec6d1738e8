"""``%load_ext inplace_lab`` in a real IPython shell: the ``%%inplace_trace`` magic and
the explained errors (captured display outputs, no browser)."""
import pytest

pytest.importorskip("IPython")
pytest.importorskip("anywidget")

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

import inplace_lab as il  # noqa: E402
from inplace_lab.widgets import Inspector  # noqa: E402
from inplace_lab.widgets.magic import explanation_html  # noqa: E402


@pytest.fixture
def ip():
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext inplace_lab\nimport inplace_lab as il", store_history=False)
    yield shell
    shell.run_cell("%unload_ext inplace_lab", store_history=False)
    shell.user_ns.clear()
    InteractiveShell.clear_instance()


def run(ip, code):
    with capture_output() as out:
        result = ip.run_cell(code)
    return result, out


def shown(out, kind):
    """The displayed objects of one kind: 'html' strings or Inspector widgets."""
    items = []
    for o in out.outputs:
        if kind == "html" and "text/html" in o.data and "il-explained" in o.data["text/html"]:
            items.append(o.data["text/html"])
        if kind == "inspector" and "application/vnd.jupyter.widget-view+json" in o.data:
            items.append(o)
    return items


def test_magic_runs_the_cell_in_the_user_namespace_and_shows_an_inspector(ip, monkeypatch):
    made = []
    monkeypatch.setattr(Inspector, "__init__", _spy(Inspector.__init__, made))
    result, out = run(ip, "%%inplace_trace\nx = il.arange(6.).reshape(2, 3)\nv = x.t()\nv.mul_(2)")
    assert result.success
    assert isinstance(ip.user_ns["v"], il.Tensor) and ip.user_ns["x"]._version == 1
    assert len(shown(out, "inspector")) == 1 and len(made) == 1
    tr = made[0].trace
    assert [s.op for s in tr.ops()][-1] == "mul"
    assert {snap.label for s in tr.steps for snap in s.outputs} >= {"x", "v"}  # notebook names
    assert any(s.line == "v.mul_(2)" for s in tr.steps)  # the cell's own source lines


def test_magic_shows_the_value_of_a_last_expression(ip):
    result, out = run(ip, "%%inplace_trace\ny = il.ones(2)\ny._version")
    assert result.success
    assert any(o.data.get("text/plain") == "0" for o in out.outputs)


def test_error_in_the_magic_shows_the_explanation_then_the_inspector(ip):
    result, out = run(ip, "%%inplace_trace\np = il.ones(3, requires_grad=True)\np.add_(1)")
    assert isinstance(result.error_in_exec, il.errors.LeafInplaceError)  # the cell failed
    panels = shown(out, "html")
    assert len(panels) == 1  # explained once, not again by the custom handler
    assert 'data-error="LeafInplaceError"' in panels[0]
    assert "Why it is forbidden" in panels[0] and "How to fix it" in panels[0]
    assert "<details" in panels[0] and "Traceback (most recent call last)" in panels[0]
    assert "magic.py" not in panels[0]  # the traceback starts in the student's cell
    assert len(shown(out, "inspector")) == 1
    assert "Traceback" not in out.stdout + out.stderr  # no bare traceback


def test_error_outside_the_magic_is_explained_too(ip):
    result, out = run(ip, "q = il.ones(2, requires_grad=True)\nq.mul_(2)")
    assert isinstance(result.error_in_exec, il.errors.LeafInplaceError)
    panels = shown(out, "html")
    assert len(panels) == 1 and 'data-error="LeafInplaceError"' in panels[0]
    assert shown(out, "inspector") == []
    assert "Traceback" not in out.stdout + out.stderr


def test_other_errors_keep_their_usual_traceback(ip):
    result, out = run(ip, "1 / 0")
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    assert shown(out, "html") == []


def test_unload_restores_plain_tracebacks(ip):
    ip.run_cell("%unload_ext inplace_lab", store_history=False)
    assert ip.custom_exceptions == ()
    assert "inplace_trace" not in ip.magics_manager.magics["cell"]
    ip.run_cell("%load_ext inplace_lab", store_history=False)  # for the fixture's unload


def test_explanation_falls_back_to_words_when_the_pictures_fail(monkeypatch):
    import inplace_lab.viz as viz

    def broken(*a, **k):
        raise RuntimeError("renderer down")

    monkeypatch.setattr(viz, "explain", broken)
    p = il.ones(2, requires_grad=True)
    with pytest.raises(il.errors.LeafInplaceError) as info:
        p.add_(1)
    html = explanation_html(info.value)
    assert "LeafInplaceError" in html and "renderer down" in html
    assert il.errors.LeafInplaceError.fix[:20] in html


def test_explanation_escapes_user_text():
    p = il.ones(2, requires_grad=True)
    p.name = "<script>alert(1)</script>"
    with pytest.raises(il.errors.LeafInplaceError) as info:
        p.add_(1)
    assert "<script>alert(1)" not in explanation_html(info.value)


def _spy(init, made):
    def wrapped(self, *a, **k):
        made.append(self)
        init(self, *a, **k)
    return wrapped
