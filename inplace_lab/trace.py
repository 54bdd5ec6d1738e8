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
import sys
import weakref
from dataclasses import asdict, dataclass, field

import numpy as _np

from . import backend, hooks, memory
from .errors import InplaceLabError
from .frames import (_CODE_KIND, _PLANS, _SCAN, _caller, _code_kind, _line_of, _name_in_frames,
                     _plan, _user_frame, _where, frame_locals)
_ndarray = _np.ndarray
_CO_OPTIMIZED = inspect.CO_OPTIMIZED
_ref = weakref.ref
_allocated = memory._allocated  # live bytes per device (memory's own dict, never rebound)
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

    Recording is cheap by design (the benchmarks ask for at most 2x of an unobserved
    program): per event it keeps only what cannot be recovered later, as tuples (ids,
    versions, shape/strides/offset, storage ids, the bytes of small storages, the code
    object and line number), and ``steps`` turns those into ``Step``/``TensorSnapshot``
    objects when first read. A label is what was known *at that step*: each label
    remembers the step it was found at, so reading the steps later shows what reading
    them at once would have shown.
    """

    def __init__(self, namespace: dict | None = None):
        self._steps: list[Step] = []
        self._raw: list[tuple] = []  # recorded events not yet turned into Steps
        self._rawn = 0  # how many steps those records make (an in-place op's makes two)
        self._closed = False  # after __exit__: unnamed snapshots take the names found at the end
        # id(tensor) -> (weakref, tid, its latest raw snapshot or None, id(grad_fn) or -1):
        # the snapshot is shared by the next events while unchanged, and taken as it is while
        # the fields that decide it are (tensors' == is elementwise, hence ids)
        self._ids: dict[int, tuple] = {}
        self._counters: dict[int, tuple] = {}  # id(VersionCounter) -> (weakref, small id)
        self._saved: dict[int, int] = {}  # id(SavedTensor) -> small id (save and check events)
        # last small ids handed out: counters and saved tensors die and CPython reuses their
        # ids, so a dict's length is not a fresh number (two counters once shared an id)
        self._ncounters = 0
        self._nsaved = 0
        self._errors: dict[int, int] = {}  # id(error) -> index of its step
        self._busy = False
        self._in_backward = False  # the event being recorded comes from inside backward()
        self._pending: list = []  # (weakref, tid) of results not named yet
        self._pending_at: tuple | None = None  # (id(frame), code, naming plan) of those results
        self._last_storage: dict = {}  # storage id -> its latest raw small-storage snapshot
        # the latest copy of memory's live bytes per device, shared by the records that saw the
        # same figures (each step gets its own dict when built)
        self._mem = None
        self._allocs: list = []  # allocs not recorded yet: they take the next event's frame
        self._labels: dict[int, str] = {}
        self._label_step: dict[int, int] = {}  # tid -> step index its label was found at
        self._next = 1
        if namespace is None:
            f = _user_frame()
            namespace = f.f_globals if f is not None else None
        self.namespace = namespace
        self.error: BaseException | None = None
        self.start_memory: dict = {}

    @property
    def steps(self) -> list:
        if self._allocs:
            self._flush_allocs(*_caller(sys._getframe(1)))
        if self._raw:
            self._materialize()
        return self._steps

    @steps.setter
    def steps(self, value: list) -> None:
        self._raw = []
        self._rawn = 0
        self._steps = value

    def _count(self) -> int:
        """Number of steps recorded so far (without building them)."""
        return len(self._steps) + self._rawn + len(self._allocs)

    # -- recording ----------------------------------------------------------------------------
    def __enter__(self):
        self.start_memory = dict(memory._allocated)  # live bytes per device when it began
        self._handle = hooks.attach(self)
        return self

    def __exit__(self, et, ev, tb):
        hooks.detach(self)
        if self._allocs:
            self._flush_allocs(*_caller(sys._getframe(1)))
        if isinstance(ev, InplaceLabError):
            self.error = ev
            ev.trace = self  # the error now carries everything needed to explain it
            idx = self._errors.get(id(ev))
            steps = self.steps
            step = steps.pop(idx) if idx is not None else Step(
                0, "error", op=getattr(ev, "op", "") or "", kind=type(ev).__name__,
                data={"type": type(ev).__name__, "message": str(ev)},
                inputs=[self._build_snap(self._raw_snap(t, None, len(steps)), len(steps))
                        for t in _tensors_in(ev.info)])
            for k, v in _where(tb_frame=tb).items():  # where it surfaced in the user's code
                setattr(step, k, v)
            self._add(step)
        self._name_from(sys._getframe(1))
        self._closed = True
        self._relabel()
        return False

    def _name_from(self, frame) -> None:
        """Names bound when the block ends (a result is named only after its step returned)."""
        scopes = [frame_locals(frame)] + ([self.namespace] if self.namespace is not None else [])
        at = self._count()
        for scope in scopes:
            for k, v in list(scope.items()):
                hit = self._ids.get(id(v))
                if hit is not None and hit[0]() is v and not k.startswith("_"):
                    self._set_label(hit[1], k, at)

    def _relabel(self) -> None:
        """Unnamed snapshots of steps already built take the names found since."""
        for step in self._steps:
            for snap in step.inputs + step.outputs + step.context:
                if snap.label == f"t{snap.tid}" and snap.tid in self._labels:
                    snap.label = self._labels[snap.tid]
                if snap.base is not None and _is_anon(snap.base_label) and \
                        snap.base in self._labels:
                    snap.base_label = self._labels[snap.base]

    def _set_label(self, tid: int, name: str, at: int) -> None:
        if tid not in self._labels:
            self._labels[tid] = name
            self._label_step[tid] = at

    def _tid(self, t) -> int:
        hit = self._ids.get(id(t))
        if hit is not None and hit[0]() is t:
            return hit[1]
        tid = self._next
        self._next += 1
        self._ids[id(t)] = (weakref.ref(t), tid, None, -1)
        return tid

    def _seen_tid(self, t, frame, at: int, fresh: bool = False) -> int:
        """``t``'s tid; a tensor with no name yet is looked up in the caller's variables,
        unless it is a result just made (no name can be bound to it yet) or backward is
        running (no user code runs between its events, so nothing new can be bound)."""
        hit = self._ids.get(id(t))
        if hit is not None and hit[0]() is t:
            tid = hit[1]
            if fresh or self._in_backward or tid in self._labels:
                return tid
        else:
            tid = self._tid(t)
        if not fresh and tid not in self._labels:
            name = _name_in_frames(t, frame, self.namespace)
            if name:
                self._set_label(tid, name, at)
        return tid

    def _counter(self, vc) -> int:
        hit = self._counters.get(id(vc))
        if hit is not None and hit[0]() is vc:
            return hit[1]
        cid = self._ncounters = self._ncounters + 1
        self._counters[id(vc)] = (weakref.ref(vc), cid)
        return cid

    def _new_saved(self, saved) -> int:
        """A small id for a SavedTensor just made (``saved``: it or its id): a fresh number,
        since a dead one's id may be reused."""
        sid = self._nsaved = self._nsaved + 1
        self._saved[saved if type(saved) is int else id(saved)] = sid
        return sid

    def _label(self, t, frame, at: int) -> str:
        tid = self._seen_tid(t, frame, at)
        return self._labels.get(tid) or t._name or f"t{tid}"

    def _raw_snap(self, t, frame, at: int, fresh: bool = False) -> tuple:
        """What a TensorSnapshot needs that cannot be recovered later (see _build_snap)."""
        ids = self._ids
        hit = ids.get(id(t))
        if hit is not None and hit[0]() is t and (fresh or self._in_backward or
                                                  hit[1] in self._labels):
            tid = hit[1]  # the common case, without _seen_tid's call
            r = hit[2]
            if r is not None:  # still true? (every field a snapshot shows, or what decides it)
                st = t._storage
                if (t._vc.version == r[8] and t._shape is r[1] and t._strides is r[2] and
                        t._offset == r[3] and st.id == r[4] and st.data.size == r[5] and
                        t._requires_grad is r[9] and id(t._grad_fn) == hit[3] and
                        t._name is r[14] and r[12] is None and t._base is None):
                    return r
        else:
            tid = self._seen_tid(t, frame, at, fresh)
            hit = ids[id(t)]
        gf = t._grad_fn
        base = t._base
        st = t._storage
        vc = t._vc
        ch = self._counters.get(id(vc))
        cid = ch[1] if ch is not None and ch[0]() is vc else self._counter(vc)
        rg = t._requires_grad
        r = (tid, t._shape, t._strides, t._offset, st.id, st.data.size, t._dtype.name,
             st.device.key, vc.version, rg, gf is None or not rg,
             gf.name() if gf is not None else "",
             self._seen_tid(base, frame, at) if base is not None else None,
             cid, t._name, base._name if base is not None else None)
        c = hit[2]  # unchanged since its last event: keep one tuple
        if c is not None and c == r:
            r = c
        # (a view's snapshot also looks its base's name up: never taken from the cache)
        ids[id(t)] = (hit[0], tid, r, id(gf) if base is None else -1)
        return r

    def _label_at(self, tid: int, name, at: int) -> str:
        label = self._labels.get(tid)
        if label is not None and self._label_step.get(tid, -1) <= at:
            return label
        if name:
            return name
        return (self._closed and label) or f"t{tid}"

    def _build_snap(self, r: tuple, at: int) -> TensorSnapshot:
        (tid, shape, strides, offset, sid, ssize, dt, dev, version, rg, leaf, gf, btid, cid,
         name, bname) = r
        return TensorSnapshot(
            label=self._label_at(tid, name, at), tid=tid, shape=tuple(shape),
            strides=tuple(strides), offset=offset, storage_id=sid, storage_size=int(ssize),
            dtype=dt, device=dev, version=version, requires_grad=rg, is_leaf=leaf,
            grad_fn=gf, base=btid, counter=cid, name=name or "",
            base_label=self._label_at(btid, bname, at) if btid is not None else "")

    def _materialize(self) -> None:
        """Turn the recorded tuples into Steps. A record is one of:
        memory ``(index, event, code, lasti, backward, storage, device, nbytes, memory)``;
        other ``(index, event, op, kind, code, lasti, ins, outs, ctx, storages, data,
        backward, memory, bump, allocs)``, where ``lasti`` is the user frame's ``f_lasti`` (its
        line is worked out here, see frames._line_of), ``storages`` pairs or a dict,
        ``bump`` (an in-place op's version bump, the step after it) is
        ``(before, after, ctx, storages)`` or None, ``allocs`` (the allocations of an op's
        results, the steps just before it, same line) ``(storage, device, nbytes, memory)``
        each or None, and ``data`` a tuple for a ``save`` (the values of ``_SAVE_KEYS``).
        Records may share their ``memory`` dict; each step gets its own."""
        raw, self._raw = self._raw, []
        self._rawn = 0
        steps = self._steps
        build = self._build_snap
        where_of = {}  # (code, lasti) -> the Step fields saying where
        for rec in raw:
            if len(rec) == 9:
                index, event, code, lasti, back, sid, dev, nbytes, mem = rec
                where = _where_cached(where_of, code, lasti)
                steps.append(Step(index, event, memory=dict(mem), backward=back,
                                  data={"storage": sid, "device": dev, "nbytes": nbytes},
                                  **where))
                continue
            (index, event, op, kind, code, lasti, ins, outs, ctx, storages, data, back,
             mem, bump, allocs) = rec
            where = _where_cached(where_of, code, lasti)
            if allocs:
                i = index - len(allocs)
                for sid, dev, nbytes, amem in allocs:
                    steps.append(Step(i, "alloc", memory=dict(amem), backward=back,
                                      data={"storage": sid, "device": dev, "nbytes": nbytes},
                                      **where))
                    i += 1
            if type(storages) is dict:
                storages = storages.items()
            if type(data) is tuple:
                data = dict(zip(_SAVE_KEYS, data)) if data else {}
            else:
                data = dict(data)
            steps.append(Step(
                index, event, op=op, kind=kind,
                inputs=[build(r, index) for r in ins],
                outputs=[build(r, index) for r in outs],
                memory=dict(mem), storages={k: _build_storage(v) for k, v in storages},
                data=data, backward=back,
                context=[build(r, index) for r in ctx], **where))
            if bump is not None:
                before, after, bctx, bstorages = bump
                index += 1
                steps.append(Step(
                    index, "bump", op=op, outputs=[build(outs[0], index)],
                    memory=dict(mem), storages={k: _build_storage(v) for k, v in bstorages},
                    data={"before": before, "after": after, "counter": outs[0][13]},
                    backward=back, context=[build(r, index) for r in bctx], **where))

    def _add(self, step: Step) -> None:
        steps = self.steps
        step.index = len(steps)
        step.memory = {k: v for k, v in memory._allocated.items()}
        steps.append(step)

    # -- the recorder protocol (hooks.attach): raw arguments, no Event objects ------------------
    def on_op(self, name, kind, inputs, outputs, before, after) -> None:
        if self._busy:  # events caused by recording itself are not part of the program
            return
        self._busy = True
        try:
            # frame 1 is hooks.emit_op, ours; the walk starts at its caller (frames._caller,
            # written out: this runs once per op). The common case, a library function
            # called by the user's line, is two look-ups and no loop.
            frame = sys._getframe(self._op_depth)
            kinds = _CODE_KIND
            code = frame.f_code
            hit = kinds.get(id(code))
            k = hit[1] if hit is not None and hit[0] is code else _code_kind(code)
            in_backward = k == 2
            if k:
                frame = frame.f_back
                if frame is not None:
                    code = frame.f_code
                    hit = kinds.get(id(code))
                    k = hit[1] if hit is not None and hit[0] is code else _code_kind(code)
                    if k:
                        while frame is not None:
                            code = frame.f_code
                            hit = kinds.get(id(code))
                            k = hit[1] if hit is not None and hit[0] is code else \
                                _code_kind(code)
                            if k == 0:
                                break
                            if k == 2:
                                in_backward = True
                            frame = frame.f_back
            self._in_backward = in_backward
            at = len(self._steps) + self._rawn
            # the allocs of this op's results: steps of the same line just before the op's,
            # kept in its record (see _materialize)
            allocs = self._allocs
            if allocs:
                self._allocs = []
                if self._pending:  # (the first of them is the first event after the last step)
                    self._name_pending(frame, at)
                at += len(allocs)
                self._rawn += len(allocs)
            else:
                allocs = None
                if self._pending:  # results of the previous step: their assignment has happened now
                    self._name_pending(frame, at)
            ids = self._ids
            if inputs:  # an input unchanged since its last event: its tuple (_raw_snap's
                ins = []  # first case, written out)
                labels = self._labels
                for t in inputs:
                    hit = ids.get(id(t))
                    if hit is not None:
                        r = hit[2]
                        if r is not None and hit[0]() is t and (in_backward or hit[1] in labels):
                            st = t._storage
                            if (t._vc.version == r[8] and t._shape is r[1] and
                                    t._strides is r[2] and t._offset == r[3] and
                                    st.id == r[4] and st.data.size == r[5] and
                                    t._requires_grad is r[9] and id(t._grad_fn) == hit[3] and
                                    t._name is r[14] and r[12] is None and t._base is None):
                                ins.append(r)
                                continue
                    ins.append(self._raw_snap(t, frame, at))
                ins = tuple(ins)
            else:
                ins = ()
            if kind == "inplace" or kind == "out":
                for t in outputs:  # written: look at every field again
                    hit = ids.get(id(t))
                    if hit is not None and hit[2] is not None:
                        ids[id(t)] = (hit[0], hit[1], None, -1)
                outs = tuple([self._raw_snap(t, frame, at) for t in outputs])
            elif len(outputs) == 1 and outputs[0]._base is None:
                # an op's one new result (_raw_snap(fresh=True) and _around, written out)
                out = outputs[0]
                hit = ids.get(id(out))
                if hit is not None and hit[0]() is out:
                    ref, tid, old = hit[0], hit[1], hit[2]
                else:
                    ref, tid, old = _ref(out), self._next, None
                    self._next = tid + 1
                gf = out._grad_fn
                ost = out._storage
                vc = out._vc
                counters = self._counters
                hit = counters.get(id(vc))
                if hit is not None and hit[0]() is vc:
                    cid = hit[1]
                else:  # (_counter, written out: most results have a new counter)
                    cid = self._ncounters = self._ncounters + 1
                    counters[id(vc)] = (_ref(vc), cid)
                rg = out._requires_grad
                data = ost.data
                r = (tid, out._shape, out._strides, out._offset, ost.id, data.size,
                     out._dtype.name, ost.device.key, vc.version, rg, gf is None or not rg,
                     gf.name() if gf is not None else "", None, cid, out._name, None)
                if old is not None and old == r:
                    r = old
                ids[id(out)] = (ref, tid, r, id(gf))
                outs = (r,)
                if _no_base(inputs):
                    storages = {}
                    last_storage = self._last_storage
                    for t in inputs:
                        st = t._storage
                        sid = st.id
                        got = storages.get(sid)
                        if got is None:
                            a = st.data
                            if type(a) is _ndarray and a.size <= STORAGE_VALUES_LIMIT:
                                raw = a.tobytes()  # (_small_storage, written out)
                                got = last_storage.get(sid)
                                if got is None or got[4] != raw or got[0] != a.size:
                                    got = last_storage[sid] = (
                                        a.size, st.dtype.name, st.device.key, a.nbytes, raw,
                                        a.dtype)
                                storages[sid] = got
                            else:
                                storages[sid] = self._small_storage(st, sid, last_storage, t)
                        elif type(got) is dict and type(got["values"]) is dict:
                            got["values"] = _sampled_values(st, t, got["values"])  # its cells too
                    sid = ost.id
                    got = storages.get(sid)
                    if got is not None:
                        if type(got) is dict and type(got["values"]) is dict:
                            got["values"] = _sampled_values(ost, out, got["values"])
                    elif type(data) is _ndarray and data.size <= STORAGE_VALUES_LIMIT and \
                            sid not in last_storage:  # a new storage: nothing to compare
                        storages[sid] = last_storage[sid] = (
                            data.size, ost.dtype.name, ost.device.key, data.nbytes,
                            data.tobytes(), data.dtype)
                    else:
                        storages[sid] = self._small_storage(ost, sid, last_storage, out)
                    mem = self._mem
                    if _allocated != mem:
                        mem = self._mem = _allocated.copy()
                    if frame is not None:
                        code = frame.f_code
                        self._raw.append((at, "op", name, kind, code, frame.f_lasti, ins, outs,
                                          (), storages, (), in_backward, mem, None, allocs))
                    else:
                        self._raw.append((at, "op", name, kind, None, 0, ins, outs, (),
                                          storages, (), in_backward, mem, None, allocs))
                    self._rawn += 1
                    # (_pend, written out: the one result, named at the next event)
                    if tid not in self._labels and not (out._name and not _is_anon(out._name)):
                        self._pending = [(ref, tid)]
                        if frame is not None:
                            hit = _PLANS.get(id(code))  # (frames._plan's cache, read here)
                            plan = hit[1].get(frame.f_lasti, _SCAN) if hit is not None and \
                                hit[0] is code else _plan(frame)
                            self._pending_at = (id(frame), code, plan)
                        else:
                            self._pending_at = None
                    return
            elif len(outputs) == 1:  # a new view (its base's name looked up in the namespace)
                outs = (self._raw_snap(outputs[0], None, 0, True),)
            else:
                outs = tuple([self._raw_snap(t, frame, at, True) for t in outputs])
            ctx, storages = self._around(inputs + outputs if inputs else outputs, frame, at)
            bump = None
            if before is not None:  # the bump step that follows: the written tensor again
                bctx, bstorages = self._around(outputs[:1], frame, at + 1, dict(storages))
                bump = (before, after, bctx, bstorages)
            if frame is not None:
                code, lasti = frame.f_code, frame.f_lasti
            else:
                code, lasti = None, 0
            mem = self._mem
            if _allocated != mem:
                mem = self._mem = _allocated.copy()
            self._raw.append((at, "op", name, kind, code, lasti, ins, outs, ctx, storages, (),
                              in_backward, mem, bump, allocs))
            self._rawn += 1 if bump is None else 2
            self._pend(outputs, outs, frame, code)
        finally:
            self._busy = False

    # how far up on_op's caller is (hooks.emit_op's caller, the function that emitted) and
    # on_memory's (Storage's caller); a subclass whose methods call these adds one
    _op_depth = 2
    _memory_depth = 2

    # allocs wait for the next event and take its frame (the op that made the storage, in
    # the same user line: no user code runs in between), instead of walking the frames
    _defer_allocs = True

    def on_memory(self, what, storage_id, dev, nbytes) -> None:
        if self._busy:
            return
        if what == "alloc" and self._defer_allocs:
            mem = self._mem
            if _allocated != mem:
                mem = self._mem = _allocated.copy()
            self._allocs.append((storage_id, dev, nbytes, mem))
            return
        self._busy = True
        try:
            # frame 1 is Storage.__init__/__del__ (ours), which call the listeners; the walk
            # starts at its caller (frames._caller, written out: a free is one event per op),
            # which is most often the user's line that dropped the last reference
            frame = sys._getframe(self._memory_depth)
            in_backward = False
            kinds = _CODE_KIND
            while frame is not None:
                code = frame.f_code
                hit = kinds.get(id(code))
                k = hit[1] if hit is not None and hit[0] is code else _code_kind(code)
                if k == 0:
                    break
                if k == 2:
                    in_backward = True
                frame = frame.f_back
            self._in_backward = in_backward
            if self._allocs:
                self._flush_allocs(frame, in_backward)
            at = len(self._steps) + self._rawn
            if self._pending:
                self._name_pending(frame, at)
            if frame is not None:
                code, lasti = frame.f_code, frame.f_lasti
            else:
                code, lasti = None, 0
            mem = self._mem  # (what the step shows: live bytes when it is recorded)
            if _allocated != mem:
                mem = self._mem = _allocated.copy()
            self._raw.append((at, what, code, lasti, in_backward, storage_id, dev, nbytes, mem))
            self._rawn += 1
        finally:
            self._busy = False

    def _flush_allocs(self, frame, in_backward) -> None:
        """Record the waiting allocs as steps of ``frame`` (the event that follows them)."""
        allocs, self._allocs = self._allocs, []
        at = len(self._steps) + self._rawn
        if self._pending:  # (the first of them is the first event after the last step)
            self._name_pending(frame, at)
        if frame is not None:
            code, lasti = frame.f_code, frame.f_lasti
        else:
            code, lasti = None, 0
        raw = self._raw
        for sid, dev, nbytes, mem in allocs:
            raw.append((at, "alloc", code, lasti, in_backward, sid, dev, nbytes, mem))
            at += 1
        self._rawn += len(allocs)

    def on_save(self, saved, t) -> None:
        if self._busy:
            return
        self._busy = True
        try:
            frame, in_backward = _caller(sys._getframe(2))
            self._in_backward = in_backward
            if self._allocs:
                self._flush_allocs(frame, in_backward)
            at = len(self._steps) + self._rawn
            if self._pending:
                self._name_pending(frame, at)
            ins = (self._raw_snap(t, frame, at),)
            ctx, storages = self._around([t], frame, at)
            data = (saved.node_name, saved.name, saved.version, saved.is_output,
                    self._new_saved(saved))
            if frame is not None:
                code, lasti = frame.f_code, frame.f_lasti
            else:
                code, lasti = None, 0
            mem = self._mem
            if _allocated != mem:
                mem = self._mem = _allocated.copy()
            self._raw.append((at, "save", saved.node_name, "", code, lasti, ins, (), ctx,
                              storages, data, in_backward, mem, None, None))
            self._rawn += 1
        finally:
            self._busy = False

    def on_event(self, event, op, kind, inputs, outputs, data, obj) -> None:
        if self._busy:
            return
        self._busy = True
        try:
            self._record(event, op, kind, inputs, outputs, data, obj, sys._getframe(2))
        finally:
            self._busy = False

    def _on_event(self, ev: hooks.Event) -> None:
        """The same recording for a plain ``hooks.subscribe`` (one ``Event`` at a time)."""
        if self._busy:
            return
        self._busy = True
        try:
            self._record(ev.event, ev.op, ev.kind, ev.inputs, ev.outputs, ev.data, ev.obj,
                         sys._getframe(1))
        finally:
            self._busy = False

    def _around(self, involved, frame, at: int, have: dict | None = None):
        """The bases of the views among ``involved`` (snapshots) and the storages of them all.

        Returns ``(ctx, storages)`` as tuples; ``have``: storages already read at this event
        (a small storage's tuple is reused)."""
        bases = None
        for t in involved:
            b = t._base
            if b is not None:
                if bases is None:
                    bases = {}
                    seen = {id(x) for x in involved}
                if id(b) not in seen and id(b) not in bases:
                    bases[id(b)] = b
        ctx = ()
        if bases:
            ctx = tuple([self._raw_snap(b, frame, at) for b in bases.values()])
            involved = list(involved) + list(bases.values())
        storages = {}
        last_storage = self._last_storage
        for t in involved:
            st = t._storage
            sid = st.id
            got = storages.get(sid)
            if got is None:
                got = have.get(sid) if have is not None else None
                if type(got) is not tuple:
                    got = self._small_storage(st, sid, last_storage, t)
                storages[sid] = got
            elif type(got) is dict and (got["values"] is None or type(got["values"]) is dict):
                got["values"] = _sampled_values(st, t, got["values"])
        # the record holds only tuples of ints, strings, bytes and code objects, which the
        # cyclic GC stops tracking: thousands of kept records would otherwise make it run
        # full collections during the traced program
        return ctx, tuple(storages.items())

    @staticmethod
    def _small_storage(st, sid, last_storage, t):
        """A storage as a step shows it: a small numpy storage keeps its bytes (decoded when
        the step is built; unchanged since its last event: the earlier tuple), a large one
        its sampled values at the cells a picture of ``t`` shows."""
        data = st.data
        if type(data) is _ndarray and data.size <= STORAGE_VALUES_LIMIT:
            raw = data.tobytes()
            got = last_storage.get(sid)
            if got is None or got[4] != raw or got[0] != data.size:
                got = last_storage[sid] = (data.size, st.dtype.name, st.device.key,
                                           data.nbytes, raw, data.dtype)
            return got
        got = _storage_snapshot(st)
        if got["values"] is None:
            got["values"] = _sampled_values(st, t, None)
        return got

    def _pend(self, outputs, outs, frame, code) -> None:
        """Results not named yet: looked up at the next event, after their assignment."""
        labels = self._labels
        if len(outputs) == 1:
            t = outputs[0]
            tid = outs[0][0]
            if tid in labels or (t._name and not _is_anon(t._name)):
                return
            hit = self._ids.get(id(t))
            pend = [(hit[0] if hit is not None and hit[1] == tid else _ref(t), tid)]
        else:
            pend = [(weakref.ref(t), r[0]) for t, r in zip(outputs, outs)
                    if r[0] not in labels and not _named(t)]
            if not pend:
                return
        self._pending = pend
        self._pending_at = (id(frame), code, _plan(frame)) if frame is not None else None

    def _record(self, event, op, kind, inputs, outputs, data, obj, start) -> None:
        """Any event, from its fields (node, check, accumulate, error; and every kind for a
        plain subscriber)."""
        frame, in_backward = _caller(start)
        self._in_backward = in_backward
        if self._allocs:
            self._flush_allocs(frame, in_backward)
        at = len(self._steps) + self._rawn
        if self._pending:  # results of the previous step: their assignment has happened now
            self._name_pending(frame, at)
        if event == "accumulate" and len(inputs) > 1:  # name the gradient after its leaf
            leaf_label = self._label(inputs[0], frame, at)
            self._set_label(self._tid(inputs[1]), f"{leaf_label}.grad", at)
        if event == "error":  # its tensors are those the error names (no storages shown)
            ins = tuple([self._raw_snap(t, frame, at) for t in _tensors_in(obj.info)])
        else:
            ins = tuple([self._raw_snap(t, frame, at) for t in inputs]) if inputs else ()
        fresh = event == "op" and kind != "inplace" and kind != "out"
        outs = tuple([self._raw_snap(t, frame, at, fresh) for t in outputs]) if outputs else ()
        ctx, storages = self._around(list(inputs) + list(outputs), frame, at)
        if "saved" in data:  # a small stable id joins a save to its check
            data = dict(data)
            data["saved"] = self._saved.get(data["saved"]) or self._new_saved(data["saved"])
        elif event == "bump" and outputs:
            data = dict(data)
            data["counter"] = self._counter(outputs[0]._vc)
        if event == "error":
            self._errors[id(obj)] = at
        if frame is not None:
            code, lasti = frame.f_code, frame.f_lasti
        else:
            code, lasti = None, 0
        mem = self._mem
        if _allocated != mem:
            mem = self._mem = _allocated.copy()
        self._raw.append((at, event, op, kind, code, lasti, ins, outs, ctx, storages, data,
                          in_backward, mem, None, None))
        self._rawn += 1
        if outputs:
            self._pend(outputs, outs, frame, code)

    def _name_pending(self, frame, at: int) -> None:
        """Name the previous step's results after the variables they were just assigned to.

        The plan read from the bytecode after the call that made them says where to look:
        in the same running frame, a plain ``name = <call>`` needs one look-up of that name
        and a value that is not stored anywhere needs none; anything else (another frame,
        tuple unpacking, chained assignment, a return) scans the calling frames as before.
        """
        pending, self._pending = self._pending, []
        at_frame, self._pending_at = self._pending_at, None
        if len(pending) == 1 and at_frame is not None and frame is not None and \
                at_frame[0] == id(frame) and at_frame[1] is frame.f_code:
            plan = at_frame[2]  # one result, same frame (the loop below, written out)
            if plan is None:
                return
            if plan is not _SCAN:
                ref, tid = pending[0]
                t = ref()
                if t is None or tid in self._labels:
                    return
                scope = frame.f_locals
                v = scope.get(plan)
                if frame.f_code.co_flags & _CO_OPTIMIZED:
                    scope.clear()  # see frame_locals: the cached dict would keep locals alive
                if v is t:
                    self._set_label(tid, plan, at)
                return
        want = {}
        for ref, tid in pending:
            t = ref()
            if t is not None and tid not in self._labels:
                want[id(t)] = (tid, t)
        if not want or frame is None:
            return
        if at_frame is not None and at_frame[0] == id(frame) and at_frame[1] is frame.f_code:
            plan = at_frame[2]
            if plan is None:
                return
            if plan is not _SCAN:
                scope = frame.f_locals
                v = scope.get(plan)
                if frame.f_code.co_flags & inspect.CO_OPTIMIZED:
                    scope.clear()  # see frame_locals: the cached dict would keep locals alive
                hit = want.get(id(v))
                if hit is not None and hit[1] is v:
                    self._set_label(hit[0], plan, at)
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
                hit = want.get(id(v))
                if hit is not None and not k.startswith("_"):
                    self._set_label(hit[0], k, at)

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

