"""``paddle.device``: the current device and ``paddle.device.cuda`` memory statistics."""
from __future__ import annotations

from ..creation import get_device, set_device  # noqa: F401
from . import cuda  # noqa: F401


def is_compiled_with_cuda() -> bool:
    from inplace_lab import backend

    return backend.gpu_count() > 0
