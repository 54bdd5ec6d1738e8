"""``torch.autograd.graph``: saved-tensor hooks and ``increment_version``.

Names come from ``inplace_lab.autograd.graph`` when it exists, else from where the
core keeps them (``saved.saved_tensors_hooks``).
"""
from __future__ import annotations

import importlib

from inplace_lab.autograd import saved as _saved


def _core_graph():
    try:
        return importlib.import_module("inplace_lab.autograd.graph")
    except ImportError:
        return None


def __getattr__(name):
    g = _core_graph()
    if g is not None and hasattr(g, name):
        return getattr(g, name)
    if name == "saved_tensors_hooks":
        return _saved.saved_tensors_hooks
    if name == "increment_version":
        return _increment_version
    raise AttributeError(f"module 'torch.autograd.graph' has no attribute '{name}'")


def _increment_version(tensor) -> None:
    """Report an out-of-band write (through ``.numpy()`` or ``.data``) to the version counter."""
    for t in tensor if isinstance(tensor, (list, tuple)) else (tensor,):
        t._vc.bump()
