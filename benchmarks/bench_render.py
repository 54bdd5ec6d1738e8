"""Section 7: renderers, absolute seconds (targets: graph < 1 s, storage diagram < 0.2 s,
timelines < 1 s). Renderers that this tree does not have yet are skipped with a note."""
from __future__ import annotations

import importlib
import statistics
import time

from . import workloads as W


def _median_seconds(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return round(statistics.median(ts), 4)


def _find(names, modules):
    """The first of ``names`` found in ``inplace_lab.viz`` or one of its ``modules``."""
    for modname in ("inplace_lab.viz",) + tuple(f"inplace_lab.viz.{m}" for m in modules):
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        for n in names:
            fn = getattr(mod, n, None)
            if callable(fn) and not isinstance(fn, type(importlib)):
                return fn
    return None


def renderers(sec, cfg, il, torch):
    reps = cfg.reps_render
    graph = _find(("graph",), ("graph",))
    if graph is None:
        sec.notes.append("graph renderer (inplace_lab.viz.graph) not present: skipped")
    else:
        xg, w, b = W.small_inputs(il, requires_grad=True)
        y = W.chain(xg, w, b, cfg.graph_nodes).sum()
        sec.add(f"graph of {cfg.graph_nodes} op nodes -> DOT (collapsed)",
                _median_seconds(lambda: graph(y, layout="browser"), reps), unit="s", target=1.0)
        sec.add(f"graph of {cfg.graph_nodes} op nodes -> DOT, no collapsing (reported)",
                _median_seconds(lambda: graph(y, collapse=False, layout="browser"), reps),
                unit="s")
        from inplace_lab.viz.graph import has_dot

        if has_dot():
            sec.add(f"graph of {cfg.graph_nodes} op nodes -> SVG via dot (collapsed)",
                    _median_seconds(lambda: graph(y, layout="dot").to_svg(), reps), unit="s",
                    target=1.0)
        else:
            sec.notes.append("Graphviz `dot` not on PATH: graph SVG timing skipped")
    diagram = _find(("storage_diagram",), ("storage",))
    if diagram is None:
        sec.notes.append("storage_diagram not present: skipped")
    else:
        t = il.zeros(cfg.large)
        v = t[1::3]
        sec.add(f"storage diagram, {cfg.large:,}-element storage with a strided view",
                _median_seconds(lambda: diagram(t, v).to_svg(), reps), unit="s", target=0.2)
    _timelines(sec, cfg, il, reps)


def _timelines(sec, cfg, il, reps):
    found = {n: _find((n,), ("timeline", "timelines", "version_timeline", "memory_timeline"))
             for n in ("version_timeline", "memory_timeline")}
    missing = [n for n, f in found.items() if f is None]
    if missing:
        sec.notes.append(f"{', '.join(missing)} not present in inplace_lab.viz: skipped")
    if len(missing) == len(found):
        return
    tr = _long_trace(il, cfg.trace_steps)
    for name, fn in found.items():
        if fn is None:
            continue
        try:
            s = _median_seconds(lambda: _as_svg(fn(tr)), reps)
        except Exception as e:  # a renderer still being built: report, don't stop the suite
            sec.notes.append(f"{name} failed on a {len(tr.steps)}-step trace: "
                             f"{type(e).__name__}: {e}")
            continue
        sec.add(f"{name} of a {len(tr.steps):,}-step trace", s, unit="s", target=1.0)


def _as_svg(pic):
    return pic.to_svg() if hasattr(pic, "to_svg") else pic


def _long_trace(il, steps):
    Trace = importlib.import_module("inplace_lab.trace").Trace
    with Trace() as tr:
        x = il.ones(8)
        while len(tr.steps) < steps:
            x.mul_(1.0)
            y = x + 1
            del y
    return tr
