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
for _sub in __import__("pkgutil").iter_modules(utils.__path__):  # `from torch.nn.utils.rnn
    _sys.modules[f"{__name__}.utils.{_sub.name}"] = importlib.import_module(  # import ...` too
        f"{utils.__name__}.{_sub.name}")

_POLICY = "pytorch"
_by_core: dict = {}  # core class -> its facade class


def _is_core_layer(c) -> bool:
    """A module class of inplace_lab.nn (not Module itself, not a user's or a facade's class)."""
    return c.__module__.startswith("inplace_lab.nn.") and c.__name__ != "Module" and \
        isinstance(c, type) and not c.__dict__.get("_facade", False)


def _facade_of(cls):
    """The facade class of a core module class, made once. Its bases include the facades of
    cls's own core bases, so a Transformer's NonDynamicallyQuantizableLinear is a
    ``torch.nn.Linear`` too."""
    f = _by_core.get(cls)
    if f is None:
        f = _by_core[cls] = _facade_module(cls)
    return f


def _adopt(module) -> None:
    """A facade module's whole tree speaks torch: submodules that core code built (the
    Transformer's Linear and LayerNorm layers, MultiheadAttention's out_proj) become their
    facade classes (``isinstance(m, torch.nn.Linear)`` holds, as an init loop expects) and
    every parameter and buffer carries the torch policy (its dtype prints torch.float32)."""
    for m in module.modules():
        if _is_core_layer(type(m)):
            m.__class__ = _facade_of(type(m))  # (a subclass adding no state: safe to swap)
        for t in itertools.chain(m.parameters(recurse=False), m.buffers(recurse=False)):
            t._policy = _POLICY


def _facade_module(cls):
    """``cls`` whose tree carries the torch policy and facade classes once built (``_adopt``)."""

    def __init__(self, *args, **kwargs):
        cls.__init__(self, *args, **kwargs)
        _adopt(self)

    bases = (cls,) + tuple(_facade_of(b) for b in cls.__bases__ if _is_core_layer(b))
    return type(cls.__name__, bases, {"__init__": __init__, "__module__": __name__, "_facade": True,
                                      "__qualname__": cls.__name__, "__doc__": cls.__doc__})


def __getattr__(name):
    try:
        core = importlib.import_module("inplace_lab.nn")
    except ImportError:
        core = None
    if core is not None and hasattr(core, name):
        val = getattr(core, name)
        if isinstance(val, type) and issubclass(val, core.Module) and val is not core.Module:
            return _facade_of(val)
        return val
    for f in list(_by_core.values()):  # a class only a tree adopted (pickle finds it by name)
        if f.__name__ == name:
            return f
    raise AttributeError(f"module 'torch.nn' has no attribute '{name}'")
