"""``torch.cuda`` over inplace_lab's device accounting (a real GPU via cupy, or the simulated one).

``memory_allocated`` / ``max_memory_allocated`` are exact bytes of tensor storage on the
device, so the classic figure holds: ``relu(x)`` on a [1, 64, 512, 512] float32 tensor
peaks at 134,217,728 bytes, ``relu_(x)`` at 67,108,864.
"""
from __future__ import annotations

import contextlib

from inplace_lab import backend, memory


def is_available() -> bool:
    return backend.gpu_count() > 0


def device_count() -> int:
    return backend.gpu_count()


def current_device() -> int:
    return 0


def _dev(device=None):
    if device is None:
        return backend.device("cuda:0")
    return backend.device(device)


def memory_allocated(device=None) -> int:
    return memory.memory_allocated(_dev(device))


def max_memory_allocated(device=None) -> int:
    return memory.max_memory_allocated(_dev(device))


def reset_peak_memory_stats(device=None) -> None:
    memory.reset_peak_memory_stats(_dev(device))


reset_max_memory_allocated = reset_peak_memory_stats


def synchronize(device=None) -> None:
    """Kernels here finish before they return; nothing to wait for."""


def empty_cache() -> None:
    """inplace_lab frees a storage when its last tensor dies; there is no cache to empty."""


@contextlib.contextmanager
def device(index):
    """``with torch.cuda.device(0):`` (one device: the block runs unchanged)."""
    backend.check_device(backend.device("cuda", index if isinstance(index, int) else None)
                         if isinstance(index, int) else backend.device(index))
    yield
