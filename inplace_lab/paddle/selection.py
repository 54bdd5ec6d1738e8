"""Paddle 3.3.1's sorting, selection and order statistics over the core's torch-level ops.

The op table has these ops with PyTorch's semantics (``sort`` returns values and
indices, ``median`` is the lower median, ``cummax`` needs a dim, ``max(dim)`` returns
indices). Paddle differs in what it returns, in its defaults and in its argument
names, so each Paddle name here is a thin function over the core ops that answers as
Paddle does: ``axis``/``keepdim``, plain tuples, int64 indices (or the ``dtype``
asked for), values only where Paddle returns values only, and gradients that come
from the same recorded core ops. Ties between equal values may pick other indices
than Paddle's kernels (which use ``nth_element``-style selection); values never differ.
"""
from __future__ import annotations

import builtins

import numpy as np

from inplace_lab import dtypes
from inplace_lab.tensor import Tensor as _Core

import inplace_lab as _il


def _axes(axis, ndim):
    """Paddle's axis argument (None, int, list/tuple) as a sorted list of non-negative axes."""
    if axis is None:
        return list(range(ndim))
    axes = [axis] if isinstance(axis, int) else list(axis)
    return sorted(a % builtins.max(ndim, 1) for a in axes)


def _as_tuple(r):
    return tuple(r)


def _index_dtype(t, dtype):
    d = dtypes.from_any(dtype)
    return t if t._dtype is d else t.to(d)


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """``paddle.sort``: the sorted values only (Paddle's ``argsort`` gives the indices)."""
    return _il.sort(x, dim=axis, descending=descending, stable=stable)[0]


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    return _il.argsort(x, dim=axis, descending=descending, stable=stable)


def topk(x, k, axis=None, largest=True, sorted=True, name=None):  # noqa: A002
    """``paddle.topk``: ``axis=None`` is the last axis; a plain (values, int64 indices) tuple."""
    if isinstance(k, _Core):
        k = int(k.item())
    return _as_tuple(_il.topk(x, k, dim=-1 if axis is None else axis, largest=largest,
                              sorted=sorted))


def _check_median(x, axis, mode, fname="median"):
    if mode not in ("avg", "min"):
        raise ValueError(f"Mode {mode} is not supported. Must be avg or min.")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        raise ValueError("Axis list should not be empty.")
    if fname == "median" and axis is not None and x.ndim > 0 and (
            not isinstance(axis, int) or not -x.ndim <= axis < x.ndim):
        raise ValueError("In median, axis should be none or an integer in range "
                         "[-rank(x), rank(x)).")


def _to_last(x, axis, keepdim):
    """x with the reduced axes merged into one last axis, and the shape to give the result."""
    nd = x.ndim
    axes = _axes(axis, nd)
    if nd == 0:
        return _Core.reshape(x, (1,)), ()
    keep = [a for a in range(nd) if a not in axes]
    t = _Core.permute(x, keep + axes) if keep + axes != list(range(nd)) else x
    t = _Core.reshape(t, [x.shape[a] for a in keep] + [-1])
    out_shape = ([1 if a in axes else x.shape[a] for a in range(nd)] if keepdim
                 else [x.shape[a] for a in keep])
    return t, tuple(out_shape)


