"""The event bus the core emits into (near-zero cost when nobody listens).

Every emission site in the core is guarded by ``if hooks.active:``, so a program
with no listener pays one attribute read per op and builds no event at all.

Events (``Event.event``), in the order a program produces them:

============  =====================================================================
``alloc``     a storage got memory (``data``: storage, device, nbytes)
``free``      a storage's memory was released (same data)
``op``        an op ran (``op``, ``kind``: normal | view | inplace | out | create |
              alias; ``inputs``/``outputs``: the tensors)
``bump``      a version counter moved (``data``: before, after; ``outputs``: the tensor)
``save``      a node saved a tensor for backward (``data``: node, name, version)
``node``      backward ran a node (``data``: node, seq)
``accumulate`` a gradient was accumulated into a leaf's ``.grad`` (inputs: leaf, grad)
``check``     a saved tensor's version was checked at backward (``data``: expected,
              found, passed: True, False, or None when saved-tensor hooks skip it)
``error``     an inplace_lab error was raised (``data``: type, message; ``error``)
============  =====================================================================

>>> import inplace_lab as il
>>> seen = []
>>> h = il.hooks.subscribe(seen.append)
>>> _ = il.ones(2).add_(1)
>>> [(e.event, e.op, e.kind) for e in seen if e.event in ("op", "bump")]
[('op', 'ones', 'create'), ('op', 'add', 'inplace'), ('bump', 'add', '')]
>>> il.hooks.unsubscribe(h)
"""
from __future__ import annotations

import itertools
import weakref
from dataclasses import dataclass, field

active = False
_subscribers: list = []
_step = itertools.count(1)
_seen: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # counter -> last version seen

EVENT_KINDS = ("alloc", "free", "op", "bump", "save", "node", "accumulate", "check", "error")


@dataclass
class Event:
    """One thing that happened: ``event`` says which (see ``EVENT_KINDS``)."""

    event: str
    step: int
    op: str = ""
    kind: str = ""  # for ops: normal | view | inplace | out | create | alias
    inputs: list = field(default_factory=list)  # live tensors involved
    outputs: list = field(default_factory=list)
    data: dict = field(default_factory=dict)  # plain values (ints, strings) only
    obj: object = None  # the live object the event is about (node, error, SavedTensor)


def subscribe(callback):
    """Call ``callback(event)`` for every event from now on; returns a handle for unsubscribe."""
    global active
    _subscribers.append(callback)
    active = True
    _sync_memory()
    return callback


def unsubscribe(handle) -> None:
    """Stop calling ``handle``; when nobody listens any more the core stops building events."""
    global active
    if handle in _subscribers:
        _subscribers.remove(handle)
    active = bool(_subscribers)
    _sync_memory()


def _sync_memory():
    from . import memory

    if active and _on_memory not in memory._listeners:
        memory._listeners.append(_on_memory)
    elif not active and _on_memory in memory._listeners:
        memory._listeners.remove(_on_memory)


def _on_memory(what, storage_id, dev, nbytes):
    emit(Event(what, next(_step), data={"storage": storage_id, "device": dev, "nbytes": nbytes}))


def emit(ev: Event) -> None:
    for cb in list(_subscribers):
        cb(ev)


# ---- one function per event kind: the core calls these under ``if hooks.active:`` ----------

def emit_op(spec, kind, ins, out) -> None:
    """An op ran; an in-place or ``out=`` op is followed by the ``bump`` it caused."""
    from .tensor import Tensor

    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    emit(Event("op", next(_step), op=spec.name, kind=kind,
               inputs=[x for x in _flat(ins) if isinstance(x, Tensor)], outputs=outs))
    if kind in ("inplace", "out"):
        t = outs[0]
        after = t._vc.version
        # every in-place and out= path bumps by exactly one; resize_ only on a shape change
        before = _seen.get(t._vc, after - 1) if spec.name == "resize" else after - 1
        if before != after:
            emit(Event("bump", next(_step), op=spec.name, outputs=[t],
                       data={"before": before, "after": after}))
    for t in outs:
        _seen[t._vc] = t._vc.version


def emit_create(name: str, t) -> None:
    """A factory (``zeros``, ``tensor``, ``arange``...) made a new tensor."""
    _seen[t._vc] = t._vc.version
    emit(Event("op", next(_step), op=name, kind="create", outputs=[t]))


def emit_save(saved, t) -> None:
    """A node saved ``t`` for backward and recorded its version."""
    emit(Event("save", next(_step), op=saved.node_name, inputs=[t], obj=saved,
               data={"node": saved.node_name, "name": saved.name, "version": saved.version,
                     "is_output": saved.is_output, "saved": id(saved)}))


def emit_check(saved, found: int, passed, node=None) -> None:
    """Backward read a saved tensor: its recorded version against the current one."""
    t = saved._tensor
    emit(Event("check", next(_step), op=saved.node_name, inputs=[t] if t is not None else [],
               obj=saved, data={"node": saved.node_name, "name": saved.name,
                                "expected": saved.version, "found": found, "passed": passed,
                                "saved": id(saved)}))


def emit_node(node) -> None:
    """Backward is about to run ``node``."""
    emit(Event("node", next(_step), op=node.name(), obj=node,
               data={"node": node.name(), "seq": getattr(node, "seq", -1)}))


def emit_accumulate(leaf, grad) -> None:
    """A gradient was accumulated into ``leaf.grad``."""
    ins = [leaf] + ([leaf._grad] if leaf._grad is not None else [])
    emit(Event("accumulate", next(_step), op="AccumulateGrad", inputs=ins,
               data={"grad_version": leaf._grad._vc.version if leaf._grad is not None else 0}))


def emit_error(err) -> None:
    """An inplace_lab error is being raised (before any data was touched)."""
    emit(Event("error", next(_step), op=getattr(err, "op", "") or "", kind=type(err).__name__,
               obj=err, data={"type": type(err).__name__, "message": str(err)}))


def _flat(xs):
    for x in xs:
        if isinstance(x, (list, tuple)):
            yield from x
        else:
            yield x

