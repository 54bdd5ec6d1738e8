"""``import inplace_lab.torch as torch``: PyTorch 2.13's names over inplace_lab.

Tensors made here carry the ``pytorch`` policy (PyTorch's in-place rules and error
texts, whatever the session policy is), and every op result inherits it. Mixing
them with ``inplace_lab.paddle`` tensors in one op raises ``FacadeMismatchError``.

Only the module-level in-place functions PyTorch really exports are here
(``torch.relu_``, ``torch.sin_``); ``torch.add_`` raises AttributeError as in PyTorch.
Everything is looked up in the op table at import, nothing lists ops by hand.

>>> import inplace_lab.torch as torch
>>> x = torch.tensor([1., -2.])
>>> torch.relu_(x) is x, x._version
(True, 1)
"""
from __future__ import annotations

import sys as _sys
import types as _types

import inplace_lab as _il
from inplace_lab import creation as _creation
from inplace_lab import dtypes as _dtypes
from inplace_lab import facade as _facade
from inplace_lab.tensor import Tensor as _Tensor

from . import api_names as _api

POLICY = "pytorch"


def _export():
    """Fill this module from inplace_lab and the op table, under PyTorch's names only."""
    g = globals()
    torch_functions = set(_api.MODULE_FUNCTIONS)
    for name, val in vars(_il).items():
        if name.startswith("_") or name.endswith("_") or isinstance(val, _types.ModuleType):
            continue
        if callable(val) and not isinstance(val, type) and name not in torch_functions and \
                _facade.function(name) is val:
            continue  # an op the table has under a name PyTorch does not use (e.g. floor_mod)
        g[name] = val
    for name in torch_functions:  # an op-table op wins over a same-named inplace_lab helper
        fn = _facade.function(name)  # (torch.trace is the matrix trace, not il.trace the recorder)
        if fn is not None:
            g[name] = fn
    for name, fn in vars(_creation).items():
        if callable(fn) and getattr(fn, "__module__", None) == _creation.__name__ and \
                not name.startswith("_"):
            g[name] = _facade.creator(fn, POLICY)
    for name in _api.MODULE_INPLACE:
        fn = _facade.function(name)
        if fn is None and callable(getattr(_Tensor, name, None)):
            fn = _method_as_function(name)
        if fn is not None:
            g[name] = fn


def _method_as_function(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}(input, ...) is input.{name}(...)."
    return fn


_export()


def _export_dtypes():
    """PyTorch's dtype singletons (``torch.float32``, and ``torch.float`` is the same object)."""
    g = globals()
    faces = _dtypes.FACADE[POLICY]
    for name, val in vars(_il).items():
        if isinstance(val, _dtypes.dtype) and not name.startswith("_"):
            g[name] = faces[val.name]
    g["float"], g["int"] = faces["float32"], faces["int32"]  # (not in inplace_lab: builtins)
    g["dtype"] = _dtypes.TorchDtype


def get_default_dtype():
    """``torch.float32`` (or what ``set_default_dtype`` chose), as PyTorch's own dtype object."""
    return _dtypes.get_default_dtype()._facades[POLICY]


_export_dtypes()

Tensor = _Tensor
Size = _il.Size
from inplace_lab.autograd import (enable_grad, inference_mode, is_grad_enabled,  # noqa: E402,F401
                                  no_grad, set_grad_enabled)
from inplace_lab.backend import device  # noqa: E402,F401

from . import autograd, cuda, distributions, linalg, nn, special  # noqa: E402,F401
polygamma = special._torch_polygamma  # (n first: torch.polygamma(n, input) is input.polygamma(n))
from . import func  # noqa: E402,F401  (torch.func.functional_call)
from inplace_lab.autograd.anomaly import (is_anomaly_check_nan_enabled,  # noqa: E402,F401
                                          is_anomaly_enabled, set_anomaly_enabled)
from .info import finfo, iinfo, is_floating_point, is_tensor  # noqa: E402,F401
from inplace_lab import testing  # noqa: E402,F401
from inplace_lab import multiprocessing, optim, utils  # noqa: E402,F401
from inplace_lab.io import load as _load, save  # noqa: E402,F401

from inplace_lab.ops.tensor_extras import layout, strided  # noqa: E402,F401

load = _facade.creator(_load, POLICY, "load")  # what torch.load returns are torch tensors

# `import torch.optim` (and torch.optim.lr_scheduler ...) works too
for _name in ("optim", "optim.lr_scheduler", "utils", "utils.data", "utils.checkpoint",
              "utils.hooks", "multiprocessing", "testing"):
    _sys.modules[f"{__name__}.{_name}"] = _sys.modules[f"inplace_lab.{_name}"]

# torch.Generator: PyTorch's CPU generator (rng: the same seed, the same numbers)
Generator = utils.data.Generator
from . import backends, random, version  # noqa: E402  (flags; seeding; what this build is)
from .func import vmap  # noqa: E402,F401  (torch.vmap is torch.func.vmap)
from .compile import compile  # noqa: E402,F401  (eager: see compile.py)
from . import amp  # noqa: E402  (GradScaler; autocast)
autocast = amp.autocast
default_generator = random.default_generator

__version__ = version.__version__

from .more import *  # noqa: E402,F401,F403  (top-level names composed for torch: windows, atleast_nd ...)
from .misc import *  # noqa: E402,F401,F403  (constants, memory formats, print options, *_copy ...)

__getattr__ = _facade.missing_attribute("torch", _sys.modules[__name__])
