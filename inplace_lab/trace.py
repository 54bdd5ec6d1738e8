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

import inspect
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
    counter: int = 0  # which version counter (a view shares its base's; renderers group by it)
    name: str = ""  # the tensor's own ``name`` (Paddle-style), if any
    base_label: str = ""  # label of the root base, for views


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
    backward: bool = False  # happened inside backward() (node runs, checks, gradient maths)
    context: list = field(default_factory=list)  # TensorSnapshot of the bases of views involved


class Trace:
    """Context manager that records every event of the block into ``steps``.

    ``namespace``: where to look for variable names besides the calling frames
    (defaults to the globals of the code that created the trace, which in a
    notebook is the notebook's namespace).
    """

    def __init__(self, namespace: dict | None = None):
        self.steps: list[Step] = []
        self._ids: dict[int, tuple] = {}  # id(tensor) -> (weakref, tid); tensors' == is elementwise
        self._counters: dict[int, tuple] = {}  # id(VersionCounter) -> (weakref, small id)
        self._saved: dict[int, int] = {}  # id(SavedTensor) -> small id (save and check events)
        self._errors: dict[int, int] = {}  # id(error) -> index of its step
        self._busy = False
        self._pending: list = []  # (weakref, tid) of results not named yet
        self._labels: dict[int, str] = {}
        self._next = 1
        if namespace is None:
            f = _user_frame()
            namespace = f.f_globals if f is not None else None
        self.namespace = namespace
        self.error: BaseException | None = None
        self.start_memory: dict = {}

    # -- recording ----------------------------------------------------------------------------
    def __enter__(self):
        self.start_memory = dict(memory._allocated)  # live bytes per device when it began
        self._handle = hooks.subscribe(self._on_event)
        return self

    def __exit__(self, et, ev, tb):
        hooks.unsubscribe(self._handle)
        if isinstance(ev, InplaceLabError):
            self.error = ev
            ev.trace = self  # the error now carries everything needed to explain it
            idx = self._errors.get(id(ev))
            step = self.steps.pop(idx) if idx is not None else Step(
                0, "error", op=getattr(ev, "op", "") or "", kind=type(ev).__name__,
                data={"type": type(ev).__name__, "message": str(ev)},
                inputs=[self._snap(t) for t in _tensors_in(ev.info)])
            for k, v in _where(tb_frame=tb).items():  # where it surfaced in the user's code
                setattr(step, k, v)
            self._add(step)
        self._name_from(sys._getframe(1))
        self._relabel()
        return False

    def _name_from(self, frame) -> None:
        """Names bound when the block ends (a result is named only after its step returned)."""
        scopes = [frame_locals(frame)] + ([self.namespace] if self.namespace is not None else [])
        for scope in scopes:
            for k, v in list(scope.items()):
                hit = self._ids.get(id(v))
                if hit is not None and hit[0]() is v and not k.startswith("_"):
                    self._labels.setdefault(hit[1], k)

    def _relabel(self) -> None:
        for step in self.steps:
            for snap in step.inputs + step.outputs + step.context:
                if snap.label == f"t{snap.tid}" and snap.tid in self._labels:
                    snap.label = self._labels[snap.tid]
                if snap.base is not None and _is_anon(snap.base_label) and \
                        snap.base in self._labels:
                    snap.base_label = self._labels[snap.base]

    def _tid(self, t) -> int:
        hit = self._ids.get(id(t))
        if hit is not None and hit[0]() is t:
            return hit[1]
        tid = self._next
        self._next += 1
        self._ids[id(t)] = (weakref.ref(t), tid)
        return tid

    def _counter(self, vc) -> int:
        hit = self._counters.get(id(vc))
        if hit is not None and hit[0]() is vc:
            return hit[1]
        cid = len(self._counters) + 1
        self._counters[id(vc)] = (weakref.ref(vc), cid)
        return cid

    def _label(self, t, frame) -> str:
        tid = self._tid(t)
        if tid not in self._labels:
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
            storage_size=t._storage.size(), dtype=t._dtype.name, device=str(t.device),
            version=t._vc.version, requires_grad=t._requires_grad, is_leaf=t.is_leaf,
            grad_fn=gf.name() if gf is not None else "",
            base=self._tid(base) if base is not None else None,
            counter=self._counter(t._vc), name=t.name or "",
            base_label=self._label(base, frame) if base is not None else "")

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
        frame, in_backward = _user_frame(report_backward=True)
        where = _where(frame=frame)
        if self._pending:  # results of the previous step: their assignment has happened now
            self._name_pending(frame)
        if ev.event == "accumulate" and len(ev.inputs) > 1:  # name the gradient after its leaf
            leaf_label = self._label(ev.inputs[0], frame)
            self._labels.setdefault(self._tid(ev.inputs[1]), f"{leaf_label}.grad")
        ins = [self._snap(t, frame) for t in ev.inputs]
        outs = [self._snap(t, frame) for t in ev.outputs]
        if ev.event == "error":
            ins = [self._snap(t, frame) for t in _tensors_in(ev.obj.info)]
        involved = {id(t) for t in list(ev.inputs) + list(ev.outputs)}
        bases = {id(t._base): t._base for t in list(ev.inputs) + list(ev.outputs)
                 if t._base is not None and id(t._base) not in involved}
        context = [self._snap(b, frame) for b in bases.values()]
        storages = {}
        for t in list(ev.inputs) + list(ev.outputs) + list(bases.values()):
            st = t._storage
            if st.id not in storages:
                storages[st.id] = _storage_snapshot(st)
            if storages[st.id]["values"] is None or isinstance(storages[st.id]["values"], dict):
                storages[st.id]["values"] = _sampled_values(st, t, storages[st.id]["values"])
        data = dict(ev.data)
        if "saved" in data:  # a small stable id joins a save to its check
            data["saved"] = self._saved.setdefault(data["saved"], len(self._saved) + 1)
        if ev.event == "bump" and ev.outputs:
            data["counter"] = self._counter(ev.outputs[0]._vc)
        if ev.event == "error":
            self._errors[id(ev.obj)] = len(self.steps)
        self._add(Step(0, ev.event, op=ev.op, kind=ev.kind, inputs=ins, outputs=outs,
                       storages=storages, data=data, backward=in_backward, context=context,
                       **where))
        self._pending = [(weakref.ref(t), snap.tid) for t, snap in zip(ev.outputs, outs)
                         if _is_anon(snap.label)]

    def _name_pending(self, frame) -> None:
        want = {}
        for ref, tid in self._pending:
            t = ref()
            if t is not None and tid not in self._labels:
                want[id(t)] = tid
        self._pending = []
        if not want:
            return
        f, depth = frame, 0
        scopes = []
        while f is not None and depth < 4:
            scopes.append(frame_locals(f))
            f, depth = f.f_back, depth + 1
        if self.namespace is not None:
            scopes.append(self.namespace)
        for scope in scopes:
            for k, v in list(scope.items()):
                tid = want.get(id(v))
                if tid is not None and not k.startswith("_"):
                    self._labels.setdefault(tid, k)

    # -- reading ------------------------------------------------------------------------------
    def ops(self):
        """The op steps (normal, view, inplace, out, create), in program order."""
        return [s for s in self.steps if s.event == "op"]

    def of(self, event: str):
        """The steps of one event kind (``"bump"``, ``"save"``, ``"check"``...)."""
        return [s for s in self.steps if s.event == event]

    def labels_by_counter(self) -> dict:
        """counter id -> labels of every tensor seen sharing that version counter."""
        out: dict[int, list] = {}
        for step in self.steps:
            for snap in step.inputs + step.outputs:
                names = out.setdefault(snap.counter, [])
                if snap.label not in names:
                    names.append(snap.label)
        for k, names in out.items():  # unnamed aliases (t7) only when nothing better is known
            named = [n for n in names if not _is_anon(n)]
            out[k] = named or names
        return out

    def to_dict(self) -> dict:
        return {"start_memory": dict(self.start_memory),
                "steps": [_jsonable(asdict(s)) for s in self.steps]}

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, text: str) -> "Trace":
        tr = cls(namespace={})
        doc = json.loads(text)
        tr.start_memory = dict(doc.get("start_memory", {}))
        for d in doc["steps"]:
            d["inputs"] = [TensorSnapshot(**_untuple(x)) for x in d["inputs"]]
            d["outputs"] = [TensorSnapshot(**_untuple(x)) for x in d["outputs"]]
            d["context"] = [TensorSnapshot(**_untuple(x)) for x in d.get("context", [])]
            d["storages"] = {int(k): v for k, v in d["storages"].items()}
            tr.steps.append(Step(**d))
        return tr

    def __repr__(self) -> str:
        return f"<Trace: {len(self.steps)} steps, {len(self.ops())} ops>"


