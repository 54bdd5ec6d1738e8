"""report(): one self-contained HTML page with every picture of a trace, for people
without Jupyter (open it in any browser, offline; graphs are laid out server-side by
``dot`` or in the page by the bundled WASM Graphviz).

    with il.trace() as tr:
        ...
    il.viz.report(tr, "report.html")
"""
from __future__ import annotations

from pathlib import Path

from .page import Panel
from .svg import esc

MAX_STORAGE_STEPS = 8  # storage diagrams for the first in-place / out= / view steps


def report(trace, path=None, title: str = "inplace_lab report") -> Panel:
    """Build the page (and write it to ``path`` when given)."""
    from .explain import explain
    from .graph import graph
    from .memory import memory_timeline
    from .storage import storage_diagram
    from .timeline import version_timeline

    parts = [f"<h1>{esc(title)}</h1>", _program(trace)]
    pictures = []

    def section(heading, pic):
        pictures.append(pic)
        parts.append(f"<h2>{esc(heading)}</h2>{pic.fragment()}")

    for st in [s for s in trace.ops() if s.kind in ("inplace", "out", "view")][:MAX_STORAGE_STEPS]:
        section(f"Step {st.index}: {st.line or st.op} ({st.kind})", storage_diagram(st))
    section("Version counters", version_timeline(trace))
    section("Live memory", memory_timeline(trace))
    if trace.error is not None:
        panel = explain(trace.error, trace=trace)
        parts.append(f"<h2>The error</h2>{panel.body}")
        pictures.extend(panel.pictures)
    else:
        outs = _live_outputs(trace)
        if outs:
            section("Backward graph", graph(outs))
    page = Panel("".join(parts), title, pictures)
    if path is not None:
        page.save(Path(path))
    return page


def _program(trace) -> str:
    rows = []
    for s in trace.steps:
        if s.event not in ("op", "bump", "save", "check", "error"):
            continue
        snaps = s.outputs or s.inputs
        who = ", ".join(dict.fromkeys(x.label for x in snaps))
        what = {"op": f"{s.op} ({s.kind})", "bump": f"{s.op}_ bumps v{s.data.get('before')} → "
                f"v{s.data.get('after')}", "save": f"{s.data.get('node')} saves "
                f"{s.data.get('name')} @ v{s.data.get('version')}",
                "check": f"{s.data.get('node')} checks {s.data.get('name')}: expected "
                f"v{s.data.get('expected')}, found v{s.data.get('found')}",
                "error": s.kind}[s.event]
        rows.append(f"<tr><td>{s.index}</td><td><code>{esc(s.line)}</code></td>"
                    f"<td>{esc(what)}</td><td>{esc(who)}</td></tr>")
    return ("<h2>The program, step by step</h2><table><tr><th>step</th><th>line</th>"
            "<th>event</th><th>tensors</th></tr>" + "".join(rows) + "</table>")


def _live_outputs(trace) -> list:
    """Tensors of the trace still alive that have a grad_fn nobody consumed (the outputs)."""
    live = []
    for ref, _tid, *_ in trace._ids.values():  # (weakref, tid, snapshot, grad_fn id)
        t = ref()
        if t is not None and t._grad_fn is not None:
            live.append(t)
    if not live:
        return []
    fed = set()
    for t in live:
        for nxt, _ in t._grad_fn.next_functions:
            if nxt is not None:
                fed.add(id(nxt))
    tops = [t for t in live if id(t._grad_fn) not in fed]
    return tops[-3:]
