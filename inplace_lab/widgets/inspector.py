"""``Inspector(trace)``: step through a recorded program the way Python Tutor steps
through references, but for tensors, storages, version counters and autograd.

    with il.trace() as tr:
        x = il.ones(2, 3)
        v = x.t()
        v.mul_(2)
    Inspector(tr)          # in a notebook cell

Layout: a step slider with play/pause, what the step did and the source line that
did it, then one tab per picture (Storage, Versions, Graph, Memory; Error when the
trace ended in an inplace_lab error). Only the visible tab of the current step is
rendered, when it is first needed (and cached), so a trace of thousands of steps
stays responsive: the browser receives one picture at a time, never all of them.
Clicking a tensor in one picture selects it in every picture (``selected``).
"""
from __future__ import annotations

import os
import sysconfig
import traceback
from collections import OrderedDict

import ipywidgets as W
import traitlets

from ..viz.svg import esc
from ..viz.theme import MONO, ROLE
from . import pictures
from .picture import PictureView

CACHE_SIZE = 48  # rendered pictures kept per inspector (kind, step) -> html


class Inspector(W.VBox):
    """Interactive view of a ``Trace``; ``step`` and ``selected`` are the state.

    ``step``: the index into ``trace.steps`` shown (defaults to the last step, where an
    error trace ends). ``selected``: the label of the highlighted tensor ("" for none).
    """

    step = traitlets.Int(0)
    selected = traitlets.Unicode("")

    def __init__(self, trace, step: int | None = None, title: str = "", **kw):
        self.trace = trace
        self._cache: OrderedDict = OrderedDict()
        self._shown: dict = {}  # kind -> cache key of the picture on screen
        self._from_front = False  # the step change came from the slider or play
        self.render_count = 0  # pictures actually rendered (tests: laziness, caching)
        n = len(trace.steps)
        last = _default_step(trace)
        end = max(n - 1, 0)
        self.play = W.Play(value=last, min=0, max=end, step=1, interval=800,
                           description="play", layout=W.Layout(width="auto"))
        self.slider = W.IntSlider(value=last, min=0, max=end, description="step",
                                  continuous_update=True, readout=True,
                                  layout=W.Layout(width="420px"))
        # linked in the browser: playback and dragging need no round trip through the kernel
        self.play_link = W.jslink((self.play, "value"), (self.slider, "value"))
        self.summary = W.HTML(layout=W.Layout(margin="0 0 0 12px"))
        self.source = W.HTML()
        self.kinds = pictures.KINDS + (("explain",) if trace.error is not None else ())
        self.views = {kind: PictureView(kind=kind) for kind in self.kinds}
        self.tabs = W.Tab(children=[self.views[k] for k in self.kinds],
                          titles=[pictures.TITLES[k] for k in self.kinds])
        self.header = W.HTML(self._header_html(title))
        controls = W.HBox([self.play, self.slider, self.summary],
                          layout=W.Layout(align_items="center", flex_flow="row wrap"))
        super().__init__([self.header, controls, self.source, self.tabs], **kw)
        self.add_class("il-inspector")
        for v in self.views.values():
            v.observe(self._on_view_selected, "selected")
        self.slider.observe(self._on_slider, "value")
        self.play.observe(self._on_slider, "value")  # also when only the kernel sees play move
        self.tabs.observe(lambda _: self._render_visible(), "selected_index")
        self.step = last if step is None else self._clamp(step)
        self._show_step()

    # -- state -----------------------------------------------------------------------------
    def _clamp(self, i: int) -> int:
        return max(0, min(int(i), max(len(self.trace.steps) - 1, 0)))

    @traitlets.observe("step")
    def _step_changed(self, change) -> None:
        i = self._clamp(change["new"])
        if i != change["new"]:
            self.step = i
            return
        if not self._from_front:  # a move made in the browser is already on screen there;
            if self.slider.value != i:  # writing it back would race the student's next move
                self.slider.value = i
            if self.play.value != i:
                self.play.value = i
        self._show_step()

    def _on_slider(self, change) -> None:
        self._from_front = True
        try:
            self.step = change["new"]
        finally:
            self._from_front = False

    def _on_view_selected(self, change) -> None:
        self.selected = change["new"]

    @traitlets.observe("selected")
    def _selected_changed(self, change) -> None:
        for v in self.views.values():
            if v.selected != change["new"]:
                v.selected = change["new"]

    @property
    def current(self):
        """The trace ``Step`` on show (``None`` for an empty trace)."""
        return self.trace.steps[self.step] if self.trace.steps else None

    def refresh_range(self) -> None:
        """Take in steps appended to the trace since (the live inspector's trace grows)."""
        last = max(len(self.trace.steps) - 1, 0)
        with self.hold_trait_notifications():
            self.slider.max = last
            self.play.max = last
        self.header.value = self._header_html("")

    # -- drawing ---------------------------------------------------------------------------
    def _show_step(self) -> None:
        step = self.current
        self.summary.value = _summary_html(step, self.step, len(self.trace.steps))
        self.source.value = _source_html(step)
        self._render_visible()

    def visible_kind(self) -> str:
        return self.kinds[self.tabs.selected_index or 0]

    def _render_visible(self) -> None:
        kind = self.visible_kind()
        key = self._key(kind, self.step)
        if self._shown.get(kind) == key:  # already on screen
            return
        self.views[kind].show(*self.picture(kind, self.step))
        self._shown[kind] = key

    def picture(self, kind: str, i: int):
        """(picture or html, step) for tab ``kind`` at step ``i``, rendered once and cached."""
        key = self._key(kind, i)
        hit = self._cache.get(key)
        if hit is None:
            self.render_count += 1
            try:
                hit = self._draw(kind, i)
            except Exception as e:  # a renderer bug must not take the whole inspector down
                hit = (f'<div class="il-render-error">could not draw the {esc(kind)} picture: '
                       f"{esc(''.join(traceback.format_exception_only(type(e), e)))}</div>")
            self._cache[key] = hit
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        return hit, i

    def _key(self, kind: str, i: int) -> tuple:
        return (kind, i, len(self.trace.steps) if kind in pictures.LIVE else 0)

    def _draw(self, kind: str, i: int):
        return pictures.render(kind, self.trace, i)

    def _header_html(self, title: str) -> str:
        title = title or getattr(self, "_title", "") or "inplace_lab trace"
        self._title = title
        n = len(self.trace.steps)
        err = self.trace.error
        tail = (f' · <span style="color:{ROLE["error"]}">ended in {esc(type(err).__name__)}</span>'
                if err is not None else "")
        return (f'<div class="il-inspector-title"><b>{esc(title)}</b> · {n} step'
                f'{"s" if n != 1 else ""}{tail}</div>')


