"""Storage: one flat buffer that tensors (and all their views) look into.

A storage owns a 1-D numpy or cupy array. Tensors are windows on it
(shape, strides, offset); views are more windows on the *same* storage. The
allocation is reported to ``memory`` and so is the free, which happens when the
last tensor (or numpy array from ``Tensor.numpy()``) referring to it dies: that is
``__del__``, which CPython runs at once when the reference count drops to zero
(cheaper than a ``weakref.finalize`` per storage, which every op result would pay).
``resize_`` may give a storage a bigger buffer (``replace_data``); every tensor
on it keeps working because they hold the Storage object, not the buffer.
"""
from __future__ import annotations

import itertools
import weakref

from . import backend, memory
from .dtypes import dtype as _dtype

_ids = itertools.count(1)
_DEVICES: dict = {}  # device key -> the device object every storage on that device holds
_allocated, _peak, _listeners = memory._allocated, memory._peak, memory._listeners


class Storage:
    """A flat, typed buffer on one device with a stable id.

    Ids are given in allocation order, so a counted storage's id is also its place in the
    allocation sequence (``alloc_step``). Four slots are written per storage; what is rarely
    not the default (uncounted, pinned, owner names) lives in the class until a storage
    overrides it in its own ``__dict__``. ``tensor.fresh`` writes the same fields inline
    for an op's result (the hottest construction of the library).
    """

    __slots__ = ("data", "dtype", "device", "id", "__weakref__", "__dict__")
    counted = True  # counted in memory's tables (False: ``from_numpy``'s borrowed buffers)
    pinned = False  # page-locked host memory (cupy's pinned allocator)
    _owners = None  # WeakSet of named tensors on this storage, made by the first name

    def __init__(self, data, dt: _dtype, dev_arg: backend.device, counted: bool = True,
                 pinned: bool = False):
        self.data = data  # 1-D backend array
        self.dtype = dt._core  # a facade's dtype (torch.float32) stands for a core one
        dev = _DEVICES.get(dev_arg.key)  # one device object per device: the core compares by `is`
        if dev is None:
            dev = self._canonical(dev_arg)
        self.device = dev
        self.id = sid = next(_ids)
        if pinned:
            self.pinned = True
        if counted:  # count it (memory's tables): live bytes, peak, listeners
            k, n = dev.key, data.nbytes
            cur = _allocated[k] + n  # (_canonical made the device's entries)
            _allocated[k] = cur
            if cur > _peak[k]:
                _peak[k] = cur
            if _listeners:
                for cb in _listeners:
                    cb("alloc", sid, k, n)
        else:
            self.counted = False

    @property
    def alloc_step(self) -> int:
        """When it was allocated, in allocation order (0: not counted)."""
        return self.id if self.counted else 0

    @staticmethod
    def _canonical(dev):
        """The one device object for ``dev`` ("cuda" alone: the current device, as PyTorch)."""
        if dev.key == "cuda":  # (plain "cuda" is never a key here: the current device may change)
            dev = backend.concrete(dev)
        _allocated.setdefault(dev.key, 0)  # (so that counting needs no default)
        _peak.setdefault(dev.key, 0)
        return _DEVICES.setdefault(dev.key, dev)

    def __del__(self):
        """The last reference is gone: report the free (with the size at that moment)."""
        if self.counted:
            k, n = self.device.key, self.data.nbytes
            _allocated[k] -= n  # (the allocation made the entry)
            if _listeners:
                for cb in _listeners:
                    cb("free", self.id, k, n)

    @classmethod
    def allocate(cls, n: int, dt: _dtype, dev: backend.device) -> "Storage":
        return cls(backend.empty(n, dt.np, dev), dt, dev)

    def replace_data(self, new) -> None:
        """Swap in a (bigger) buffer; accounted as alloc of the new one, then free of the old,
        so the peak sees both, as with a real reallocation."""
        old_nbytes = self.nbytes()
        self.data = new
        if self.counted:
            memory.record_realloc(self, old_nbytes)

    def nbytes(self) -> int:
        return int(self.data.nbytes)

    def size(self) -> int:
        """Number of elements (PyTorch's UntypedStorage.size() counts bytes: see ``nbytes``)."""
        return int(self.data.size)

    def __len__(self) -> int:
        return self.nbytes()

    def data_ptr(self) -> int:
        if self.data.size == 0:  # PyTorch: an empty storage has no allocation (nullptr)
            return 0
        if isinstance(self.data, backend.np.ndarray):
            return int(self.data.__array_interface__["data"][0])
        return int(self.data.data.ptr)

    def add_owner(self, t) -> None:
        """Remember a named tensor on this storage (for ``memory_snapshot``'s owner names)."""
        if self._owners is None:
            self._owners = weakref.WeakSet()
        self._owners.add(t)

    def owner_names(self) -> set:
        if self._owners is None:
            return set()
        return {t.name for t in self._owners if getattr(t, "name", None)}

    def __repr__(self) -> str:
        where = backend.device_label(self.device)
        return f"Storage(id={self.id}, {self.size()} x {self.dtype.name}, {self.nbytes()} bytes, device={where})"
