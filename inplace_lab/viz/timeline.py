"""Version timeline: one lane per version counter, read left to right like the program.

    with inplace_lab.trace() as tr:
        y = x.exp()          # ExpBackward0 saves its result at version 0   (amber diamond)
        y.add_(1)            # bump 0 -> 1                                    (tick "add_")
        y.sum().backward()   # the check: expected v0, found v1               (red cross)
    inplace_lab.viz.version_timeline(tr)

A view shares its base's counter, so a base and all its views are one lane (the
lane lists every tensor on it). Each column is one event of the trace that
matters for versions: a bump, a save, a check or the error. Columns run during
backward sit on a shaded band. Failed checks are red and carry
``class="check failed"`` in the SVG; ``Picture.model.failed`` lists them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .svg import SVG, Picture
from .theme import MONO, ROLE, TINT

LABEL_W = 190
COL_W = 118
LANE_H = 78
TOP = 58
MAX_COLS = 160  # longer traces keep the first and last columns


@dataclass
class Mark:
    col: int
    kind: str  # bump | save | check | error
    step: int
    title: str
    detail: str
    version: int | None = None
    expected: int | None = None
    found: int | None = None
    passed: bool | None = None
    line: str = ""


@dataclass
class Lane:
    counter: int
    labels: list
    marks: list = field(default_factory=list)


@dataclass
class TimelineModel:
    lanes: list
    columns: list  # step index of each column
    backward_cols: list
    error: str = ""

    @property
    def failed(self) -> list:
        return [m for lane in self.lanes for m in lane.marks
                if m.kind == "check" and m.passed is False]


def version_timeline(trace, title: str = "") -> Picture:
    """Draw a trace's version counters over time (see the module docstring)."""
    model = build(trace)
    return Picture(render(model, title), "timeline", model, title="version timeline")


def _short(node: str) -> str:
    from ..autograd.saved import _short as s

    return s(node) if node else "?"


def build(trace) -> TimelineModel:
    labels = trace.labels_by_counter()
    steps = [s for s in trace.steps if s.event in ("bump", "save", "check", "error")]
    if len(steps) > MAX_COLS:
        steps = steps[: MAX_COLS - 10] + steps[-10:]
    lanes: dict[int, Lane] = {}
    columns, backward = [], []
    error = ""
    for col, st in enumerate(steps):
        columns.append(st.index)
        if st.backward:
            backward.append(col)
        counter = _counter_of(st)
        if st.event == "error":
            error = st.kind
            if counter is None:
                continue
        if counter is None:
            continue
        lane = lanes.setdefault(counter, Lane(counter, labels.get(counter, [])))
        d = st.data
        if st.event == "bump":
            m = Mark(col, "bump", st.index, f"{st.op}_", f"v{d['before']} → v{d['after']}",
                     version=d["after"], line=st.line)
        elif st.event == "save":
            m = Mark(col, "save", st.index, f"{_short(d['node'])} saves", f"{d['name']} @ v{d['version']}",
                     version=d["version"], line=st.line)
        elif st.event == "check":
            if d["passed"] is None:
                detail = f"not checked (hooks) · v{d['found']}"
            else:
                detail = f"expected v{d['expected']} · found v{d['found']}"
            m = Mark(col, "check", st.index, f"{_short(d['node'])} reads {d['name']}", detail,
                     expected=d["expected"], found=d["found"], passed=d["passed"], line=st.line)
        else:
            title = st.kind[:-5] if st.kind.endswith("Error") else st.kind
            m = Mark(col, "error", st.index, title, st.data.get("message", "")[:60], line=st.line)
        lane.marks.append(m)
    from ..trace import _is_anon

    bw = set(backward)
    kept = [la for la in lanes.values()  # gradient arithmetic inside backward is not the story
            if not (all(_is_anon(n) for n in la.labels) and all(m.col in bw for m in la.marks))]
    used = sorted({m.col for la in kept for m in la.marks})
    remap = {c: i for i, c in enumerate(used)}
    for la in kept:
        for m in la.marks:
            m.col = remap[m.col]
    return TimelineModel(kept, [columns[c] for c in used], [remap[c] for c in backward if c in remap],
                         error)


def _counter_of(step):
    if step.event == "bump":
        return step.data.get("counter")
    snaps = step.inputs or step.outputs
    return snaps[0].counter if snaps else None


_LEGEND = ("one lane per version counter (a base and its views share one) · "
           "◆ saved for backward · | bump · ● check at backward")


