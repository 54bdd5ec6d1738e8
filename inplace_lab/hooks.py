"""The event bus the core emits into (near-zero cost when nobody listens).

The dispatcher checks the module-level flag ``active`` before building an
event, so a program with no listener pays one attribute read per op.

>>> import inplace_lab as il
>>> seen = []
>>> h = il.hooks.subscribe(seen.append)
>>> _ = il.ones(2).add_(1)
>>> seen[-1].op, seen[-1].kind
('add', 'inplace')
>>> il.hooks.unsubscribe(h)
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

active = False
_subscribers: list = []
_step = itertools.count(1)


@dataclass
class Event:
    """One thing that happened: ``kind`` tells which (see ``EVENT_KINDS``)."""

    event: str  # "op", "alloc", "free", "bump", "save", "node", "accumulate", "check", "error"
    step: int
    op: str = ""
    kind: str = ""  # for ops: normal | view | inplace | out | alias
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    data: dict = field(default_factory=dict)


def subscribe(callback):
    """Call ``callback(event)`` for every event from now on; returns a handle for unsubscribe."""
    global active
    _subscribers.append(callback)
    active = True
    _sync_memory()
    return callback


def unsubscribe(handle) -> None:
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


def emit_op(spec, kind, ins, out) -> None:
    from .tensor import Tensor

    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    emit(Event("op", next(_step), op=spec.name, kind=kind,
               inputs=[x for x in ins if isinstance(x, Tensor)], outputs=outs))


def emit_event(name: str, **data) -> None:
    emit(Event(name, next(_step), op=data.pop("op", ""), data=data))
