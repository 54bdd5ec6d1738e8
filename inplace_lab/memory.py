"""Per-device memory accounting: every storage allocation and free, live bytes and peak.

``Storage`` counts itself in these tables when it allocates and (from its ``__del__``)
when its last reference dies (storage.py: the two hottest lines of the library, so they
are written there rather than called here), so the numbers are exact bytes of tensor data:
the figures PyTorch's ``torch.cuda.memory_allocated`` reports, for every device
(``cpu``, ``cuda:0``; a simulated GPU is accounted separately from the CPU).

>>> import inplace_lab as il
>>> il.memory.reset_peak_memory_stats("cpu")
"""
from __future__ import annotations

import gc
from dataclasses import dataclass

from .backend import device as _device

_allocated: dict[str, int] = {}
_peak: dict[str, int] = {}
# No registry of live storages: every op result would pay for an entry (a weakref and a
# dict insert and pop, ~0.15 us of a 1 us small op); memory_snapshot, which is rare, finds
# them among the objects the garbage collector tracks instead.
_listeners: list = []  # hooks bus subscribes here (alloc/free events)


def _key(dev) -> str:
    if dev is None:
        return "cpu"
    from .backend import concrete

    return concrete(_device(dev)).key  # "cuda" counts as the current cuda device


def _add(k: str, nbytes: int) -> None:
    cur = _allocated.get(k, 0) + nbytes
    _allocated[k] = cur
    if cur > _peak.get(k, 0):
        _peak[k] = cur


def record_realloc(storage, old_nbytes: int) -> None:
    """A storage got a new buffer (``resize_``): the new one is counted before the old is freed."""
    k = storage.device.key
    _add(k, storage.nbytes())
    for cb in _listeners:
        cb("alloc", storage.id, k, storage.nbytes())
    _allocated[k] -= old_nbytes  # the old buffer's free (the storage itself stays live)
    for cb in _listeners:
        cb("free", storage.id, k, old_nbytes)


def memory_allocated(device=None) -> int:
    """Bytes of tensor storage alive now on ``device`` (default cpu)."""
    return _allocated.get(_key(device), 0)


def max_memory_allocated(device=None) -> int:
    """Peak of ``memory_allocated`` since the start or the last reset."""
    return _peak.get(_key(device), 0)


def reset_peak_memory_stats(device=None) -> None:
    """Start a new peak measurement from what is alive now."""
    k = _key(device)
    _peak[k] = _allocated.get(k, 0)


@dataclass(frozen=True)
class StorageRecord:
    """One live storage in a ``memory_snapshot`` (``simulated``: a simulated-GPU storage)."""

    storage_id: int
    device: str
    nbytes: int
    dtype: str
    owners: tuple
    step: int
    simulated: bool = False


def memory_snapshot(device=None) -> list[StorageRecord]:
    """Live storages (all devices, or one) with size, dtype, owner names and allocation step."""
    from .backend import is_simulated

    from .storage import Storage

    want = None if device is None else _key(device)
    out = []
    live = [o for o in gc.get_objects() if o.__class__ is Storage]
    for st in sorted(live, key=lambda st: st.id):
        if not st.counted or (want is not None and st.device.key != want):
            continue
        sid = st.id
        out.append(StorageRecord(sid, st.device.key, st.nbytes(), st.dtype.name,
                                 tuple(sorted(st.owner_names())), st.alloc_step,
                                 is_simulated(st.device)))
    return out