def trace(namespace: dict | None = None) -> Trace:
    """``with inplace_lab.trace() as tr:`` records the block (pass a notebook's namespace for names)."""
    return Trace(namespace)


# ---- helpers -------------------------------------------------------------------------------

def _user_frame(report_backward: bool = False):
    """The innermost frame outside the package (the user's line); optionally whether an
    autograd backward walk is on the way there."""
    f = sys._getframe(1)
    in_backward = False
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        if f.f_code.co_name == "run_backward":
            in_backward = True
        f = f.f_back
    return (f, in_backward) if report_backward else f


def frame_locals(frame) -> dict:
    """A copy of a frame's local variables that does not keep them alive.

    In a function, ``frame.f_locals`` is a dict cached on the frame that keeps every
    local alive until the next read; a deleted tensor would not be freed and the
    memory numbers would lie. So read it, copy it, and empty the cache (at module level
    ``f_locals`` is the globals dict itself and is left alone).
    """
    scope = frame.f_locals
    if frame.f_code.co_flags & inspect.CO_OPTIMIZED:
        copy = dict(scope)
        scope.clear()
        return copy
    return scope


def _where(frame=None, tb_frame=None):
    if tb_frame is not None:
        tb = tb_frame
        frame = None
        while tb is not None:  # the innermost traceback entry outside the package
            if not tb.tb_frame.f_code.co_filename.startswith(_PKG_DIR):
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
        for k, v in frame_locals(f).items():
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


def _is_anon(label: str) -> bool:
    return label[:1] == "t" and label[1:].isdigit()


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
