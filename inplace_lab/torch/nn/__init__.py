"""``torch.nn``: ``functional`` here; modules come from ``inplace_lab.nn`` when it exists.

A module class is handed out as a thin subclass whose parameters and buffers are torch
tensors (``torch.nn.Linear(2, 2).weight.dtype`` prints ``torch.float32``, as in PyTorch);
``torch.nn.Module`` itself is the core class, so ``isinstance(m, torch.nn.Module)`` holds
for every module.
"""
from __future__ import annotations

import importlib
import sys as _sys
import itertools

from . import functional  # noqa: F401
from inplace_lab.nn import utils  # noqa: E402,F401  (torch.nn.utils: clipping, vectors)

_sys.modules[__name__ + ".utils"] = utils  # `import torch.nn.utils` finds the same module

_POLICY = "pytorch"
_facade_classes: dict = {}


def _facade_module(cls):
    """``cls`` whose own parameters and buffers carry the torch policy once built."""

    def __init__(self, *args, **kwargs):
        cls.__init__(self, *args, **kwargs)
        for t in itertools.chain(self.parameters(recurse=False), self.buffers(recurse=False)):
            t._policy = _POLICY

    return type(cls.__name__, (cls,), {"__init__": __init__, "__module__": __name__,
                                       "__qualname__": cls.__name__, "__doc__": cls.__doc__})


def __getattr__(name):
    try:
        core = importlib.import_module("inplace_lab.nn")
    except ImportError:
        core = None
    if core is not None and hasattr(core, name):
        val = getattr(core, name)
        if isinstance(val, type) and issubclass(val, core.Module) and val is not core.Module:
            if name not in _facade_classes:
                _facade_classes[name] = _facade_module(val)
            return _facade_classes[name]
        return val
    raise AttributeError(f"module 'torch.nn' has no attribute '{name}'")
