"""``import inplace_lab.paddle as paddle``: Paddle 3.3.1's names and rules over inplace_lab.

Tensors made here carry the ``paddle`` policy whatever the session policy is:
Paddle's leaf rule and error texts, ``+=`` that rebinds instead of writing in
place, gradients of ones for non-scalar ``backward()``, no CopySlices rewrite of a
base. They are ``paddle.Tensor`` objects (stop_gradient, inplace_version, Paddle's
printing and signatures). Module-level in-place functions are exactly those
Paddle exports (``paddle.sin_``, ``paddle.nn.functional.relu_``); ``paddle.add_``
raises AttributeError, as only ``Tensor.add_`` exists in 3.3.1.

>>> import inplace_lab.paddle as paddle
>>> x = paddle.to_tensor([1., 2., 3.])
>>> _ = x.add_(paddle.to_tensor([1., 1., 1.]), alpha=1)
>>> x.inplace_version
1
"""
from __future__ import annotations

import sys as _sys

from inplace_lab import autograd as _autograd
from inplace_lab import dtypes as _dtypes
from inplace_lab import facade as _facade
from inplace_lab.ops import dispatch as _dispatch

from . import api_names as _api
from . import inplace as _inplace
from .creation import (arange, empty, empty_like, eye, from_numpy, full, full_like,  # noqa: F401
                       get_device, is_tensor, linspace, normal, ones, ones_like, rand, randint,
                       randn, randperm, seed, set_device, to_tensor, uniform, zeros, zeros_like)
from .tensor import Place, Size, Tensor, translate_kwargs  # noqa: F401
from .serialization import load, save  # noqa: F401  (inplace_lab's file format)

POLICY = "paddle"

# Paddle's dtype singletons (str 'paddle.float32'); the tensors here show the same objects.
globals().update(_dtypes.FACADE[POLICY])
bool = _dtypes.FACADE[POLICY]["bool"]  # noqa: A001
dtype = _dtypes.PaddleDtype

no_grad = _autograd.no_grad
enable_grad = _autograd.enable_grad
set_grad_enabled = _autograd.set_grad_enabled
is_grad_enabled = _autograd.is_grad_enabled


def get_default_dtype() -> str:
    return _dtypes.get_default_dtype().name


def set_default_dtype(d) -> None:
    _dtypes.set_default_dtype(_dtypes.from_any(d))


def CPUPlace():
    from inplace_lab import backend

    return Place(backend.CPU)


def CUDAPlace(index=0):
    from inplace_lab import backend

    return Place(backend.device("cuda", index))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """``paddle.grad``: the gradients of ``outputs`` w.r.t. ``inputs`` as a list."""
    return list(_autograd.grad(outputs, inputs, grad_outputs, retain_graph=retain_graph,
                               create_graph=create_graph, allow_unused=allow_unused))


def _function(name, spec):
    """A paddle.X function for a table op (Paddle's argument names translated)."""
    sig_name = name + "_"

    def fn(x, *args, **kwargs):
        if spec.kind == "view":
            return _dispatch.call_view(spec, (x,) + args, translate_kwargs(spec, kwargs))
        if sig_name in _api.SIGNATURES:
            return _dispatch.call(spec, (x,), _inplace.translate(spec, sig_name, args, kwargs))
        return _dispatch.call(spec, (x,) + args, translate_kwargs(spec, kwargs))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"paddle.{name}: the {spec.name!r} op."
    return fn


def _export():
    g = globals()
    for name in _api.MODULE_FUNCTIONS:
        if name in g:
            continue
        spec = _facade.resolve(name, _inplace.RENAMES)
        if spec is not None:
            g[name] = _function(name, spec)
    for name in _api.MODULE_INPLACE:
        g.setdefault(name, _inplace.adapter(name))


_export()


def reshape(x, shape, name=None):
    return Tensor.reshape(x, shape)


def transpose(x, perm, name=None):
    return Tensor.transpose(x, perm)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    return Tensor.flatten(x, start_axis, stop_axis)


def unsqueeze(x, axis, name=None):
    return Tensor.unsqueeze(x, axis)


def squeeze(x, axis=None, name=None):
    return Tensor.squeeze(x, axis)


def numel(x, name=None):
    return to_tensor(x.numel())


from . import autograd, device, nn, optimizer  # noqa: E402,F401

__version__ = "3.3.1+inplace_lab"

__getattr__ = _facade.missing_attribute("paddle", _sys.modules[__name__])
