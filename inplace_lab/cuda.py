"""``inplace_lab.cuda``: the GPU device in PyTorch's shape (a real one via cupy, or the simulated one).

``memory_allocated`` / ``max_memory_allocated`` read ``inplace_lab.memory`` for the cuda
device: exact bytes of tensor storage, so the classic figure holds (``relu`` on a
[1, 64, 512, 512] float32 tensor peaks at 134,217,728 bytes, ``relu_`` at 67,108,864).
``with inplace_lab.cuda.device(i):`` sets the current device (checked against what exists).
"""
from __future__ import annotations

import contextlib

from . import backend, memory

_current = [0]


def is_available() -> bool:
    return backend.gpu_count() > 0


def device_count() -> int:
    return backend.gpu_count()


def current_device() -> int:
    return _current[0]


def _index(device) -> int:
    if device is None:
        return _current[0]
    if isinstance(device, int):
        return device
    d = backend.device(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return d.index if d.index is not None else _current[0]


def _check(index: int) -> None:
    n = backend.gpu_count()
    if n == 0:
        backend.check_device(backend.device("cuda", index))  # raises the no-GPU explanation
    if not 0 <= index < n:
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {index}; "
                           f"{n} device(s) available)")


def set_device(device) -> None:
    i = _index(device)
    _check(i)
    _current[0] = i


@contextlib.contextmanager
def device(device):
    """``with cuda.device(i):`` makes ``i`` the current device for the block, then restores."""
    i = _index(device)
    if i >= 0:
        _check(i)
    old = _current[0]
    _current[0] = i if i >= 0 else old
    try:
        yield
    finally:
        _current[0] = old


def _dev(device=None):
    return backend.device("cuda", _index(device))


def memory_allocated(device=None) -> int:
    return memory.memory_allocated(_dev(device))


def max_memory_allocated(device=None) -> int:
    return memory.max_memory_allocated(_dev(device))


def reset_peak_memory_stats(device=None) -> None:
    memory.reset_peak_memory_stats(_dev(device))


reset_max_memory_allocated = reset_peak_memory_stats


def synchronize(device=None) -> None:
    """Wait for the device's queued work (cupy), a no-op on the simulated GPU."""
    if backend.is_real_gpu(_dev(device)):
        xp = backend.xp_of(_dev(device))
        xp.cuda.Device(_index(device)).synchronize()


def empty_cache() -> None:
    """inplace_lab frees a storage when its last tensor dies; cupy's pool is emptied too."""
    if is_available() and backend.is_real_gpu(_dev()):
        backend.xp_of(_dev()).get_default_memory_pool().free_all_blocks()
