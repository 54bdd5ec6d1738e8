"""``torch.amp``: ``GradScaler`` (torch 2.13's own, vendored: dynamic loss scaling, its checks
and messages) and ``autocast``.

Mixed precision itself is not implemented: ``autocast`` disabled (``enabled=False``, or a CUDA
autocast where there is no GPU, with torch's warning) runs its block as it is; enabled, it
raises a NotImplementedError saying so rather than run in full precision silently.
"""
from __future__ import annotations

import functools
import warnings

from inplace_lab import cuda as _cuda

from .grad_scaler import GradScaler, OptState  # noqa: F401

__all__ = ["GradScaler", "autocast"]


class autocast:
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = enabled
        if enabled and device_type == "cuda" and not _cuda.is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            raise NotImplementedError(
                f"inplace_lab has no mixed precision: torch.autocast({device_type!r}) would run "
                "matmuls and convolutions in a lower precision, which this library does not "
                "emulate. Run the block without autocast (or with enabled=False).")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return run
