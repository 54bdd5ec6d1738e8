"""explain(): one HTML panel with the right pictures and the words for an error (or a trace).

    try:
        w.add_(1)
    except il.errors.InplaceLabError as e:
        il.viz.explain(e)          # message, what happened, why forbidden, how to fix, pictures

Which pictures fit which error:

==============================  ==================================================
leaf in-place (and view of)     the graph, leaf + AccumulateGrad + savers in red
saved tensor modified           the graph (saved tensor and modifier in red), and
                                the version timeline when the error was traced
no_grad / multi-output view     the storage of the view and its base, the graph
shape, cast, overlap            the storage diagram of the tensors involved
out= with grad, backward twice  the graph or storage of the tensor involved
device / facade mismatch        words only (no tensor layout is involved)
==============================  ==================================================
"""
from __future__ import annotations

from .. import errors as E
from ..tensor import Tensor
from .page import Panel
from .svg import esc


def explain(obj, trace=None) -> "Panel":
    """An HTML panel explaining an inplace_lab error, or summarising a trace."""
    from ..trace import Trace

    if isinstance(obj, Trace):
        if obj.error is not None:
            return explain(obj.error, trace=obj)
        return _trace_summary(obj)
    if not isinstance(obj, E.InplaceLabError):
        raise TypeError(f"explain(): expected an inplace_lab error or a Trace, got {type(obj).__name__}")
    trace = trace if trace is not None else getattr(obj, "trace", None)
    pictures, what = _pictures(obj, trace)
    parts = [f"<h1>{esc(type(obj).__name__)}</h1>",
             f'<div class="il-error">{esc(str(obj))}</div>']
    if what:
        parts.append(f"<h2>What happened</h2><p>{esc(what)}</p>")
    if obj.why:
        parts.append(f'<h2>Why it is forbidden</h2><div class="il-why">{esc(obj.why)}</div>')
    if obj.fix:
        parts.append(f'<h2>How to fix it</h2><div class="il-fix">{esc(obj.fix)}</div>')
    for heading, pic in pictures:
        parts.append(f"<h2>{esc(heading)}</h2>{pic.fragment()}")
    return Panel("".join(parts), f"explain {type(obj).__name__}", [p for _, p in pictures],
                 error=obj, what=what)


def _pictures(err, trace):
    from .graph import graph
    from .storage import storage_diagram
    from .timeline import version_timeline

    t = err.info.get("tensor")
    t = t if isinstance(t, Tensor) else None
    pics, what = [], ""
    if isinstance(err, (E.LeafInplaceError, E.SavedTensorModifiedError)):
        g = graph(err, trace=trace)
        pics.append(("The backward graph", g))
        what = g.model.sentence
        if isinstance(err, E.SavedTensorModifiedError) and trace is not None:
            pics.append(("Versions over time", version_timeline(trace)))
        if isinstance(err, E.LeafInplaceError) and t is not None:
            pics.append(("The tensor being written", _storage(storage_diagram, t)))
    elif isinstance(err, E.ViewRebaseError):
        if t is not None:
            pics.append(("The view and its base", _storage(storage_diagram, t)))
            if t._requires_grad:
                pics.append(("The backward graph", graph(err, trace=trace)))
        how = {"no_grad": "under no_grad", "inference": "in inference mode",
               "multi_output": "by a function that returns several views"}
        made = how.get(getattr(err, "creation", ""), "")
        what = (f"The written tensor is a view{' made ' + made if made else ''}; writing into it "
                "in place would require rewriting the history of its base, which autograd cannot do.")
    elif isinstance(err, (E.InplaceShapeError, E.InplaceCastError, E.InternalOverlapError,
                          E.PartialOverlapError, E.OutRequiresGradError)):
        other = err.info.get("other")
        if t is not None:
            items = [t] + ([other] if isinstance(other, Tensor) else [])
            pics.append(("The storage involved", _storage(storage_diagram, *items)))
        what = _what_layout(err, t, other)
    elif isinstance(err, E.BackwardTwiceError):
        node = err.info.get("node") or err.info.get("grad_fn")
        if node is not None:
            pics.append(("The graph, with its saved tensors freed", graph(node)))
        what = "backward() already ran through this graph and freed the tensors it had saved."
    elif isinstance(err, (E.DeviceMismatchError, E.FacadeMismatchError)):
        what = f"The op {err.op or ''} received tensors it cannot combine.".replace("op  ", "op ")
    elif t is not None:
        pics.append(("The tensor involved", _storage(storage_diagram, t)))
        if t._requires_grad:
            pics.append(("The backward graph", graph(err, trace=trace)))
    if trace is not None and not any(p.kind == "timeline" for _, p in pics) and trace.of("bump"):
        pics.append(("Versions over time", version_timeline(trace)))
    return pics, what


def _storage(storage_diagram, *tensors):
    """The written tensor (and the input it overlaps), with their base when it is a view."""
    from .model import caller_names

    base = tensors[0]._base
    items = list(tensors) + ([base] if base is not None and
                             all(base is not t for t in tensors) else [])
    known = caller_names()
    roles = ["written to", "input"]
    names = [known.get(id(t)) or (roles[i] if i < len(tensors) else "base")
             for i, t in enumerate(items)]
    return storage_diagram(*items, names=names)


def _what_layout(err, t, other) -> str:
    shape = list(t.shape) if t is not None else "?"
    if isinstance(err, E.InplaceShapeError):
        return f"The in-place target has shape {shape}; the result would need a bigger shape."
    if isinstance(err, E.InplaceCastError):
        return f"The result type does not fit the target's dtype ({t._dtype.name if t is not None else '?'})."
    if isinstance(err, E.InternalOverlapError):
        return ("Some elements of the target share one storage cell (a stride of 0, from expand): "
                "see the cells numbered more than once below.")
    if isinstance(err, E.PartialOverlapError):
        return ("The input and the target cover some of the same cells at different positions, "
                "so the op would read values it has already overwritten.")
    return "out= writes bypass autograd, so they cannot be recorded while an input requires grad."


def _trace_summary(trace) -> "Panel":
    from .memory import memory_timeline
    from .storage import storage_diagram
    from .timeline import version_timeline

    pics = [("Versions over time", version_timeline(trace)),
            ("Live memory", memory_timeline(trace))]
    last = [s for s in trace.ops() if s.kind in ("inplace", "out")]
    if last:
        pics.insert(0, (f"Storage after the last in-place op ({last[-1].line or last[-1].op})",
                        storage_diagram(last[-1])))
    n_err = trace.of("error")
    parts = [f"<h1>Trace: {len(trace.ops())} ops, {len(trace.of('bump'))} version bumps</h1>"]
    if n_err:
        parts.append(f'<div class="il-error">{esc(n_err[-1].data.get("message", ""))}</div>')
    for heading, pic in pics:
        parts.append(f"<h2>{esc(heading)}</h2>{pic.fragment()}")
    return Panel("".join(parts), "trace summary", [p for _, p in pics])
