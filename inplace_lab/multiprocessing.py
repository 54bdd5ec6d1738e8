"""Tensors shared between processes, in ``torch.multiprocessing``'s shape.

``t.share_memory_()`` is an in-place op on the *storage*: its buffer moves into a
``multiprocessing.shared_memory`` segment (the Storage object, and every tensor and view
on it, stay the same objects; ``memory`` records the move as a new allocation and a
free). Tensors put on a queue of this module (any start method: fork or spawn) are
moved to shared memory first and arrive as windows on the *same* segment, so an in-place
write in the child is visible in the parent. Version counters are per process: the
other side's writes are out-of-band, like writes through ``numpy()``.

Keep a tensor alive in the sender until the receiver has it: the segment is unlinked
when the creating process's last tensor on it dies.

>>> import inplace_lab as il
>>> t = il.zeros(3); st = t.untyped_storage()
>>> t.share_memory_() is t, t.is_shared(), t.untyped_storage() is st
(True, True, True)
"""
from __future__ import annotations

import gc
import mmap
import multiprocessing as _mp
import os
import weakref
from multiprocessing import reduction as _reduction
from multiprocessing import shared_memory as _shm

from . import backend
from .dtypes import from_numpy_dtype
from .storage import Storage
from .tensor import Tensor

np = backend.np
_segments: "weakref.WeakKeyDictionary[Storage, _Segment]" = weakref.WeakKeyDictionary()
_by_name: "weakref.WeakValueDictionary[str, Storage]" = weakref.WeakValueDictionary()


class _Segment:
    """The shared-memory handle behind one storage (kept alive as long as the storage)."""

    def __init__(self, name, nbytes, handle, creator):
        self.name, self.nbytes, self.handle, self.creator = name, nbytes, handle, creator


def _release(handle, creator):
    try:
        handle.close()
    except (BufferError, ValueError):  # numpy views still map it: the OS frees it with them
        pass
    if creator:
        try:
            handle.unlink()
        except FileNotFoundError:
            pass


def _attach(name, nbytes):
    """Map an existing segment without registering it with the resource tracker (the
    creator owns the segment; Python 3.11 would otherwise unlink it when this process ends)."""
    if os.name == "posix":
        import _posixshmem

        fd = _posixshmem.shm_open("/" + name, os.O_RDWR, mode=0o600)
        try:
            mm = mmap.mmap(fd, nbytes)
        finally:
            os.close(fd)
        return mm, mm
    seg = _shm.SharedMemory(name=name)
    return seg, seg.buf


def _refresh_views(st):
    for ref in gc.get_referrers(st):
        if isinstance(ref, Tensor):
            ref._arr = None


def share_memory_(self):
    """Move this tensor's storage into shared memory, in place (a no-op if already there)."""
    st = self._storage
    if st.device.type != "cpu" or st in _segments:
        return self  # PyTorch: a no-op for CUDA tensors (they use CUDA IPC)
    nbytes = st.nbytes()
    seg = _shm.SharedMemory(create=True, size=max(nbytes, 1))
    arr = np.ndarray(st.data.shape, dtype=st.data.dtype, buffer=seg.buf)
    arr[...] = st.data
    st.replace_data(arr)  # memory accounting: the shared buffer is allocated, the old one freed
    _refresh_views(st)
    _segments[st] = _Segment(seg.name, max(nbytes, 1), seg, True)
    _by_name[seg.name] = st
    weakref.finalize(st, _release, seg, True)
    return self


def is_shared(self) -> bool:
    return self._storage in _segments


def _storage_share_memory_(st):
    share_memory_(Tensor._make(st, (st.size(),), (1,), 0))
    return st


Tensor.share_memory_ = share_memory_
Tensor.is_shared = is_shared
Storage.share_memory_ = _storage_share_memory_
Storage.is_shared = lambda st: st in _segments


# ---- queues: pass the segment's name, not the bytes --------------------------------------------

def _reduce_storage_shared(st):
    if st.device.type != "cpu":
        raise RuntimeError(f"cannot send a {st.device} storage between processes here (CUDA IPC "
                           "is not implemented); move it to the CPU first")
    _storage_share_memory_(st)
    seg = _segments[st]
    return _rebuild_shared_storage, (seg.name, seg.nbytes, st.dtype.np.str, st.size())


def _rebuild_shared_storage(name, nbytes, dtype_str, n):
    st = _by_name.get(name)
    if st is not None:
        return st  # back in a process that already maps it: the very same Storage object
    handle, buf = _attach(name, nbytes)
    arr = np.ndarray((n,), dtype=np.dtype(dtype_str), buffer=buf)
    st = Storage(arr, from_numpy_dtype(arr.dtype), backend.CPU)
    _segments[st] = _Segment(name, nbytes, handle, False)
    _by_name[name] = st
    weakref.finalize(st, _release, handle, False)
    return st


def _reduce_tensor_shared(t):
    st = t._storage
    return _rebuild_shared_tensor, (st, t._shape, t._strides, t._offset, t._requires_grad,
                                    bool(getattr(t, "_is_param", False)))


def _rebuild_shared_tensor(st, shape, strides, offset, requires_grad, is_param):
    from .serialization import _rebuild_tensor

    return _rebuild_tensor(st, shape, strides, offset, requires_grad, is_param)


def init_reductions() -> None:
    """Make every multiprocessing queue/pipe send tensors through shared memory (as torch)."""
    _reduction.ForkingPickler.register(Storage, _reduce_storage_shared)
    _reduction.ForkingPickler.register(Tensor, _reduce_tensor_shared)
    from .nn.parameter import Parameter

    _reduction.ForkingPickler.register(Parameter, _reduce_tensor_shared)


init_reductions()

# ---- torch.multiprocessing's names -----------------------------------------------------------------
Process = _mp.Process
Queue = _mp.Queue
SimpleQueue = _mp.SimpleQueue
Pipe = _mp.Pipe
Event = _mp.Event
Lock = _mp.Lock
Barrier = _mp.Barrier
cpu_count = _mp.cpu_count
current_process = _mp.current_process
get_start_method = _mp.get_start_method
set_start_method = _mp.set_start_method
get_all_start_methods = _mp.get_all_start_methods


def get_context(method=None):
    """A multiprocessing context; its queues use the reducers above (registered globally)."""
    return _mp.get_context(method)


def spawn(fn, args=(), nprocs=1, join=True, start_method="spawn"):
    """``fn(i, *args)`` in ``nprocs`` processes; raises if any exits with an error."""
    ctx = _mp.get_context(start_method)
    procs = [ctx.Process(target=fn, args=(i,) + tuple(args)) for i in range(nprocs)]
    for p in procs:
        p.start()
    if not join:
        return procs
    for p in procs:
        p.join()
    bad = [p.exitcode for p in procs if p.exitcode != 0]
    if bad:
        raise RuntimeError(f"process exited with code {bad[0]}")
    return None
