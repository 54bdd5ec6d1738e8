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

Recorders. ``subscribe`` builds an ``Event`` per event for each plain callback. The trace
recorder and the live Inspector instead ``attach`` a *recorder*: an object whose methods
receive the raw arguments (no ``Event`` is built for them), which keeps recording cheap:

- ``on_op(name, kind, inputs, outputs, before, after)``: an op; ``before``/``after`` are
  the version bump it caused (``None`` when it caused none);
- ``on_memory(what, storage_id, device, nbytes)``: ``alloc``/``free``, called by
  ``memory`` directly (the recorder's method sits in ``memory._listeners``);
- ``on_save(saved, tensor)``: a node saved a tensor;
- ``on_event(event, op, kind, inputs, outputs, data, obj)``: the other kinds (``node``,
  ``check``, ``accumulate``, ``error``), with the same fields an ``Event`` would carry.
"""
from __future__ import annotations

import itertools
import weakref

active = False
_subscribers: list = []
_calls: tuple = ()  # the subscribers as of the last (un)subscribe: emit iterates this, no copy
_recorders: tuple = ()  # attached recorders (raw-argument protocol, see the module docstring)
_step = itertools.count(1)
# id(VersionCounter) -> (weakref, last version an event showed); only resize_ reads it.
# A plain dict of basic weakrefs (CPython reuses one per counter) instead of a
# WeakKeyDictionary, whose every store made a new callback weakref.
_seen: dict = {}
_seen_prune = [1024]  # drop entries of dead counters when the dict grows past this
_wref = weakref.ref

EVENT_KINDS = ("alloc", "free", "op", "bump", "save", "node", "accumulate", "check", "error")


class Event:
    """One thing that happened: ``event`` says which (see ``EVENT_KINDS``).

    A slotted class, not a dataclass: one is built per event while somebody listens, and
    a dataclass's ``default_factory`` fields made that a measurable part of recording.
    """

    __slots__ = ("event", "step", "op", "kind", "inputs", "outputs", "data", "obj")

    def __init__(self, event: str, step: int, op: str = "", kind: str = "", inputs=None,
                 outputs=None, data=None, obj=None):
        self.event = event
        self.step = step
        self.op = op
        self.kind = kind  # for ops: normal | view | inplace | out | create | alias
        self.inputs = [] if inputs is None else inputs  # live tensors involved
        self.outputs = [] if outputs is None else outputs
        self.data = {} if data is None else data  # plain values (ints, strings) only
        self.obj = obj  # the live object the event is about (node, error, SavedTensor)

    def __repr__(self) -> str:
        return (f"Event(event={self.event!r}, step={self.step}, op={self.op!r}, kind={self.kind!r}, "
                f"inputs={self.inputs!r}, outputs={self.outputs!r}, data={self.data!r}, "
                f"obj={self.obj!r})")

    def __eq__(self, other):
        if type(other) is not Event:
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in Event.__slots__)

    __hash__ = None


def subscribe(callback):
    """Call ``callback(event)`` for every event from now on; returns a handle for unsubscribe."""
    global _calls
    _subscribers.append(callback)
    _calls = tuple(_subscribers)
    _changed()
    return callback


def unsubscribe(handle) -> None:
    """Stop calling ``handle``; when nobody listens any more the core stops building events."""
    global _calls
    if handle in _subscribers:
        _subscribers.remove(handle)
    _calls = tuple(_subscribers)
    _changed()


def attach(recorder):
    """Hand every event from now on to ``recorder``'s methods, as raw arguments (see the
    module docstring); returns it as the handle for ``detach``."""
    global _recorders
    if recorder not in _recorders:
        _recorders = _recorders + (recorder,)
        from . import memory

        memory._listeners.append(recorder.on_memory)
    _changed()
    return recorder


def detach(recorder) -> None:
    """Stop handing events to ``recorder``."""
    global _recorders
    if recorder in _recorders:
        _recorders = tuple(r for r in _recorders if r is not recorder)
        from . import memory

        cb = recorder.on_memory
        for i, have in enumerate(memory._listeners):
            if have == cb:
                del memory._listeners[i]
                break
    _changed()


def _changed() -> None:
    global active
    active = bool(_subscribers) or bool(_recorders)
    if not active:
        _seen.clear()
    _sync_memory()


def _sync_memory():
    from . import memory

    if _calls and _on_memory not in memory._listeners:
        memory._listeners.append(_on_memory)
    elif not _calls and _on_memory in memory._listeners:
        memory._listeners.remove(_on_memory)


def _on_memory(what, storage_id, dev, nbytes):
    ev = Event(what, next(_step), data={"storage": storage_id, "device": dev, "nbytes": nbytes})
    for cb in _calls:
        cb(ev)


def emit(ev: Event) -> None:
    for cb in _calls:
        cb(ev)


def _mark(vc) -> None:
    """Remember the version an event showed for this counter (for resize_'s bump)."""
    _seen[id(vc)] = (_wref(vc), vc.version)
    if len(_seen) > _seen_prune[0]:
        _prune_seen()


def _prune_seen() -> None:
    for k in [k for k, (r, _) in _seen.items() if r() is None]:
        del _seen[k]
    _seen_prune[0] = max(1024, 2 * len(_seen))


def _seen_version(vc, default: int) -> int:
    hit = _seen.get(id(vc))
    return hit[1] if hit is not None and hit[0]() is vc else default


# ---- one function per event kind: the core calls these under ``if hooks.active:`` ----------

def emit_op(spec, kind, ins, out) -> None:
    """An op ran; an in-place or ``out=`` op is followed by the ``bump`` it caused."""
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    inputs = []
    for x in ins:
        if isinstance(x, _Tensor):
            inputs.append(x)
        elif isinstance(x, (list, tuple)):
            inputs.extend(y for y in x if isinstance(y, _Tensor))
    name = spec.name
    before = after = None
    if kind == "inplace" or kind == "out":
        t = outs[0]
        after = t._vc.version
        # every in-place and out= path bumps by exactly one; resize_ only on a shape change
        before = _seen_version(t._vc, after - 1) if name == "resize" else after - 1
        if before == after:
            before = after = None
    for r in _recorders:
        r.on_op(name, kind, inputs, outs, before, after)
    if _calls:
        ev = Event("op", next(_step), name, kind, inputs, outs)
        for cb in _calls:
            cb(ev)
        if before is not None:
            emit(Event("bump", next(_step), name, "", None, [outs[0]],
                       {"before": before, "after": after}))
    seen = _seen
    for t in outs:  # (_mark, written out: once per op result)
        vc = t._vc
        seen[id(vc)] = (_wref(vc), vc.version)
    if len(seen) > _seen_prune[0]:
        _prune_seen()


def emit_create(name: str, t) -> None:
    """A factory (``zeros``, ``tensor``, ``arange``...) made a new tensor."""
    _mark(t._vc)
    outs = [t]
    for r in _recorders:
        r.on_op(name, "create", [], outs, None, None)
    if _calls:
        emit(Event("op", next(_step), name, "create", None, outs))


def _emit(event, op, kind, inputs, outputs, data, obj) -> None:
    for r in _recorders:
        r.on_event(event, op, kind, inputs, outputs, data, obj)
    if _calls:
        emit(Event(event, next(_step), op, kind, inputs, outputs, data, obj))


def emit_save(saved, t) -> None:
    """A node saved ``t`` for backward and recorded its version."""
    for r in _recorders:
        r.on_save(saved, t)
    if _calls:
        emit(Event("save", next(_step), op=saved.node_name, inputs=[t], obj=saved,
                   data=save_data(saved)))


def save_data(saved) -> dict:
    """The ``data`` of a ``save`` event."""
    return {"node": saved.node_name, "name": saved.name, "version": saved.version,
            "is_output": saved.is_output, "saved": id(saved)}


def emit_check(saved, found: int, passed, node=None) -> None:
    """Backward read a saved tensor: its recorded version against the current one."""
    t = saved._tensor
    _emit("check", saved.node_name, "", [t] if t is not None else [], [],
          {"node": saved.node_name, "name": saved.name, "expected": saved.version,
           "found": found, "passed": passed, "saved": id(saved)}, saved)


def emit_node(node) -> None:
    """Backward is about to run ``node``."""
    name = node.name()
    _emit("node", name, "", [], [], {"node": name, "seq": getattr(node, "seq", -1)}, node)


def emit_accumulate(leaf, grad) -> None:
    """A gradient was accumulated into ``leaf.grad``."""
    ins = [leaf] + ([leaf._grad] if leaf._grad is not None else [])
    _emit("accumulate", "AccumulateGrad", "", ins, [],
          {"grad_version": leaf._grad._vc.version if leaf._grad is not None else 0}, None)


def emit_error(err) -> None:
    """An inplace_lab error is being raised (before any data was touched)."""
    name = type(err).__name__
    _emit("error", getattr(err, "op", "") or "", name, [], [],
          {"type": name, "message": str(err)}, err)


def _flat(xs):
    for x in xs:
        if isinstance(x, (list, tuple)):
            yield from x
        else:
            yield x



from .tensor import Tensor as _Tensor  # noqa: E402  (tensor.py imports this module first)