def _default_step(trace) -> int:
    """Where a finished trace opens: its error, else the last step that touched tensors
    (the allocator's frees at the very end show nothing new)."""
    for k in range(len(trace.steps) - 1, -1, -1):
        step = trace.steps[k]
        if step.event == "error" or step.inputs or step.outputs:
            return k
    return max(len(trace.steps) - 1, 0)


def _summary_html(step, i: int, n: int) -> str:
    if step is None:
        return "<i>nothing recorded</i>"
    text = pictures.describe(step)
    colour = f' style="color:{ROLE["error"]}"' if step.event == "error" else ""  # else: the theme's
    tag = "backward · " if getattr(step, "backward", False) else ""
    return (f'<span class="il-step-summary" data-event="{esc(step.event)}">'
            f'<b>{i + 1}/{n}</b> · {tag}<span{colour}>{esc(text)}</span></span>')


def _source_html(step) -> str:
    if step is None or not step.line or _in_python_itself(step.filename):
        # e.g. a free run by a weakref finalizer: no line of the program caused it
        return '<div class="il-source il-source-empty"></div>'
    return (f'<div class="il-source" style="font-family:{MONO};font-size:12.5px;'
            f'padding:2px 8px;border-left:3px solid {ROLE["accent"]};margin:2px 0 6px">'
            f'<span style="opacity:.6">line {step.lineno}</span>&nbsp;&nbsp;'
            f'<code class="il-source-line">{esc(step.line)}</code></div>')


_STDLIB = sysconfig.get_paths()["stdlib"]


def _in_python_itself(filename: str) -> bool:
    return bool(filename) and os.path.abspath(filename).startswith(_STDLIB + os.sep)
