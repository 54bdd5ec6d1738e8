"""Trace: record a program as an ordered list of steps, for the renderers and for exercises.

    with inplace_lab.trace() as tr:
        x = il.ones(2, 3)
        v = x.t()
        v.mul_(2)
    tr.steps[-1].op            # 'mul'
    tr.to_json()               # for exercises and bug reports

Each step keeps the event, the source line that caused it, a snapshot of the tensors
involved (shape, strides, offset, storage id, version, requires_grad, grad_fn name, a
label taken from the caller's variable names) and the live bytes per device. An
inplace_lab error raised inside the block becomes the last step, then propagates.
"""
from __future__ import annotations

import json
import linecache
import os
import sys
import weakref
from dataclasses import asdict, dataclass, field

from . import hooks, memory
from .errors import InplaceLabError

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
STORAGE_VALUES_LIMIT = 64  # storages up to this many elements keep their values in snapshots


@dataclass
class TensorSnapshot:
    label: str
    tid: int
    shape: tuple
    strides: tuple
    offset: int
    storage_id: int
    storage_size: int
    dtype: str
    device: str
    version: int
    requires_grad: bool
    is_leaf: bool
    grad_fn: str
    base: int | None  # tid of the root base, for views


@dataclass
class Step:
    index: int
    event: str
    op: str = ""
    kind: str = ""
    line: str = ""
    lineno: int = 0
    filename: str = ""
    inputs: list = field(default_factory=list)  # TensorSnapshot
    outputs: list = field(default_factory=list)
    memory: dict = field(default_factory=dict)  # device -> live bytes
    storages: dict = field(default_factory=dict)  # storage id -> {"size", "dtype", "values"}
    data: dict = field(default_factory=dict)


class Trace:
    """Context manager that records every event of the block into ``steps``."""

    def __init__(self, namespace: dict | None = None):
        self.steps: list[Step] = []
        self._ids: dict[int, tuple] = {}  # id(tensor) -> (weakref, tid); tensors' == is elementwise
        self._busy = False
        self._labels: dict[int, str] = {}
        self._next = 1
        self.namespace = namespace
        self.error: BaseException | None = None

    # -- recording ----------------------------------------------------------------------------
    def __enter__(self):
        self._handle = hooks.subscribe(self._on_event)
        return self

    def __exit__(self, et, ev, tb):
        hooks.unsubscribe(self._handle)
        if isinstance(ev, InplaceLabError):
            self.error = ev
            self._add(Step(len(self.steps), "error", op=ev.info.get("op", "") or "",
                           kind=type(ev).__name__, data={"message": str(ev)},
                           inputs=[self._snap(t) for t in _tensors_in(ev.info)],
                           **_where(tb_frame=tb)))
        self._name_from(sys._getframe(1))
        self._relabel()
        return False

    def _name_from(self, frame) -> None:
        """Names bound when the block ends (a result is named only after its step returned)."""
        scopes = [frame.f_locals] + ([self.namespace] if self.namespace is not None else [])
        for scope in scopes:
            for k, v in list(scope.items()):
                hit = self._ids.get(id(v))
                if hit is not None and hit[0]() is v and not k.startswith("_"):
                    self._labels.setdefault(hit[1], k)

    def _relabel(self) -> None:
        for step in self.steps:
            for snap in step.inputs + step.outputs:
                if snap.label == f"t{snap.tid}" and snap.tid in self._labels:
                    snap.label = self._labels[snap.tid]

    def _tid(self, t) -> int:
        hit = self._ids.get(id(t))
        if hit is not None and hit[0]() is t:
            return hit[1]
        tid = self._next
        self._next += 1
        self._ids[id(t)] = (weakref.ref(t), tid)
        return tid

    def _label(self, t, frame) -> str:
        tid = self._tid(t)
        name = _name_in_frames(t, frame, self.namespace)
        if name:
            self._labels[tid] = name
        return self._labels.get(tid) or t.name or f"t{tid}"

    def _snap(self, t, frame=None) -> TensorSnapshot:
        gf = t._grad_fn
        base = t._base
        return TensorSnapshot(
            label=self._label(t, frame), tid=self._tid(t), shape=tuple(t._shape),
            strides=tuple(t._strides), offset=t._offset, storage_id=t._storage.id,
            storage_size=t._storage.size(), dtype=t.dtype.name, device=str(t.device),
            version=t._vc.version, requires_grad=t._requires_grad, is_leaf=t.is_leaf,
            grad_fn=gf.name() if gf is not None else "",
            base=self._tid(base) if base is not None else None)

    def _add(self, step: Step) -> None:
        step.index = len(self.steps)
        step.memory = {k: v for k, v in memory._allocated.items()}
        self.steps.append(step)

    def _on_event(self, ev: hooks.Event) -> None:
        if self._busy:  # events caused by recording itself are not part of the program
            return
        self._busy = True
        try:
            self._record(ev)
        finally:
            self._busy = False

    def _record(self, ev: hooks.Event) -> None:
        frame = _user_frame()
        where = _where(frame=frame)
        ins = [self._snap(t, frame) for t in ev.inputs]
        outs = [self._snap(t, frame) for t in ev.outputs]
        storages = {}
        for t in list(ev.inputs) + list(ev.outputs):
            st = t._storage
            if st.id not in storages:
                storages[st.id] = _storage_snapshot(st)
            if storages[st.id]["values"] is None or isinstance(storages[st.id]["values"], dict):
                storages[st.id]["values"] = _sampled_values(st, t, storages[st.id]["values"])
        self._add(Step(0, ev.event, op=ev.op, kind=ev.kind, inputs=ins, outputs=outs,
                       storages=storages, data=dict(ev.data), **where))

    # -- reading ------------------------------------------------------------------------------
    def ops(self):
        return [s for s in self.steps if s.event == "op"]

    def to_dict(self) -> dict:
        return {"steps": [_jsonable(asdict(s)) for s in self.steps]}

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, text: str) -> "Trace":
        tr = cls()
        for d in json.loads(text)["steps"]:
            d["inputs"] = [TensorSnapshot(**_untuple(x)) for x in d["inputs"]]
            d["outputs"] = [TensorSnapshot(**_untuple(x)) for x in d["outputs"]]
            d["storages"] = {int(k): v for k, v in d["storages"].items()}
            tr.steps.append(Step(**d))
        return tr


