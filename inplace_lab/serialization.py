"""Pickling tensors (``pickle``, ``copy.deepcopy``): data is copied, sharing inside one pickle kept.

``Tensor.__reduce_ex__`` lands here. A tensor pickles as (its Storage, shape, strides,
offset, requires_grad); a Storage pickles as a copy of its buffer, once per pickle (the
pickler's memo), so two views of one storage unpickle as two views of one new storage.
Queues of ``inplace_lab.multiprocessing`` register their own reducers instead, which
pass the *shared-memory* name, so both processes see the same bytes.
For files, prefer ``inplace_lab.save`` / ``load``: unpickling can run code, loading cannot.
"""
from __future__ import annotations

import copyreg

from . import backend
from .dtypes import from_numpy_dtype
from .storage import Storage
from .tensor import Tensor


def reduce_storage(st: Storage):
    return _rebuild_storage, (backend.to_numpy(st.data).copy(), str(st.device))


def _rebuild_storage(array, device):
    dev = backend.device(device)
    return Storage(backend.to_device_array(array, dev), from_numpy_dtype(array.dtype), dev)


def reduce_tensor(t: Tensor):
    return _rebuild_tensor, (t._storage, t._shape, t._strides, t._offset, t._requires_grad,
                             bool(getattr(t, "_is_param", False)), t._pol)


def _rebuild_tensor(storage, shape, strides, offset, requires_grad, is_param=False, policy=None):
    """The tensor again, with its facade (a pickled torch tensor comes back a torch tensor)."""
    t = Tensor._make(storage, shape, strides, offset)
    if policy is not None:
        t._policy = policy
    if is_param:
        from .nn.parameter import Parameter

        return Parameter(t, requires_grad)
    t._requires_grad = requires_grad
    return t


copyreg.pickle(Storage, reduce_storage)
