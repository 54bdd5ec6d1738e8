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

import builtins as _builtins
import math as _math
import sys as _sys

from inplace_lab import autograd as _autograd
from inplace_lab.autograd.node import edge_of as _edge_of
from inplace_lab import dtypes as _dtypes
from inplace_lab import facade as _facade
from inplace_lab import policy as _policy
from inplace_lab.ops import dispatch as _dispatch
from inplace_lab.ops.table import OPS as _OPS
from inplace_lab.tensor import Tensor as _Core
from inplace_lab.version import VersionCounter as _VersionCounter

from . import api_names as _api
from . import inplace as _inplace
from . import more as _more
from . import numeric as _numeric
from . import selection as _selection
from . import tensor as _tensor_mod
from . import views
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
    """``paddle.grad``: the gradients of ``outputs`` w.r.t. ``inputs`` as a list.

    As Paddle: outputs that stop gradient contribute nothing (no error); an input that the
    outputs do not reach is None with ``allow_unused=True``, else Paddle's ValueError;
    every gradient is a contiguous tensor of its own; no node is released (a backward or
    another grad through the same graph works, ``retain_graph`` or not).
    """
    single = isinstance(outputs, _Core)
    outs = [outputs] if single else list(outputs)
    ins = [inputs] if isinstance(inputs, _Core) else list(inputs)
    gos = None if grad_outputs is None else (
        [grad_outputs] if isinstance(grad_outputs, _Core) else list(grad_outputs))
    _refuse_duplicates(ins, "inputs")  # (Paddle checks the inputs first)
    _refuse_duplicates(outs, "outputs")
    keep = [i for i, o in enumerate(outs) if o._requires_grad]
    edges = [_edge(t) for t in ins]
    used = [i for i, e in enumerate(edges) if e is not None]
    res = [None] * len(ins)
    if keep and used:
        kept = [outs[i] for i in keep]
        roots = _autograd.make_root_grads(kept, [None if gos is None else gos[i] for i in keep])
        got = _autograd.grad_of_edges(kept, roots, [edges[i] for i in used],  # (Paddle's grad
                                      retain_graph=True, create_graph=create_graph)  # releases
        for i, g in zip(used, got):  # no node, whatever retain_graph says: a later backward works)
            res[i] = g
    for i, g in enumerate(res):
        if g is None and not allow_unused:
            raise ValueError(f"(InvalidArgument) The {i}-th input does not appear in the backward "
                             "graph. Please check the input tensor or set allow_unused=True to get "
                             "None result.")
        if g is not None and not views.is_contiguous(g):
            res[i] = _Core.contiguous(g)
        if res[i] is not None:
            res[i]._policy = POLICY
            if res[i]._vc.version:  # Paddle's gradients are new tensors (accumulation untold)
                res[i]._vc = _VersionCounter()
    return res


def _edge(t):
    """Where ``paddle.grad`` reads t's gradient: its node, also after ``stop_gradient = True``
    was set on it once the graph was built (Paddle keeps a tensor's node and its leaf's
    accumulation node), or None when t never took part (Paddle's "does not appear")."""
    if t._requires_grad:
        return _edge_of(t)
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    acc = t._grad_acc() if t._grad_acc is not None else None
    return None if acc is None else (acc, 0)


def _refuse_duplicates(tensors, what):
    """Paddle's grad refuses one tensor twice among its inputs or outputs (a whole-tensor slice
    ``x[:]`` is ``x`` itself), naming it by its C++ name."""
    seen = set()
    for t in tensors:
        if id(t) in seen:
            raise RuntimeError(
                f"(AlreadyExists) {what} contain duplicate tensor {t._cpp_name()}, please check "
                f"{what} carefully.\n  [Hint: Expected visited_ins.count(auto_grad_meta) == 0, but "
                "received visited_ins.count(auto_grad_meta):1 != 0:0.] "
                "(at /paddle/paddle/fluid/eager/backward.cc:220)\n")
        seen.add(id(t))


def _function(name, spec):
    """A paddle.X function for a table op (Paddle's argument names translated)."""
    order = _api.FUNCTION_ARGS.get(name)
    if order is not None:  # (Paddle's parameter order differs from the op's)
        return _tensor_mod.paddle_signature(name, spec, order)
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


# Paddle's semantics for names the op table answers with PyTorch's (returns, defaults, axes).
_PADDLE_SEMANTICS = {}
for _mod in (_selection, _numeric):
    for _n in _mod.NAMES:
        _PADDLE_SEMANTICS[_n] = globals()[_n] = getattr(_mod, _n)
for _n in _api.SEMANTICS_METHODS:  # (x.max(axis) is paddle.max(x, axis))
    setattr(Tensor, _n, _PADDLE_SEMANTICS[_n])
for _n in _more.NAMES:  # (take_along_axis, gather_nd, ... : paddle/more.py)
    globals()[_n] = getattr(_more, _n)
for _n in _more.METHODS:
    setattr(Tensor, _n, getattr(_more, _n))
for _n, _m in _more.TENSOR_METHODS.items():
    setattr(Tensor, _n, _m)


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