def trace(namespace: dict | None = None) -> Trace:
    """``with inplace_lab.trace() as tr:`` records the block (pass a notebook's namespace for names)."""
    return Trace(namespace)


# ---- helpers -------------------------------------------------------------------------------

def _user_frame():
    f = sys._getframe(1)
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PKG_DIR):
        f = f.f_back
    return f


def _where(frame=None, tb_frame=None):
    if tb_frame is not None:
        tb = tb_frame
        frame = None
        while tb is not None:  # the innermost traceback entry outside the package
            if not os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(_PKG_DIR):
                frame = tb.tb_frame
                lineno = tb.tb_lineno
            tb = tb.tb_next
        if frame is None:
            return {}
        fn = frame.f_code.co_filename
        return {"filename": fn, "lineno": lineno, "line": linecache.getline(fn, lineno).strip()}
    if frame is None:
        return {}
    fn = frame.f_code.co_filename
    return {"filename": fn, "lineno": frame.f_lineno,
            "line": linecache.getline(fn, frame.f_lineno).strip()}


def _name_in_frames(t, frame, namespace):
    f = frame
    depth = 0
    while f is not None and depth < 4:
        for k, v in f.f_locals.items():
            if v is t and not k.startswith("_"):
                return k
        f = f.f_back
        depth += 1
    if namespace is not None:
        for k, v in namespace.items():
            if v is t and not k.startswith("_"):
                return k
    return None


def _storage_snapshot(st) -> dict:
    from . import backend

    n = st.size()
    snap = {"size": n, "dtype": st.dtype.name, "device": str(st.device), "nbytes": st.nbytes(),
            "values": None}
    if n <= STORAGE_VALUES_LIMIT:
        snap["values"] = backend.to_numpy(st.data).tolist()
    return snap


def _sampled_values(st, t, have) -> dict:
    """Values of a large storage at the cells a picture of ``t`` would show."""
    from .viz.model import sample_positions, values_at

    pos, _ = sample_positions(t._shape, t._strides, t._offset)
    out = dict(have or {})
    out.update(values_at(st, list(range(8)) + list(range(st.size() - 4, st.size())) + pos[:16] + pos[-4:]))
    return out


def _tensors_in(info: dict):
    from .tensor import Tensor

    return [v for v in info.values() if isinstance(v, Tensor)]


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return repr(x)


def _untuple(d: dict) -> dict:
    for k in ("shape", "strides"):
        d[k] = tuple(d[k])
    return d
