"""``inplace_lab.inspect(*tensors)``: an Inspector that keeps up with later cells.

    x = il.arange(6.).reshape(2, 3)
    il.inspect(x)            # shows x's storage now
    # ... a later cell:
    v = x.t(); v.mul_(2)     # the inspector above redraws: a new view, a version bump

It listens on ``inplace_lab.hooks`` for events that touch the storages of the given
tensors (new views of them share those storages, so they count too; gradients
accumulated into them are watched from then on) and records only those, as a
growing trace. The widget redraws at most once per ``debounce`` seconds, after the
running cell yields to the kernel's event loop, so a loop of ten thousand in-place
ops costs one redraw. At the latest step the Storage and Graph tabs show the
tensors as they are now; earlier steps show them as they were. ``close()`` stops
listening.
"""
from __future__ import annotations

import asyncio
import sys
import time
import weakref

from .. import hooks
from ..trace import Trace
from . import pictures
from .inspector import Inspector

MAX_STEPS = 5000  # older steps are dropped beyond this, so a long session stays small


class WatchTrace(Trace):
    """A trace that records only the events touching some storages (and stays open).

    It is a recorder (``hooks.attach``) like ``Trace``: each event's raw arguments are
    tested against the watched storages first, and only the events that touch them are
    recorded (as cheap tuples; steps are built when read).
    """

    # an alloc is walked at once: the next event this trace keeps may come much later
    _defer_allocs = False
    # Trace.on_op/on_memory run under this class's methods: their callers are one frame further
    _op_depth = 3
    _memory_depth = 3

    def __init__(self, tensors, namespace):
        super().__init__(namespace=namespace)
        self.storages = {t._storage.id for t in tensors}
        self.on_change = None

    def touches(self, ev) -> bool:
        if ev.data.get("storage") in self.storages:
            return True
        return self._touches(ev.inputs) or self._touches(ev.outputs)

    def _touches(self, tensors) -> bool:
        watched = self.storages
        for t in tensors:
            st = getattr(t, "_storage", None)
            if st is not None and st.id in watched:
                return True
        return False

    def _after(self) -> None:
        if self._count() > MAX_STEPS:  # (_count: without building the recorded steps)
            del self.steps[: len(self.steps) - MAX_STEPS]
            for k, s in enumerate(self.steps):
                s.index = k
        if self.on_change is not None:
            self.on_change()

    # the recorder protocol, filtered
    def on_op(self, name, kind, inputs, outputs, before, after) -> None:
        if self._busy or not (self._touches(outputs) or self._touches(inputs)):
            return
        if before is not None and not self._touches(outputs[:1]):
            before = after = None  # the bump is about a tensor not watched
        super().on_op(name, kind, inputs, outputs, before, after)
        self._after()

    def on_memory(self, what, storage_id, dev, nbytes) -> None:
        if self._busy or storage_id not in self.storages:
            return
        super().on_memory(what, storage_id, dev, nbytes)
        self._after()

    def on_save(self, saved, t) -> None:
        if self._busy or not self._touches((t,)):
            return
        super().on_save(saved, t)
        self._after()

    def on_event(self, event, op, kind, inputs, outputs, data, obj) -> None:
        if self._busy or not (data.get("storage") in self.storages or self._touches(inputs) or
                              self._touches(outputs)):
            return
        if event == "accumulate" and len(inputs) > 1:
            self.storages.add(inputs[1]._storage.id)  # the gradient, from now on
        super().on_event(event, op, kind, inputs, outputs, data, obj)
        self._after()

    def _on_event(self, ev) -> None:
        if self._busy or not self.touches(ev):
            return
        if ev.event == "accumulate" and len(ev.inputs) > 1:
            self.storages.add(ev.inputs[1]._storage.id)  # the gradient, from now on
        super()._on_event(ev)
        self._after()