from .views import (as_strided, broadcast_to, chunk, expand, expand_as, reshape, split,  # noqa: E402,F401
                    unstack, view)


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """``paddle.matmul``: ``transpose_x``/``transpose_y`` swap the last two dims first;
    shapes are checked as Paddle's MatmulInferMeta and kernel do, with their words."""
    _check_matmul(list(x.shape), list(y.shape), transpose_x, transpose_y)
    _policy.check_paddle_kernel(_OPS["mm"], x)
    if transpose_x and x.ndim >= 2:
        x = _Core.transpose(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = _Core.transpose(y, -1, -2)
    return _Core.matmul(x, y)


Tensor.matmul = matmul


def _check_matmul(xs, ys, tx, ty) -> None:
    nx, ny = len(xs), len(ys)
    if not nx or not ny:
        return  # (the core's error: Paddle's 0-D message is not reproduced)
    ix = 0 if nx == 1 else (nx - 2 if tx else nx - 1)
    iy = 0 if ny == 1 else (ny - 1 if ty else ny - 2)
    if xs[ix] != ys[iy]:
        raise ValueError(
            f"(InvalidArgument) In operator matmul, the [{ix}] dimension of Input(X) must be "
            f"equal to the [{iy}] dimension of Input(Y). But receiving the [{ix}]dimension of "
            f"Input(X) is [{xs[ix]}], and the [{iy}] dimension of Input(Y) is [{ys[iy]}].\n  "
            f"[Hint: Expected K_lhs == K_rhs, but received K_lhs:{xs[ix]} != K_rhs:{ys[iy]}.] "
            "(at /paddle/paddle/phi/infermeta/binary.cc:3087)\n")
    n = _builtins.max(nx, ny)  # (max here is paddle.max)
    bx = [1] * (n - nx) + (xs[:-2] if nx > 2 else [1] * (nx - 1))
    by = [1] * (n - ny) + (ys[:-2] if ny > 2 else [1] * (ny - 1))
    for i, (a, b) in enumerate(zip(bx, by)):
        if a != b and a > 1 and b > 1:
            raise ValueError(
                "(InvalidArgument) Input(X) and Input(Y) has error dim. X_broadcast's "
                f"shape[{i}] must be equal to Y_broadcast's shape[{i}], or X_broadcast's "
                f"shape[{i}] <= 1, or Y_broadcast's shape[{i}] <= 1, but received X_broadcast's "
                f"shape[{i}] = [{a}]received Y_broadcast's shape[{i}] = [{b}].\n  [Hint: "
                "Expected x_bd_dims[i] == y_bd_dims[i] || x_bd_dims[i] <= 1 || y_bd_dims[i] <= 1 "
                "== true, but received x_bd_dims[i] == y_bd_dims[i] || x_bd_dims[i] <= 1 || "
                "y_bd_dims[i] <= 1:0 != true:1.] (at "
                "/paddle/paddle/phi/kernels/impl/matmul_kernel_impl.h:63)\n")


def assign(x, output=None):
    """``paddle.assign``: a copy of x (recorded: gradients flow back to x); numbers and
    arrays become a new tensor. ``output`` takes the copy's values, dtype, shape and
    history in place, one version bump and no leaf check, as Paddle's assign_out_."""
    if output is not None and output is x:
        return output  # (Paddle: nothing to do, no version bump)
    r = _Core.clone(x) if isinstance(x, _Core) else to_tensor(x)
    if output is None:
        return r
    if r._dtype is not output._dtype and not output.is_contiguous():
        # Paddle's kernel retypes the strided output over its bytes, then its write-back (or
        # the shape check first) refuses (seed 54286)
        was = output._dtype.name
        _inplace.retype_over_bytes(output, r._dtype)
        _inplace.check_strided_copy(output, r)
        raise _inplace.retrieve_error(was, r._dtype.name)
    _inplace.check_strided_copy(output, r)  # (a strided output of another shape: refused)
    if r._dtype is not output._dtype:  # no buffer of output's holds the new dtype
        return _inplace._take_result(output, r, leaf_check=False)
    _inplace.copy_(output, r)  # in output's buffer when it fits (a view writes its base)
    output._vc.bump()
    return _inplace.adopt_history(output, r)


def t(input, name=None):
    return Tensor.t(input)


def cast(x, dtype):
    """``paddle.cast``: a new tensor (even to the dtype x has), CastGradNode."""
    return Tensor.cast(x, dtype)


def transpose(x, perm, name=None):
    return Tensor.transpose(x, perm)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    return Tensor.flatten(x, start_axis, stop_axis)


def unsqueeze(x, axis, name=None):
    return Tensor.unsqueeze(x, axis)


def squeeze(x, axis=None, name=None):
    return Tensor.squeeze(x, axis)


def numel(x, name=None):
    return _tensor_mod.numel_tensor(x)


from . import autograd, device, linalg, nn, optimizer  # noqa: E402,F401
from . import io, metric, regularizer  # noqa: E402,F401
from .nn.parameter import ParamAttr  # noqa: E402,F401
from .tensor import honour_core_calls as _honour_core_calls  # noqa: E402

from . import intmath as _intmath  # noqa: E402

_intmath.install(globals(), Tensor)  # (Paddle's scale/frac/neg on integer and bool tensors)
_honour_core_calls()  # (after every Paddle-signature method above is in place)

__version__ = "3.3.1+inplace_lab"

# Paddle's constants and dtype aliases (last: ``float`` and ``int`` shadow the builtins here).
e, pi, inf, nan, newaxis = _math.e, _math.pi, _math.inf, _math.nan, None
float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
cfloat = complex64
cdouble = complex128

__getattr__ = _facade.missing_attribute("paddle", _sys.modules[__name__])
