"""``torch.nn``: ``functional`` here; modules come from ``inplace_lab.nn`` when it exists."""
from __future__ import annotations

import importlib

from . import functional  # noqa: F401


def __getattr__(name):
    try:
        core = importlib.import_module("inplace_lab.nn")
    except ImportError:
        core = None
    if core is not None and hasattr(core, name):
        return getattr(core, name)
    raise AttributeError(f"module 'torch.nn' has no attribute '{name}'")
