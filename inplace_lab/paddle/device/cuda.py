"""``paddle.device.cuda``: inplace_lab's exact byte accounting for the GPU device.

Works on a real GPU (cupy) and on the simulated one (``inplace_lab.set_simulated_gpu``):
``relu(x)`` of a [1, 64, 512, 512] float32 tensor peaks at 134,217,728 bytes,
``relu_(x)`` at 67,108,864.
"""
from __future__ import annotations

from inplace_lab import backend, memory


def _dev(device=None):
    if device is None:
        return backend.device("cuda:0")
    if isinstance(device, int):
        return backend.device("cuda", device)
    if hasattr(device, "_dev"):
        return device._dev
    return backend.device(str(device))


def device_count() -> int:
    return backend.gpu_count()


def memory_allocated(device=None) -> int:
    return memory.memory_allocated(_dev(device))


def max_memory_allocated(device=None) -> int:
    return memory.max_memory_allocated(_dev(device))


def reset_max_memory_allocated(device=None) -> None:
    memory.reset_peak_memory_stats(_dev(device))


def empty_cache() -> None:
    """Storages are freed when their last tensor dies; there is no cache."""


def synchronize(device=None) -> None:
    """Kernels finish before they return here."""
