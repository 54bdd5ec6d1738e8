"""inplace_lab: a tensor library that makes views, in-place ops and autograd memory visible.

PyTorch's names throughout (``tensor``, ``zeros``, ``Tensor.add_``, ``_version``,
``grad_fn``...). Every op is an entry of ``inplace_lab.ops.table.OPS``.

>>> import inplace_lab as il
>>> x = il.zeros(2, 3)
>>> v = x[0]
>>> _ = v.add_(1)
>>> x._version, v._base is x
(1, True)
"""
from __future__ import annotations

import warnings as _warnings

# numpy's floating-point warnings (x / 0, log(0), sqrt(-1)) raised inside our kernels: PyTorch
# returns inf/nan silently, so do we. Only warnings attributed to inplace_lab's own modules.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"inplace_lab(\.|$)")

from . import backend, dtypes, errors, hooks, layout, memory  # noqa: F401
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference,  # noqa: F401
                       is_inference_mode_enabled, no_grad, set_grad_enabled)
from .backend import device, get_default_device, set_default_device, set_simulated_gpu  # noqa: F401
from .memory import (max_memory_allocated, memory_allocated, memory_snapshot,  # noqa: F401
                     reset_peak_memory_stats)
from .creation import (arange, as_tensor, empty, empty_like, empty_strided, eye,  # noqa: F401
                       from_numpy, full,
                       full_like, linspace, manual_seed, ones, ones_like, rand, rand_like, randint,
                       randint_like, randn, randn_like, randperm, seed, tensor, zeros, zeros_like)
from .dtypes import (bool_ as bool, complex64, complex128, float16, float32,  # noqa: F401,A001
                     float64, get_default_dtype, int8, int16, int32, int64, set_default_dtype,
                     uint8)
from .dtypes import dtype  # noqa: F401
from .policy import get_inplace_policy, inplace_policy, set_inplace_policy  # noqa: F401
from .storage import Storage  # noqa: F401
from .tensor import Size, Tensor  # noqa: F401

from . import ops as _ops  # noqa: E402

_ops.install(Tensor)
globals().update({k: v for k, v in _ops.functions.items() if k not in globals()})

half, double, long, short = float16, float64, int64, int16
cfloat, cdouble = complex64, complex128
from . import autograd  # noqa: E402,F401
from . import cuda, io, multiprocessing, nn, optim, utils  # noqa: E402,F401
from .io import load, save  # noqa: E402,F401
from . import viz  # noqa: E402,F401
from .trace import Trace, trace  # noqa: E402,F401

__version__ = "0.1.0"


def inspect(*tensors, **kw):
    """A live Inspector widget of ``tensors`` (see ``inplace_lab.widgets.inspect``)."""
    from .widgets import inspect as _inspect  # Jupyter is imported only when asked for

    return _inspect(*tensors, **kw)


def load_ipython_extension(ip):
    """``%load_ext inplace_lab``: the ``%%inplace_trace`` magic and explained errors."""
    from .widgets.magic import load_ipython_extension as _load

    _load(ip)


def unload_ipython_extension(ip):
    from .widgets.magic import unload_ipython_extension as _unload

    _unload(ip)
