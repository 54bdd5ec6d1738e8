"""Memory timeline: live bytes per device over a trace's steps, with the peak marked.

    with il.trace() as a:                      with il.trace() as b:
        x = il.randn(1, 64, 512, 512)              x = il.randn(1, 64, 512, 512)
        y = il.relu(x)                             il.relu_(x)
    il.viz.memory_timeline([a, b], names=["relu", "relu_"])
    # peaks 134,217,728 vs 67,108,864 bytes

Every allocation and free is its own step in a trace (the allocator reports it),
so the peak read here is exact, temporaries included. Allocations and frees are
labelled with the tensor that owns the storage. Two traces are drawn side by side
on one shared scale (``overlay=True``: on one chart).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .svg import SVG, Picture
from .theme import MONO, ROLE, TINT, tensor_colour

PLOT_W, PLOT_H = 520, 230
LEFT, TOP = 92, 64
MAX_NOTES = 10  # allocation / free labels per chart (the largest ones)


@dataclass
class Series:
    name: str
    device: str
    steps: list  # step index per point
    live: list  # live bytes after each step
    start: int  # live bytes when the trace began
    peak: int
    peak_step: int
    events: list = field(default_factory=list)  # (step, "alloc"|"free", label, nbytes)

    @property
    def peak_above_start(self) -> int:
        return self.peak - self.start


def memory_timeline(trace_or_traces, names=None, overlay: bool = False, device=None,
                    title: str = "") -> Picture:
    """Live bytes per device over the steps of one trace or several (see the module doc)."""
    traces = list(trace_or_traces) if isinstance(trace_or_traces, (list, tuple)) else [trace_or_traces]
    names = list(names) if names else [f"trace {i + 1}" for i in range(len(traces))]
    if len(traces) == 1 and not names:
        names = [""]
    series = []
    for tr, nm in zip(traces, names):
        series.extend(build(tr, nm, device))
    return Picture(render(series, overlay, title), "memory", series, title="memory timeline")


def build(trace, name: str = "", device=None) -> list[Series]:
    """One ``Series`` per device the trace touched."""
    labels = _storage_labels(trace)
    devices = []  # the devices this trace allocated or freed on (others are just listed)
    for st in trace.steps:
        d = st.data.get("device") if st.event in ("alloc", "free") else None
        if d is not None and d not in devices and (device is None or d == str(device)):
            devices.append(d)
    if not devices:
        devices = [str(device) if device is not None else "cpu"]
    out = []
    for dev in devices:
        steps, live, events = [], [], []
        start = getattr(trace, "start_memory", {}).get(dev)
        for st in trace.steps:
            if dev not in st.memory:
                continue
            if start is None:  # an old trace without start_memory: undo the first step's alloc
                first = st.memory[dev]
                if st.event == "alloc" and st.data.get("device") == dev:
                    first -= st.data["nbytes"]
                start = first
            steps.append(st.index)
            live.append(st.memory[dev])
            if st.event in ("alloc", "free") and st.data.get("device") == dev:
                events.append((st.index, st.event, labels.get(st.data["storage"], f"storage #{st.data['storage']}"),
                               st.data["nbytes"]))
        start = start or 0
        if not steps:  # nothing happened on this device: a flat line at the starting bytes
            steps, live = [0], [start]
        peak = max(live + [start])
        peak_step = steps[live.index(peak)] if peak in live else steps[0]
        out.append(Series(name, dev, steps, live, start, peak, peak_step, events))
    return out


def _storage_labels(trace) -> dict:
    """storage id -> the name of the first tensor seen on it (a view's base first)."""
    out: dict[int, str] = {}
    for st in trace.steps:
        for snap in st.outputs + st.inputs:
            if snap.base is None:
                out.setdefault(snap.storage_id, snap.label)
    for st in trace.steps:
        for snap in st.outputs + st.inputs:
            out.setdefault(snap.storage_id, snap.label)
    return out


def human(n: int) -> str:
    """Bytes as people read them: exact count plus a binary unit."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= size:
            return f"{n:,} B ({n / size:.1f} {unit})"
    return f"{n:,} B"


def _short_bytes(n: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= size:
            return f"{n / size:.4g} {unit}"
    return f"{n:.0f} B"


def render(series: list, overlay: bool, title: str = "") -> str:
    panels = [series] if overlay or len(series) <= 1 else [[s] for s in series]
    ymax = max([s.peak for s in series] + [1])
    pw = PLOT_W + LEFT + 40
    width = pw * len(panels)
    height = TOP + PLOT_H + 96
    svg = SVG(max(width, 460), height, title or "memory timeline")
    svg.rect(0, 0, svg.width, svg.height, fill=ROLE["paper"])
    svg.text(16, 22, title or "Live memory over the program", 15, font_weight="bold",
             fill=ROLE["ink"])
    svg.text(16, 40, "exact bytes of tensor storage alive after every step · ▲ peak", 11,
             fill=ROLE["muted"])
    for k, group in enumerate(panels):
        _panel(svg, group, k * pw + LEFT, ymax, overlay)
    return str(svg)


def _panel(svg: SVG, group, x0, ymax, overlay) -> None:
    y0 = TOP
    ybot = y0 + PLOT_H
    # axes and y ticks
    svg.line(x0, y0, x0, ybot, stroke=ROLE["grid"])
    svg.line(x0, ybot, x0 + PLOT_W, ybot, stroke=ROLE["grid"])
    for f in (0, 0.25, 0.5, 0.75, 1.0):
        yy = ybot - f * PLOT_H
        svg.line(x0 - 4, yy, x0 + PLOT_W, yy, stroke="#EEF0F4")
        svg.text(x0 - 8, yy + 4, _short_bytes(ymax * f), 9.5, text_anchor="end", fill=ROLE["muted"])
    nmax = max(max(len(s.steps) for s in group), 2)
    for i, s in enumerate(group):
        colour = tensor_colour(i if overlay else 0) if len(group) > 1 else ROLE["leaf"]
        xs = [x0 + PLOT_W * j / (nmax - 1) for j in range(len(s.steps))]
        ys = [ybot - PLOT_H * v / ymax for v in s.live]
        d = f"M {x0:.1f} {ybot - PLOT_H * s.start / ymax:.1f}"
        for x, y in zip(xs, ys):  # a step chart: memory changes at the event, then stays
            d += f" H {x:.1f} V {y:.1f}"
        d += f" H {x0 + PLOT_W:.1f}"
        if not overlay or len(group) == 1:
            svg.path(d + f" V {ybot:.1f} H {x0:.1f} Z", fill=TINT["leaf"], stroke="none",
                     fill_opacity=0.7)
        svg.path(d, fill="none", stroke=colour, stroke_width=2,
                 **{"class": "live", "data-series": s.name, "data-device": s.device})
        # the peak
        j = s.steps.index(s.peak_step)
        px, py = xs[j], ybot - PLOT_H * s.peak / ymax
        svg.path(f"M {px:.1f} {py - 2:.1f} l -6 -10 l 12 0 z", fill=ROLE["error"],
                 **{"class": "peak", "data-peak": s.peak, "data-series": s.name})
        svg.text(min(px + 8, x0 + PLOT_W - 150), py - 14 - 14 * i,
                 f"peak {s.peak:,} B" if not s.start else f"peak +{s.peak_above_start:,} B",
                 11, font_weight="bold", fill=ROLE["error"])
        # allocation / free notes (largest first)
        notes = sorted(s.events, key=lambda e: -e[3])[:MAX_NOTES]
        for (step, kind, label, nbytes) in sorted(notes):
            jj = s.steps.index(step)
            x = xs[jj]
            sign = "+" if kind == "alloc" else "−"
            svg.line(x, ybot, x, ybot + 6, stroke=ROLE["modified"] if kind == "alloc" else ROLE["ok"])
            svg.text(x, ybot + 16 + 12 * (len([n for n in notes if n[0] < step]) % 3),
                     f"{sign}{_clip(label, 12)} {_short_bytes(nbytes)}", 9, text_anchor="middle",
                     font_family=MONO, fill=ROLE["modified"] if kind == "alloc" else ROLE["ok"],
                     **{"class": kind, "data-label": label, "data-bytes": nbytes})
    # legend / panel title
    for i, s in enumerate(group):
        colour = tensor_colour(i if overlay else 0) if len(group) > 1 else ROLE["leaf"]
        name = f"{s.name} · {s.device}" if s.name else s.device
        svg.rect(x0 + 4, ybot + 58 + 14 * i - 8, 10, 10, fill=colour)
        svg.text(x0 + 20, ybot + 58 + 14 * i + 1,
                 f"{_clip(name, 30)}: peak {human(s.peak)}, {s.peak_above_start:,} B above start",
                 10.5, fill=ROLE["ink"], **{"class": "legend"})


def _clip(s, n) -> str:
    s = str(s)
    return s if len(s) <= n else s[: n - 1] + "…"
