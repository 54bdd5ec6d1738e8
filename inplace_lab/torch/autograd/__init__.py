"""``torch.autograd``: inplace_lab.autograd under PyTorch's names, plus ``Variable``.

Whatever inplace_lab.autograd offers (``backward``, ``grad``, ``Function``,
``gradcheck`` ...) is reached through it, so additions there appear here.
"""
from __future__ import annotations

import warnings

import inplace_lab.autograd as _core
from inplace_lab.tensor import Tensor as _Tensor

from . import graph  # noqa: F401


def Variable(data, requires_grad: bool = False, volatile: bool = False):
    """PyTorch 2.13's deprecated ``Variable``: a new leaf on ``data``'s storage.

    ``volatile`` was removed long ago: it warns and has no effect, as in PyTorch.
    """
    if volatile:
        warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                      "instead.", UserWarning, stacklevel=2)
    if not isinstance(data, _Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    v = _Tensor._alias(data)
    v._vc = type(data._vc)()  # a fresh counter, like the C++ Variable constructor
    if requires_grad:
        v.requires_grad_(True)
    return v


def __getattr__(name):
    try:
        return getattr(_core, name)
    except AttributeError:
        import importlib

        try:
            return importlib.import_module(f"inplace_lab.autograd.{name}")
        except ImportError:
            pass
    raise AttributeError(f"module 'torch.autograd' has no attribute '{name}'")
