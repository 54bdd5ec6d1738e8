"""Which picture each Inspector tab shows at step ``i`` of a trace (pure composition of
``inplace_lab.viz``; no widget code here, so it is tested without a browser).

- Storage: the storages of the tensors the step touched, as they were at that step
  (for a step without tensors, such as a free, the last step that had some).
- Versions / Memory: the timeline of the program *up to and including* step ``i``, so
  stepping forward grows the picture the way the program grew.
- Graph: the backward graph of the newest tensor requiring grad up to the step (the
  error's graph at an error step); a graph belongs to live tensors, so it is drawn as
  it is now.
- Error: ``viz.explain`` of the error the trace ended in.
"""
from __future__ import annotations

import dataclasses

from .. import viz

KINDS = ("storage", "versions", "graph", "memory")
TITLES = {"storage": "Storage", "versions": "Versions", "graph": "Graph", "memory": "Memory",
          "explain": "Error"}
LIVE = ("graph",)  # pictures drawn from live objects: redrawn when the trace grows


def render(kind: str, trace, i: int):
    """A ``Picture``/``Panel``, or an HTML message when there is nothing to draw."""
    if not trace.steps:
        return _message("nothing was recorded")
    step = trace.steps[i]
    if kind == "storage":  # an alloc/free/node step has no layout: show the last one that had
        k = next((k for k in range(i, -1, -1) if trace.steps[k].inputs or trace.steps[k].outputs),
                 None)
        if k is None:
            return _message("no tensor has been touched yet")
        return viz.storage_diagram(_with_values(trace, k))
    if kind == "versions":
        return viz.version_timeline(prefix(trace, i))
    if kind == "memory":
        return viz.memory_timeline(prefix(trace, i))
    if kind == "graph":
        return _graph(trace, i)
    if kind == "explain":
        return viz.explain(trace)
    raise ValueError(f"unknown picture kind {kind!r}; expected one of {KINDS + ('explain',)}")


def _with_values(trace, k: int):
    """Step ``k``, with the storage values it lacks taken from the latest earlier step that
    recorded them (an error step snapshots the tensors but not their storages' values,
    and the values did not change: the failed op touched nothing)."""
    step = trace.steps[k]
    ids = {snap.storage_id for snap in list(step.inputs) + list(step.outputs)}
    missing = {sid for sid in ids if not (step.storages.get(sid) or {}).get("values")}
    if not missing:
        return step
    storages = dict(step.storages)
    for earlier in reversed(trace.steps[:k]):
        for sid in list(missing):
            info = earlier.storages.get(sid)
            if info and info.get("values"):
                storages[sid] = info
                missing.discard(sid)
        if not missing:
            break
    return dataclasses.replace(step, storages=storages)


def prefix(trace, i: int):
    """A trace holding only the steps up to ``i`` (shares the step objects: no copying)."""
    if i >= len(trace.steps) - 1:
        return trace
    from ..trace import Trace

    part = Trace(namespace={})
    part.steps = trace.steps[: i + 1]
    return part


def live_tensors(trace) -> dict:
    """tid -> the live tensor behind a trace's snapshots (dead ones left out)."""
    out = {}
    for ref, tid, *_ in getattr(trace, "_ids", {}).values():  # (weakref, tid, snapshot, ...)
        t = ref()
        if t is not None:
            out[tid] = t
    return out


def _graph(trace, i: int):
    """The graph of the newest tensor requiring grad at or before step ``i``."""
    if trace.steps[i].event == "error" and trace.error is not None:
        return viz.graph(trace.error, trace=trace, names=_names(trace))
    live = live_tensors(trace)
    gone = False
    for step in reversed(trace.steps[: i + 1]):
        for snap in list(step.outputs) + list(step.inputs):
            if not (snap.requires_grad or snap.grad_fn):
                continue
            t = live.get(snap.tid)
            if t is not None:
                return viz.graph(t, names=_names(trace, live))
            gone = True
    if gone:
        return _message("the tensors that required grad up to here no longer exist, "
                        "so their graph cannot be drawn")
    return _message("no autograd graph yet: no tensor so far requires grad")


def _names(trace, live=None) -> dict:
    """{tensor: label} with the trace's labels, so the graph names tensors as the trace does."""
    live = live if live is not None else live_tensors(trace)
    labels = {}
    for step in trace.steps:
        for snap in list(step.inputs) + list(step.outputs):
            labels[snap.tid] = snap.label
    return {t: labels[tid] for tid, t in live.items() if tid in labels}


def tensor_ids(picture) -> dict:
    """Graphviz output cannot carry ``data-tensor``: element id -> tensor label for the
    tensor boxes of a graph, so the front end can make them clickable too."""
    model = getattr(picture, "model", None)
    nodes = getattr(model, "nodes", None)
    if getattr(picture, "kind", "") != "graph" or not isinstance(nodes, dict):
        return {}
    return {nid: n["name"] for nid, n in nodes.items() if n.get("kind") in ("leaf", "output", "base")}


def describe(step) -> str:
    """One line saying what a step did, in the words of the course."""
    ins = ", ".join(s.label for s in step.inputs)
    outs = ", ".join(s.label for s in step.outputs)
    d = step.data
    if step.event == "op":
        name = step.op + ("_" if step.kind == "inplace" else "")
        if step.kind == "create":
            return f"{outs} = {step.op}(…)  (new storage)"
        if step.kind == "inplace":
            return f"{name} writes into {outs} in place"
        if step.kind == "view":
            return f"{outs} = {ins}.{step.op}(…)  (a view: same storage)"
        if step.kind == "out":
            return f"{step.op}(…, out={outs})"
        return f"{outs} = {step.op}({ins})"
    if step.event == "bump":
        return f"version of {outs}: {d.get('before')} → {d.get('after')}  ({step.op})"
    if step.event == "save":
        return f"{d.get('node', step.op)} saved {ins} as {d.get('name')} at version {d.get('version')}"
    if step.event == "check":
        ok = {True: "ok", False: "FAILED", None: "skipped (hooks)"}[d.get("passed")]
        return (f"{d.get('node', step.op)} checks {ins}: saved v{d.get('expected')}, "
                f"now v{d.get('found')}: {ok}")
    if step.event == "node":
        return f"backward runs {d.get('node', step.op)}"
    if step.event == "accumulate":
        return f"gradient accumulated into {step.inputs[0].label if step.inputs else '?'}.grad"
    if step.event in ("alloc", "free"):
        return f"{step.event} storage #{d.get('storage')}: {d.get('nbytes', 0):,} bytes on {d.get('device')}"
    if step.event == "error":
        return f"{d.get('type', step.kind)}: {str(d.get('message', '')).splitlines()[0][:160]}"
    return f"{step.event} {step.op}".strip()


def _message(text: str) -> str:
    from ..viz.svg import esc

    return f'<div class="il-empty">{esc(text)}</div>'
