"""What the framework facades (``inplace_lab.torch``, ``inplace_lab.paddle``) share.

A facade adds no maths: it translates names, signatures, printing and policy, and
sends every call to the one dispatcher. This module holds the translation that
reads the op table (``OPS``, ``ops.functions``) at the moment of the call, so an
op another part of the library registers later is picked up without a list here.

>>> from inplace_lab.facade import resolve
>>> resolve("subtract_").name
'sub'
"""
from __future__ import annotations

import types
from typing import Callable, Optional

from .ops import dispatch
from .policy import core_calls
from .ops import functions as _functions
from .ops.table import OPS, OpSpec
from .tensor import Tensor


def op_index() -> dict:
    """Every name and alias of the op table -> its OpSpec (built fresh: the table may grow)."""
    index = {}
    for spec in OPS.values():
        for name in (spec.name,) + tuple(spec.aliases):
            index.setdefault(name, spec)
    return index


def resolve(name: str, renames: Optional[dict] = None) -> Optional[OpSpec]:
    """The table op behind a framework name (``clip_`` -> clamp, ``gammaln`` -> lgamma).

    A trailing ``_`` is ignored; ``renames`` maps framework-only names to table names.
    """
    base = name[:-1] if name.endswith("_") else name
    if renames and base in renames:
        base = renames[base]
    return op_index().get(base)


def function(name: str) -> Optional[Callable]:
    """The public callable ``inplace_lab.<name>`` if the op table installed one."""
    return _functions.get(name)


def adopt(obj, policy: str):
    """Stamp a facade's policy on a freshly created tensor (or every tensor in a tuple/list/dict)."""
    if isinstance(obj, Tensor):
        obj._policy = policy
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            adopt(o, policy)
    elif isinstance(obj, dict):  # a loaded state_dict
        for o in obj.values():
            adopt(o, policy)
    return obj


def creator(fn: Callable, policy: str, name: Optional[str] = None) -> Callable:
    """Wrap a core creation function so its tensors belong to the facade."""

    def make(*args, **kwargs):
        return adopt(fn(*args, **kwargs), policy)

    make.__name__ = make.__qualname__ = name or fn.__name__
    make.__doc__ = fn.__doc__
    make.__wrapped__ = fn
    return make


def inplace_call(spec: OpSpec, args: tuple, kwargs: dict):
    """``spec``'s in-place form, through the dispatcher (checks, version bump, graph)."""
    if not spec.inplace:
        raise NotImplementedError(
            f"{spec.name}_: the op table has no in-place form of {spec.name!r} yet")
    return dispatch.call_inplace(spec, args, kwargs)


def missing_attribute(module_label: str, module: types.ModuleType) -> Callable:
    """A module ``__getattr__`` that words the error as the real framework does.

    ``torch.add_`` -> ``AttributeError: module 'torch' has no attribute 'add_'``.
    """

    def __getattr__(name):
        raise AttributeError(f"module '{module_label}' has no attribute '{name}'")

    return __getattr__


class Hidden:
    """A class attribute that reads as absent (the framework has no such method).

    Paddle tensors share ``inplace_lab.Tensor``'s methods; names Paddle does not have
    (``relu_``, ``exp2_`` ...) are hidden on ``paddle.Tensor`` with Paddle's error.
    """

    def __init__(self, cls_label: str, name: str = ""):
        self.cls_label = cls_label
        self.name = name

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is not None and core_calls[0]:  # the core's own code: its method (see policy)
            return getattr(Tensor, self.name).__get__(obj, owner)
        raise AttributeError(f"'{self.cls_label}' object has no attribute '{self.name}'")