def _middle(x, ignore_nan):
    """The mean of the two middle values along the last axis (NaN as Paddle: any NaN -> NaN,
    or, with ``ignore_nan``, the median of the other values and NaN for an all-NaN row)."""
    vals = _il.sort(x, dim=-1, stable=True)[0]  # NaN sorts last
    nan = np.isnan(x.numpy()) if x._dtype.is_floating_point else np.zeros(x.shape, bool)
    n = x.shape[-1]
    cnt = (n - nan.sum(-1)) if ignore_nan else np.full(nan.shape[:-1], n)
    lo = np.maximum((cnt - 1) // 2, 0)[..., None]
    hi = np.maximum(cnt // 2, 0)[..., None]
    if lo.size and (lo == lo.flat[0]).all() and (hi == hi.flat[0]).all():
        a = _Core.narrow(vals, -1, int(lo.flat[0]), 1)
        b = _Core.narrow(vals, -1, int(hi.flat[0]), 1)
    else:
        a = _il.gather(vals, -1, _il.tensor(lo.astype(np.int64), device=x.device))
        b = _il.gather(vals, -1, _il.tensor(hi.astype(np.int64), device=x.device))
    m = (a + b) / 2
    if not ignore_nan and nan.any():  # Paddle: a row holding NaN has median NaN
        mask = _il.tensor(nan.any(-1, keepdims=True), device=x.device)
        m = _il.where(mask, _il.tensor(float("nan"), dtype=m.dtype, device=x.device), m)
    return _Core.squeeze(m, -1)


def _median(x, axis, keepdim, mode, ignore_nan):
    fname = "nanmedian" if ignore_nan else "median"
    _check_median(x, axis, mode, fname)
    single = axis is not None and isinstance(axis, int)
    if mode == "min":
        core = _il.nanmedian if ignore_nan else _il.median
        if single:
            v, i = core(x, dim=axis, keepdim=keepdim)
            return v, i
        t, shape = _to_last(x, axis, keepdim)
        return _Core.reshape(core(t, dim=-1)[0], shape)
    if not ignore_nan and x._dtype is not dtypes.float64:
        x = x.cast("float32")  # Paddle's avg median is float32 unless x is float64
    t, shape = _to_last(x, axis, keepdim)
    return _Core.reshape(_middle(t, ignore_nan), shape)


def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """``paddle.median``: ``mode='avg'`` averages the two middle values (float32 result unless
    x is float64); ``mode='min'`` is the lower median, with int64 indices when ``axis`` is an int."""
    return _kernel_named(_median(x, axis, keepdim, mode, False), "median")


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """``paddle.nanmedian``: the median of the non-NaN values (NaN for an all-NaN slice)."""
    return _kernel_named(_median(x, axis, keepdim, mode, True), "nanmedian")


def _cum(core, x, axis, dtype):
    if axis is None:
        x, axis = _Core.flatten(x), 0
    v, i = core(x, dim=axis)
    return v, _index_dtype(i, dtype)


def cummax(x, axis=None, dtype="int64", name=None):
    """``paddle.cummax``: over the flattened x when ``axis`` is None; indices of ``dtype``."""
    return _cum(_il.cummax, x, axis, dtype)


def cummin(x, axis=None, dtype="int64", name=None):
    return _cum(_il.cummin, x, axis, dtype)


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """``paddle.kthvalue``: ``axis=None`` is the last axis; a plain (values, indices) tuple."""
    return _as_tuple(_il.kthvalue(x, k, dim=-1 if axis is None else axis, keepdim=keepdim))


def mode(x, axis=-1, keepdim=False, name=None):
    return _as_tuple(_il.mode(x, dim=axis, keepdim=keepdim))


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", sorted=True, name=None):  # noqa: A002
    """``paddle.unique``: sorted distinct values of the flattened x, then (as asked) the index
    of each one's first occurrence, the inverse and the counts, as ``dtype``. No gradient."""
    if axis is not None:
        raise NotImplementedError("paddle.unique(axis=...) is not implemented in inplace_lab's "
                                  "paddle facade: only axis=None (the flattened x)")
    out, inverse, counts = _il.unique(x, sorted=True, return_inverse=True, return_counts=True)
    res = [_Core.detach(out)]
    if return_index:  # the first occurrence of each value: numbers derived from the inverse
        inv = inverse.numpy().reshape(-1)
        first = np.full(out.shape[0], inv.size, np.int64)
        np.minimum.at(first, inv, np.arange(inv.size))
        res.append(_il.tensor(first, device=x.device))
    if return_inverse:
        res.append(_Core.flatten(inverse))
    if return_counts:
        res.append(counts)
    for i in range(1, len(res)):
        res[i] = _index_dtype(res[i], dtype)
    for r in res:
        r._policy = "paddle"
    return res[0] if len(res) == 1 else tuple(res)


def _reduce(core, x, axis, keepdim):
    if axis is None:
        axis = list(range(x.ndim))
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        axis = list(range(x.ndim))
    return core(x, dim=axis if isinstance(axis, int) else tuple(axis), keepdim=keepdim)


def _check_reduced_sizes(x, axis):
    """Paddle's max/min infer-meta: no reduced axis may be empty (the first such one is named)."""
    shape = x._shape
    if 0 not in shape:
        return
    axes = _axes(axis if axis is None or isinstance(axis, int) or len(axis) else None, len(shape))
    for a in axes:
        if shape[a] == 0:
            raise ValueError(
                f"(InvalidArgument) Cannot perform reduction along an axis ({a}) that has a size "
                "of 0. \n  [Hint: Expected x.dims().at(i) != 0, but received x.dims().at(i):0 == "
                "0:0.] (at /paddle/paddle/phi/infermeta/unary.cc:4227)\n")


def max(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """``paddle.max``: values only; equal maxima share the gradient (as ``amax``)."""
    _check_reduced_sizes(x, axis)
    return _reduce(_il.amax, x, axis, keepdim)


def min(x, axis=None, keepdim=False, name=None):  # noqa: A001
    _check_reduced_sizes(x, axis)
    return _reduce(_il.amin, x, axis, keepdim)


def amax(x, axis=None, keepdim=False, name=None):
    return _kernel_named(_reduce(_il.amax, x, axis, keepdim), "paddle_amax")


def amin(x, axis=None, keepdim=False, name=None):
    return _kernel_named(_reduce(_il.amin, x, axis, keepdim), "paddle_amin")


def _kernel_named(r, kernel):
    """The (first) result recorded under Paddle's kernel name (AmaxGradNode, MedianGradNode
    ...): a labelled copy whose gradient passes through."""
    from .numeric import _as_kernel

    if isinstance(r, tuple):
        return (_as_kernel(r[0], kernel),) + tuple(r[1:])
    return _as_kernel(r, kernel)


def index_select(x, index, axis=0, name=None):
    """``paddle.index_select``: an index may count from the end (``-1`` is the last), as
    Paddle's kernel allows; one out of ``[-n, n)`` is its InvalidArgument."""
    n = x._shape[axis] if x._shape else 1
    idx = np.asarray(index.numpy() if isinstance(index, _Core) else index)
    bad = idx[(idx < -n) | (idx >= n)] if idx.size else idx
    if bad.size:
        v = int(bad.reshape(-1)[0])
        hint = (f"index_data[i] >= -input_dim[dim], but received index_data[i]:{v} < "
                f"-input_dim[dim]:{-n}.] (at /paddle/paddle/phi/kernels/cpu/index_select_impl.h:86)"
                if v < 0 else
                f"index_data[i] < input_dim[dim], but received index_data[i]:{v} >= "
                f"input_dim[dim]:{n}.] (at /paddle/paddle/phi/kernels/cpu/index_select_impl.h:96)")
        raise ValueError(
            f"(InvalidArgument) Variable value (index) of OP(index_select) expected >= {-n} and < "
            f"{n}, but got {v}. Please check input value.\n  [Hint: Expected {hint}\n")
    if isinstance(index, _Core) and idx.size and (idx < 0).any():
        index = index + (index < 0).astype(index.dtype) * n  # (a new index tensor; x untouched)
    return _il.index_select(x, axis, index)


def logsumexp(x, axis=None, keepdim=False, name=None):
    return _reduce(_il.logsumexp, x, axis, keepdim)


def cumsum(x, axis=None, dtype=None, name=None):
    """``paddle.cumsum``: over the flattened x when ``axis`` is None."""
    if axis is None:
        x, axis = _Core.flatten(x), 0
    return _il.cumsum(x, dim=axis, dtype=None if dtype is None else dtypes.from_any(dtype))


def cumprod(x, dim=None, dtype=None, name=None):
    if dim is None:
        x, dim = _Core.flatten(x), 0
    return _il.cumprod(x, dim=dim, dtype=None if dtype is None else dtypes.from_any(dtype))


def check_where(condition, x, y) -> None:
    """What ``paddle.where``/``where_`` check before the kernel runs: a bool condition, the
    broadcast of x with y and then with the condition (Paddle's words), and the kernel's
    type promotion between x and y (0-D tensors included: int with float is a TypeError)."""
    from inplace_lab import policy

    if condition._dtype is not dtypes.bool_:
        raise ValueError("The `condition` is expected to be a boolean Tensor, but got a Tensor "
                         f"with dtype paddle.{condition._dtype.name}")
    xs, ys = tuple(x._shape), tuple(y._shape)
    policy.check_paddle_broadcast(xs, ys)
    policy.check_paddle_broadcast(tuple(np.broadcast_shapes(xs, ys)), tuple(condition._shape))
    policy.check_paddle_promotion(x, y, inplace=True)


def where(condition, x=None, y=None, name=None):
    """``paddle.where``: a Python number becomes a tensor first (int64, bool, or the default
    float dtype), so ``where(c, 1.5, int_tensor)`` is Paddle's promotion TypeError; with
    neither x nor y it is ``nonzero(condition, as_tuple=True)``. ``Tensor.where`` is this
    function: the tensor is the condition."""
    from .creation import to_tensor

    x = to_tensor(x) if np.isscalar(x) else x
    y = to_tensor(y) if np.isscalar(y) else y
    if x is None and y is None:
        return _il.nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    check_where(condition, x, y)
    if x._dtype is not y._dtype:  # (the kernel promotes two floats, a 0-D one too)
        dt = dtypes.promote_types(x._dtype, y._dtype)
        x, y = (t if t._dtype is dt else t.astype(dt) for t in (x, y))
    return _il.where(condition, x, y)


NAMES = ("sort", "argsort", "topk", "median", "nanmedian", "cummax", "cummin", "kthvalue",
         "mode", "unique", "max", "min", "amax", "amin", "logsumexp", "cumsum", "cumprod",
         "index_select", "where")
