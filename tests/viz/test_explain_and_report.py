"""explain() for every error class, and the self-contained report page."""
import html
import inspect
import re

import pytest

import inplace_lab as il
from inplace_lab import errors as E
from inplace_lab import viz

from .conftest import ARTIFACTS, EVIL


def _raise(fn):
    with pytest.raises(E.InplaceLabError) as info:
        fn()
    return info.value


def _real_errors():
    """One error of each class the library raises, produced by running real code."""
    w = il.ones(3, requires_grad=True)
    out = {}
    out[E.LeafInplaceError] = _raise(lambda: w.add_(1))
    out[E.ViewOfLeafInplaceError] = _raise(lambda: w[:2].add_(1))

    def saved():
        y = w.exp()
        y.add_(1)
        y.sum().backward()
    out[E.SavedTensorModifiedError] = _raise(saved)

    def no_grad_view():
        y = w * 1
        with il.no_grad():
            v = y[:1]
        v.mul_(2)
    out[E.NoGradViewInplaceError] = _raise(no_grad_view)

    def multi():
        a, _b, _c = (w * 1).unbind()
        a.mul_(2)
    out[E.MultiOutputViewInplaceError] = _raise(multi)
    out[E.InplaceShapeError] = _raise(lambda: il.ones(3).add_(il.ones(2, 3)))
    out[E.InplaceCastError] = _raise(lambda: il.arange(3).add_(1.5))
    out[E.InternalOverlapError] = _raise(lambda: il.ones(1, 3).expand(2, 3).add_(1))
    a = il.arange(5.)
    out[E.PartialOverlapError] = _raise(lambda: a[1:].add_(a[:-1]))
    out[E.OutRequiresGradError] = _raise(lambda: il.exp(w, out=il.empty(3)))

    def twice():
        y = w.exp().sum()
        y.backward()
        y.backward()
    out[E.BackwardTwiceError] = _raise(twice)
    return out


def _all_error_classes():
    return [c for _, c in inspect.getmembers(E, inspect.isclass)
            if issubclass(c, E.InplaceLabError)]


def test_explain_covers_every_error_class(artifact):
    real = _real_errors()
    for cls in _all_error_classes():
        err = real.get(cls) or cls(f"{cls.__name__}: {EVIL}", tensor=il.zeros(2), op=EVIL)
        assert type(err) is cls
        panel = viz.explain(err)
        page = panel.to_html()
        assert f"<h1>{cls.__name__}</h1>" in page
        assert html.escape(str(err), quote=True) in page
        if cls.why:
            assert html.escape(cls.why, quote=True) in page
        if cls.fix:
            assert html.escape(cls.fix, quote=True) in page
        assert EVIL not in page
        artifact(panel, f"explain_{cls.__name__}")


def test_explain_picks_the_pictures_that_fit_the_error():
    real = _real_errors()
    kinds = {cls: [p.kind for p in viz.explain(err).pictures] for cls, err in real.items()}
    assert kinds[E.LeafInplaceError][0] == "graph"
    assert kinds[E.SavedTensorModifiedError][0] == "graph"
    assert kinds[E.InternalOverlapError] == ["storage"]
    assert kinds[E.PartialOverlapError] == ["storage"]
    assert "storage" in kinds[E.NoGradViewInplaceError]
    # the overlap picture shows one storage with both tensors (and their base) on it
    [strip] = viz.explain(real[E.PartialOverlapError]).pictures[0].model
    assert [t.label for t in strip.tensors] == ["written to", "input", "base"]
    assert [t.offset for t in strip.tensors] == [1, 0, 0]


def test_explain_of_a_traced_saved_tensor_error_adds_the_version_timeline(artifact):
    x = il.ones(3, requires_grad=True)
    with pytest.raises(E.SavedTensorModifiedError) as info:
        with il.trace():
            y = x.sigmoid()
            y.mul_(2)
            y.sum().backward()
    panel = viz.explain(info.value)
    assert [p.kind for p in panel.pictures] == ["graph", "timeline"]
    assert panel.pictures[1].model.failed
    assert "mul_ (y.mul_(2))" in panel.model["what"]
    artifact(panel.pictures[1], "explain_saved_timeline")


def test_report_is_one_self_contained_page(tmp_path):
    w = il.ones(4, requires_grad=True)
    with pytest.raises(E.SavedTensorModifiedError):
        with il.trace() as tr:
            y = w * 2
            v = y[1:3]
            z = v.sin()  # saves v
            v.add_(1)
            z.sum().backward()
    path = tmp_path / "report.html"
    page = viz.report(tr, path)
    text = path.read_text(encoding="utf-8")
    assert text == page.to_html()
    assert text.startswith("<!doctype html>")
    assert not re.search(r'(src|href)="(https?:)?//', text)
    assert "<h2>Version counters</h2>" in text and "<h2>Live memory</h2>" in text
    assert "<h2>The error</h2>" in text and "v.add_(1)" in text
    assert {p.kind for p in page.pictures} >= {"storage", "timeline", "memory", "graph"}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "report.html").write_text(text, encoding="utf-8")


def test_report_without_an_error_draws_the_graph_of_the_live_outputs():
    w = il.ones(3, requires_grad=True)
    with il.trace() as tr:
        loss = (w * w).sum()
    page = viz.report(tr)
    [g] = [p for p in page.pictures if p.kind == "graph"]
    assert "loss" in g.model.names_of(g.model.ids_of("output"))
    del loss


def test_explain_of_a_trace_without_error_summarises_it():
    with il.trace() as tr:
        x = il.zeros(2, 3)
        x[0].add_(1)
    panel = viz.explain(tr)
    assert [p.kind for p in panel.pictures] == ["storage", "timeline", "memory"]
    assert "Trace:" in panel.to_html()