class LiveInspector(Inspector):
    """The Inspector of a growing ``WatchTrace``; follows the newest step unless the
    student has moved the slider back."""

    def __init__(self, tensors, names=None, namespace=None, debounce: float = 0.15, **kw):
        self._refs = [weakref.ref(t) for t in tensors]
        self._names = list(names) if names else [None] * len(tensors)
        self.debounce = debounce
        self._pending = False
        self._last = 0.0
        self.generation = 0
        self.refresh_count = 0
        tr = WatchTrace(tensors, namespace)
        for t, n in zip(tensors, self._names):
            if n:
                tr._labels[tr._tid(t)] = n  # the names the student gave win
        super().__init__(tr, title=kw.pop("title", "") or "live: " + ", ".join(self.labels()), **kw)
        tr.on_change = self._schedule
        self._last = time.monotonic()  # drawn just now (the first redraw waits ``debounce``)
        self._handle = hooks.attach(tr)

    def tensors(self) -> list:
        return [t for t in (r() for r in self._refs) if t is not None]

    def labels(self) -> list:
        return [n or f"t{i}" for i, n in enumerate(self._names)]

    # -- keeping up ------------------------------------------------------------------------
    def _schedule(self) -> None:
        if self._pending:
            return
        self._pending = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:  # in a kernel: after the running cell yields
            loop.call_later(self.debounce, self.flush)
        elif time.monotonic() - self._last >= self.debounce:  # a plain script: throttled
            self.flush()

    def flush(self) -> None:
        """Redraw now for everything recorded so far (tests and scripts call this)."""
        self._pending = False
        self._last = time.monotonic()
        self.refresh_count += 1
        self.generation += 1
        follow = self.step >= self.slider.max
        self.refresh_range()
        if follow:
            self.step = max(len(self.trace.steps) - 1, 0)
        self._show_step()

    def close(self) -> None:
        if sys.meta_path is not None:  # not while the interpreter is shutting down
            hooks.detach(self._handle)
        super().close()

    # -- the newest step is "now": live tensors --------------------------------------------
    def _is_now(self, i: int) -> bool:
        return i >= len(self.trace.steps) - 1

    def _key(self, kind: str, i: int) -> tuple:
        if kind in ("storage", "graph") and self._is_now(i):
            return (kind, "now", self.generation)
        return super()._key(kind, i)

    def _draw(self, kind: str, i: int):
        from .. import viz

        if not (kind in ("storage", "graph") and self._is_now(i)):
            return super()._draw(kind, i)
        ts = self.tensors()
        if not ts:
            return pictures._message("the inspected tensors no longer exist")
        names = self._live_names(ts)
        if kind == "storage":
            return self._storage_now(ts, names)
        grads = [t for t in ts if t.requires_grad]
        if not grads:
            return pictures._message("no autograd graph: none of these tensors requires grad")
        return viz.graph(grads, names=names)

    def _live_names(self, ts) -> dict:
        labels = dict(zip((id(r()) for r in self._refs), self.labels()))
        return {t: labels.get(id(t), "?") for t in ts}

    def _storage_now(self, ts, names):
        """The storage diagram of the live tensors, with the cells the newest write changed
        (known from its snapshot: the view written through is often a temporary, gone now)."""
        from ..viz.model import from_tensors, sample_positions
        from ..viz.storage import render
        from ..viz.svg import Picture

        models = from_tensors(ts, {id(t): names[t] for t in ts})
        written = self._last_written()
        for sm in models:
            if written is not None and sm.sid == written.storage_id:
                sm.changed = set(sample_positions(written.shape, written.strides, written.offset)[0])
        return Picture(render(models), "storage", models)

    def _last_written(self):
        """The snapshot of the tensor the newest step wrote in place, if it did."""
        if not self.trace.steps:
            return None
        step = self.trace.steps[-1]
        if step.event == "bump" or (step.event == "op" and step.kind in ("inplace", "out")):
            return step.outputs[0] if step.outputs else None
        return None


def inspect(*tensors, names=None, debounce: float = 0.15) -> LiveInspector:
    """A live Inspector of ``tensors`` that redraws as later code changes them.

    ``names``: labels (default: the variable names in the calling code or notebook).
    """
    if not tensors:
        raise TypeError("inspect() needs at least one tensor, e.g. inplace_lab.inspect(x)")
    from ..tensor import Tensor

    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"inspect(): expected inplace_lab tensors, got {type(t).__name__}")
    frame = sys._getframe(1)
    namespace = _user_namespace(frame)
    if names is None:
        names = [_find_name(t, frame, namespace) for t in tensors]
    return LiveInspector(tensors, names=names, namespace=namespace, debounce=debounce)


def _user_namespace(frame):
    try:
        from IPython import get_ipython

        ip = get_ipython()
    except ImportError:
        ip = None
    return ip.user_ns if ip is not None else frame.f_globals


def _find_name(t, frame, namespace, depth: int = 3):
    """The variable naming ``t`` in the caller (or a few frames up), else the notebook's."""
    scopes = []
    f = frame
    while f is not None and len(scopes) < depth:
        scopes.append(f.f_locals)
        f = f.f_back
    for scope in scopes + [namespace or {}]:
        for k, v in list(scope.items()):
            if v is t and not k.startswith("_"):
                return k
    return t.name or None
