"""What a storage diagram draws, computed from live tensors or from a trace step.

Renderers never touch tensors directly: this module turns them (or a step's
snapshots) into plain data, using ``layout`` for all stride maths, so the same
picture can be drawn now or later from a saved trace.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import layout

SAMPLE = 8  # element positions sampled from each end of a large tensor


@dataclass
class TensorModel:
    label: str
    tid: int
    shape: tuple
    strides: tuple
    offset: int
    storage_id: int
    version: int
    counter: int  # which version counter (views share their base's)
    base: str | None  # label of the root base, for views
    requires_grad: bool = False
    grad_fn: str = ""
    numel: int = 0
    positions: list = field(default_factory=list)  # storage positions in element order (sampled)
    sampled: bool = False  # True when positions are only the first/last SAMPLE elements

    @property
    def contiguous(self) -> bool:
        return layout.is_contiguous(self.shape, self.strides)

    @property
    def overlapping(self) -> bool:
        return layout.has_internal_overlap(self.shape, self.strides)

    def describe(self) -> str:
        def tup(t):
            return "(" + ", ".join(str(n) for n in t) + ("," if len(t) == 1 else "") + ")"

        return f"shape {tup(self.shape)} · stride {tup(self.strides)} · offset {self.offset}"


@dataclass
class StorageModel:
    sid: int
    size: int
    dtype: str
    values: dict  # storage position -> value, for every position a picture may show
    tensors: list = field(default_factory=list)
    changed: set = field(default_factory=set)

    @property
    def nbytes(self) -> int:
        from .. import dtypes

        return self.size * dtypes.from_any(self.dtype).itemsize


def sample_positions(shape, strides, offset, limit: int = 4096):
    """Storage positions in element order: all of them for small tensors, else the ends."""
    n = layout.numel(shape)
    if n <= limit:
        return layout.positions(shape, strides, offset).ravel().tolist(), False
    idx = list(range(SAMPLE)) + list(range(n - SAMPLE, n))
    out = []
    for k in idx:
        rem, pos = k, offset
        for d in range(len(shape) - 1, -1, -1):
            rem, i = divmod(rem, shape[d])
            pos += i * strides[d]
        out.append(pos)
    return out, True


def values_at(st, positions) -> dict:
    """{position: value} read from a live storage (host copy of just those cells)."""
    from .. import backend

    pos = sorted(set(int(p) for p in positions))
    if not pos:
        return {}
    vals = backend.to_numpy(st.data[backend.to_device_array(_np().asarray(pos), st.device)])
    return dict(zip(pos, vals.tolist()))


def _np():
    import numpy as np

    return np


def from_tensors(tensors, names=None, changed=None) -> list[StorageModel]:
    """Storage models for live tensors (grouped by storage, in first-seen order)."""
    names = dict(names or {})
    counters: dict[int, int] = {}
    labels: dict[int, str] = {}
    storages: dict[int, StorageModel] = {}
    for i, t in enumerate(tensors):
        labels[id(t)] = names.get(id(t)) or t.name or f"t{i}"
    for i, t in enumerate(tensors):
        st = t._storage
        sm = storages.get(st.id)
        if sm is None:
            sm = storages[st.id] = StorageModel(st.id, st.size(), st.dtype.name,
                                                values_at(st, range(min(st.size(), 64))))
            sm.values.update(values_at(st, range(max(st.size() - 8, 0), st.size())))
        base = t._base
        pos, sampled = sample_positions(t._shape, t._strides, t._offset)
        sm.values.update(values_at(st, pos[:64] + pos[-8:]))
        sm.tensors.append(TensorModel(
            label=labels[id(t)], tid=i, shape=tuple(t._shape), strides=tuple(t._strides),
            offset=t._offset, storage_id=st.id, version=t._vc.version,
            counter=counters.setdefault(id(t._vc), len(counters) + 1),
            base=(labels.get(id(base)) or names.get(id(base)) or base.name or "base")
            if base is not None else None,
            requires_grad=t._requires_grad, grad_fn=t._grad_fn.name() if t._grad_fn else "",
            numel=t.numel(), positions=pos, sampled=sampled))
    if changed is not None:
        st = changed._storage
        if st.id in storages:
            pos, _ = sample_positions(changed._shape, changed._strides, changed._offset)
            storages[st.id].changed = set(pos)
    return list(storages.values())


def caller_names(depth: int = 6) -> dict:
    """id(tensor) -> variable name, from the first frames outside the package (a script's
    locals and globals; in a notebook the globals are the notebook's namespace)."""
    import sys

    from ..tensor import Tensor
    from ..frames import _PKG_DIR, frame_locals

    out: dict[int, str] = {}
    f = sys._getframe(1)
    seen = 0
    while f is not None and seen < depth:
        if not f.f_code.co_filename.startswith(_PKG_DIR):
            for scope in (frame_locals(f), f.f_globals):
                for k, v in list(scope.items()):
                    if isinstance(v, Tensor) and not k.startswith("_"):
                        out.setdefault(id(v), k)
            seen += 1
        f = f.f_back
    return out


def from_step(step) -> list[StorageModel]:
    """Storage models for a trace step's snapshots (bases of views first, then the tensors)."""
    seen = {}
    for snap in list(getattr(step, "context", [])) + list(step.inputs) + list(step.outputs):
        seen.setdefault(snap.tid, snap)
    labels = {tid: s.label for tid, s in seen.items()}
    storages: dict[int, StorageModel] = {}
    for snap in seen.values():
        info = step.storages.get(snap.storage_id, {})
        sm = storages.get(snap.storage_id)
        if sm is None:
            vals = info.get("values") or {}
            if isinstance(vals, list):
                vals = dict(enumerate(vals))
            sm = storages[snap.storage_id] = StorageModel(
                snap.storage_id, info.get("size", snap.storage_size), snap.dtype,
                {int(k): v for k, v in vals.items()})
        pos, sampled = sample_positions(snap.shape, snap.strides, snap.offset)
        root = snap.base if snap.base is not None else snap.tid
        sm.tensors.append(TensorModel(
            label=snap.label, tid=snap.tid, shape=tuple(snap.shape), strides=tuple(snap.strides),
            offset=snap.offset, storage_id=snap.storage_id, version=snap.version,
            counter=getattr(snap, "counter", 0) or root,
            base=(labels.get(snap.base) or getattr(snap, "base_label", "") or f"t{snap.base}")
            if snap.base is not None else None,
            requires_grad=snap.requires_grad, grad_fn=snap.grad_fn,
            numel=layout.numel(snap.shape), positions=pos, sampled=sampled))
    if step.kind in ("inplace", "out") and step.outputs:
        out = step.outputs[0]
        if out.storage_id in storages:
            pos, _ = sample_positions(out.shape, out.strides, out.offset)
            storages[out.storage_id].changed = set(pos)
    return list(storages.values())
