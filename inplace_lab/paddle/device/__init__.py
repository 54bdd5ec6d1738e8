"""``paddle.device``: the current device and ``paddle.device.cuda`` memory statistics."""
from __future__ import annotations

from ..creation import get_device, set_device  # noqa: F401
from . import cuda  # noqa: F401


def is_compiled_with_cuda() -> bool:
    from inplace_lab import backend

    return backend.gpu_count() > 0


def device_count() -> int:
    """GPUs here (cupy's, or the simulated one)."""
    from inplace_lab import backend

    return backend.gpu_count()


def is_available() -> bool:
    return device_count() >= 1


def get_all_device_type() -> list:
    return ["gpu"] if device_count() else []


def get_available_device() -> list:
    return [f"gpu:{i}" for i in range(device_count())]


def synchronize(device=None) -> None:
    """Nothing to wait for on the CPU (a GPU's stream is synchronised by cupy)."""
    cuda.synchronize(device) if device_count() else None


def get_default_device():
    from ..more import get_default_device as _get

    return _get()


def set_default_device(device) -> None:
    from ..more import set_default_device as _set

    _set(device)


def manual_seed(seed):
    from ..more import manual_seed as _seed

    return _seed(seed)