_SAVE_KEYS = ("node", "name", "version", "is_output", "saved")


def _where_cached(cache: dict, code, lasti: int) -> dict:
    if code is None:
        return {}
    key = (id(code), lasti)  # (the record keeps the code alive; hashing a code object is slow)
    hit = cache.get(key)
    if hit is None:
        lineno = _line_of(code, lasti)
        fn = code.co_filename
        hit = cache[key] = {"filename": fn, "lineno": lineno,
                            "line": linecache.getline(fn, lineno).strip()}
    return hit

def _no_base(tensors) -> bool:
    for t in tensors:
        if t._base is not None:
            return False
    return True


def _named(t) -> bool:
    return bool(t._name) and not _is_anon(t._name)


def _build_storage(r) -> dict:
    if type(r) is dict:
        v = r["values"]
        return dict(r, values=dict(v) if type(v) is dict else v)
    n, dt, dev, nbytes, raw, npdt = r
    return {"size": int(n), "dtype": dt, "device": dev, "nbytes": int(nbytes),
            "values": _np.frombuffer(raw, dtype=npdt).tolist()}


def _storage_snapshot(st) -> dict:
    data = st.data
    n = data.size
    snap = {"size": n, "dtype": st.dtype.name, "device": _device_str(st.device),
            "nbytes": data.nbytes, "values": None}
    if n <= STORAGE_VALUES_LIMIT:
        snap["values"] = backend.to_numpy(data).tolist()
    return snap