def render(model: TimelineModel, title: str = "") -> str:
    ncols = max(len(model.columns), 1)
    width = LABEL_W + ncols * COL_W + 24
    height = TOP + max(len(model.lanes), 1) * LANE_H + 30
    svg = SVG(max(width, int(len(_LEGEND) * 6.3) + 32), height, title or "version timeline")
    svg.rect(0, 0, svg.width, svg.height, fill=ROLE["paper"])
    svg.text(16, 22, title or "Version counters over time", 15, font_weight="bold", fill=ROLE["ink"])
    svg.text(16, 40, _LEGEND, 11, fill=ROLE["muted"])  # (the picture is at least as wide)
    x_of = lambda c: LABEL_W + c * COL_W + COL_W / 2  # noqa: E731
    if model.backward_cols:  # shade the backward pass
        a, b = min(model.backward_cols), max(model.backward_cols)
        svg.rect(x_of(a) - COL_W / 2, TOP - 6, (b - a + 1) * COL_W, height - TOP - 18,
                 fill="#F3F4F6", **{"class": "backward-band"})
        svg.text(x_of(a) - COL_W / 2 + 6, height - 12, "backward()", 10, fill=ROLE["muted"])
    if not model.lanes:
        svg.text(16, TOP + 24, "no version events in this trace (no bump, save or check)", 12,
                 fill=ROLE["muted"])
    for r, lane in enumerate(model.lanes):
        _lane(svg, lane, TOP + r * LANE_H, x_of, ncols)
    return str(svg)


def _lane(svg: SVG, lane: Lane, y0, x_of, ncols) -> None:
    y = y0 + 36
    names = ", ".join(lane.labels[:4]) + (" …" if len(lane.labels) > 4 else "")
    svg.text(16, y - 6, _clip(names, 26), 12.5, font_weight="bold", fill=ROLE["ink"],
             **{"class": "lane-label", "data-counter": lane.counter})
    svg.text(16, y + 10, f"version counter #{lane.counter}", 10, fill=ROLE["accent"])
    x_start = x_of(lane.marks[0].col) - COL_W / 2 + 4 if lane.marks else LABEL_W
    svg.line(x_start, y, LABEL_W + ncols * COL_W, y, stroke=ROLE["accent"], stroke_width=2,
             stroke_opacity=0.5)
    for m in lane.marks:
        x = x_of(m.col)
        g = SVG(0, 0)
        tip = f"step {m.step}: {m.title} {m.detail}" + (f" · {m.line}" if m.line else "")
        if m.kind == "bump":
            g.line(x, y - 12, x, y + 12, stroke=ROLE["modified"], stroke_width=3)
            g.text(x, y - 18, m.title, 11, text_anchor="middle", font_weight="bold",
                   fill=ROLE["modified"])
            g.text(x, y + 25, m.detail, 10.5, text_anchor="middle", font_family=MONO,
                   fill=ROLE["ink"])
        elif m.kind == "save":
            g.path(f"M {x:.1f} {y - 8:.1f} l 8 8 l -8 8 l -8 -8 z", fill=ROLE["saved"],
                   stroke="#92400E", stroke_width=1)
            g.text(x, y - 15, m.title, 10.5, text_anchor="middle", fill="#92400E")
            g.text(x, y + 25, m.detail, 10.5, text_anchor="middle", font_family=MONO,
                   fill=ROLE["ink"])
        elif m.kind == "check":
            colour = ROLE["muted"] if m.passed is None else ROLE["ok"] if m.passed else ROLE["error"]
            g.circle(x, y, 9, fill=TINT["error"] if m.passed is False else TINT["ok"],
                     stroke=colour, stroke_width=2.5)
            g.text(x, y + 4, "✓" if m.passed else "✗" if m.passed is False else "?", 11,
                   text_anchor="middle", font_weight="bold", fill=colour)
            g.text(x, y - 15, _clip(m.title, 20), 10.5, text_anchor="middle", fill=colour)
            g.text(x, y + 25, m.detail, 9.5, text_anchor="middle", font_family=MONO, fill=colour,
                   font_weight="bold" if m.passed is False else None)
        else:
            g.rect(x - 10, y - 10, 20, 20, rx=3, fill=ROLE["error"])
            g.text(x, y + 4, "!", 12, text_anchor="middle", font_weight="bold", fill="#FFFFFF")
            g.text(x, y - 15, _clip(m.title, 22), 10.5, text_anchor="middle", fill=ROLE["error"])
        cls = m.kind + (" failed" if m.passed is False else " passed" if m.passed else "")
        svg.add(f'<g class="{cls}" data-step="{m.step}" data-kind="{m.kind}"'
                + (f' data-expected="{m.expected}" data-found="{m.found}"' if m.kind == "check" else "")
                + f"><title>{_esc(tip)}</title>{''.join(g.parts)}</g>")


def _esc(s) -> str:
    from .svg import esc

    return esc(s)


def _clip(s, n) -> str:
    s = str(s)
    return s if len(s) <= n else s[: n - 1] + "…"