_DEVICE_STR: dict = {}  # id(device) -> (device, str(device)): storages hold one object per device


def _device_str(dev) -> str:
    hit = _DEVICE_STR.get(id(dev))  # (by id: a device's __hash__ is Python code)
    if hit is None or hit[0] is not dev:
        hit = _DEVICE_STR[id(dev)] = (dev, str(dev))
    return hit[1]


_CELLS: dict = {}  # (storage size, shape, strides, offset) -> (sorted cells, numpy index)


def _sampled_values(st, t, have) -> dict:
    """Values of a large storage at the cells a picture of ``t`` would show.

    Which cells depends only on the layout, so it is worked out once per layout (a
    training loop repeats a handful); each event then reads them with one gather.
    """
    n = st.data.size
    key = (n, t._shape, t._strides, t._offset)
    hit = _CELLS.get(key)
    if hit is None:
        from .viz.model import sample_positions

        pos, _ = sample_positions(t._shape, t._strides, t._offset)
        cells = sorted(set(int(p) for p in list(range(8)) + list(range(n - 4, n)) + pos[:16] +
                           pos[-4:]))
        if len(_CELLS) > 4096:
            _CELLS.clear()
        hit = _CELLS[key] = (cells, _np.asarray(cells))
    if type(st.data) is _np.ndarray:
        values = zip(hit[0], st.data[hit[1]].tolist())
    else:
        from .viz.model import values_at

        values = values_at(st, hit[0]).items()
    if not have:
        return dict(values)
    out = dict(have)
    out.update(values)
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
