"""Reductions into a tensor at indexed places: ``scatter_reduce`` and ``index_reduce``.

``x.scatter_reduce(dim, index, src, reduce, include_self=True)`` folds every ``src``
element into the cell of ``x`` that ``index`` names along ``dim`` (gather's inverse);
``x.index_reduce(dim, index, source, reduce)`` folds whole slices ``source[i]`` into
``x[index[i]]``. Both are the same kernel here: index_reduce's slice index, broadcast to
``source``'s shape, is a scatter index. ``reduce`` is sum/prod/mean/amax/amin (index_reduce
has no sum: that is index_add). ``include_self=False`` first resets the written cells to the
reduction's identity, so they hold the reduction of ``src`` alone.

What PyTorch 2.13 does, reproduced (checked against torch by tests/ops/test_scatter_reduce.py):

- integer ``mean`` is the dtype's wrapped sum floor-divided by the count (``-16/3 -> -6``);
  the count is kept in the tensor's own dtype (``count.scatter_add_``), as PyTorch keeps it;
- amax/amin propagate NaN, and on ties keep what the cell already holds: the only visible
  consequence is which signed zero wins (the first zero met, self before src);
- ``mean`` on bool and amax/amin on complex raise NotImplementedError; index_reduce refuses
  bool and complex altogether;
- the backward saves self, index, src and the result for *every* reduction (PyTorch's
  generated node does): so ``y = a.scatter_reduce(..., "sum"); a.add_(1)`` breaks backward,
  although a sum's gradient would not need ``a``. amax/amin split a tied gradient evenly,
  counting ``self`` among the ties even when ``include_self=False`` excludes it (PyTorch's
  formula, quirk included); prod divides out zeros with a masked recomputation.
- index_reduce warns once per process that it is in beta. Paddle 3.3.1 has
  ``paddle.scatter_reduce`` (same values) but no in-place form and no index_reduce.
"""
from __future__ import annotations

import numpy as np

from .. import layout
from .gather_scatter import (_check_bounds, _grid, _nonempty, _region, _scatter_checks, _tn, as_1d,
                             index_func_checks, ufunc_at, warn_once)
from .indexing import _no_overlap
from .table import OpSpec, register

SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")
INDEX_REDUCES = ("prod", "mean", "amax", "amin")
_UFUNC = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}
# PyTorch's forward also takes the legacy "max"/"min" (its backward then refuses them)
_LEGACY = {"max": "amax", "min": "amin"}


# ---- the shared kernel ------------------------------------------------------------------------


def _identity(reduce, dt):
    """What an excluded self starts from: the reduction's neutral element in ``dt``."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = reduce == "amin"
    if dt.kind == "b":
        return big
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return info.max if big else info.min
    return np.inf if big else -np.inf


def reduce_into(xp, target, ix, vals, d, reduce, include_self):
    """``target[ix] <reduce>= vals`` the way PyTorch's CPU kernel does it.

    ``ix`` is a full fancy index (one array per dim, broadcastable to ``vals.shape``, the
    index along ``d``); repeated cells fold in order along ``d`` (``ufunc.at``).
    """
    signed = reduce in ("amax", "amin") and target.dtype.kind == "f" and _has_neg_zero(
        xp, vals, target if include_self else None)
    self_zero = self_neg = None
    if signed and include_self:
        self_zero, self_neg = target == 0, xp.signbit(target)
    if not include_self:
        target[ix] = _identity(reduce, target.dtype)
    ufunc_at(xp, _UFUNC[reduce], target, ix, vals)
    if signed:
        _first_zero_wins(xp, target, ix, vals, d, self_zero, self_neg)
    if reduce == "mean":
        count = (xp.ones if include_self else xp.zeros)(target.shape, dtype=target.dtype)
        ufunc_at(xp, "add", count, ix, 1)
        count[count == 0] = 1
        if target.dtype.kind in "fc":
            xp.true_divide(target, count, out=target)
        else:
            xp.floor_divide(target, count, out=target)


def _has_neg_zero(xp, vals, self_vals) -> bool:
    def neg0(a):
        return bool(((a == 0) & xp.signbit(a)).any())

    return neg0(vals) or (self_vals is not None and neg0(self_vals))


def _first_zero_wins(xp, target, ix, vals, d, self_zero, self_neg):
    """Give each zero result the sign of the first zero that reached its cell.

    PyTorch's max/min keep the held value on a tie (``-0.0 == 0.0``); numpy's ``.at`` does
    not promise which one it keeps. The order a cell sees: self (when included), then src
    along ``d``. Runs only when a negative zero takes part.
    """
    n = vals.shape[d]
    key = xp.broadcast_to(xp.arange(n).reshape([n if i == d else 1 for i in range(vals.ndim)]),
                          vals.shape)
    zero = vals == 0
    first = xp.full(target.shape, n, dtype=np.int64)
    if self_zero is not None:
        first[self_zero] = -1
    ufunc_at(xp, "minimum", first, ix, xp.where(zero, key, n))
    res_zero = target == 0
    win = zero & (key == first[ix]) & res_zero[ix]
    cells = tuple(xp.broadcast_to(i, vals.shape)[win] for i in ix)
    target[cells] = vals[win]
    if self_zero is not None:
        keep = (first == -1) & res_zero
        target[keep] = xp.where(self_neg, -0.0, 0.0)[keep]


def _refuse_dtype(kernel, reduce, a, bad):
    if bad:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_tn(a)}\'')


def _require(fname, reduce, src, xp, arg):
    if reduce is None:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "reduce"')
    if not isinstance(src, xp.ndarray):
        raise TypeError(f"{fname}(): argument '{arg}' (position 3) must be Tensor, not "
                        f"{type(src).__name__}")


# ---- scatter_reduce -----------------------------------------------------------------------------


def _scatter_reduce_fwd(xp, a, dim, index, src, out=None, dt=None, reduce=None, include_self=True):
    _require("scatter_reduce" if out is None else "scatter_reduce_", reduce, src, xp, "src")
    d = layout.wrap_dim(dim, a.ndim)
    _scatter_checks(a, d, index, src, xp)
    reduce = _LEGACY.get(reduce, reduce)
    if reduce not in SCATTER_REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    _refuse_dtype(f"scatter_gather_tensor_cpu_reduce_{reduce}", reduce, a,
                  (reduce == "mean" and a.dtype.kind == "b") or
                  (reduce in ("amax", "amin") and a.dtype.kind == "c"))
    _check_bounds(index, _nonempty(a.shape, d), d, xp)
    target = out if out is not None else a.copy()
    i1 = as_1d(index)
    reduce_into(xp, as_1d(target), _grid(i1, d, xp), _region(as_1d(src), i1.shape), d, reduce,
                include_self)
    return target


class _Scatter:
    """The scatter flavour of the moves the backward formula makes along ``dim``."""

    reduces = SCATTER_REDUCES
    refusal = "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {}."

    pick = staticmethod(lambda t, dim, index: t.gather(dim, index))
    add = staticmethod(lambda t, dim, index, v: t.scatter_add(dim, index, v))
    fill0 = staticmethod(lambda t, dim, index: t.scatter(dim, index, 0))
    again = staticmethod(lambda t, dim, index, v, reduce, inc:
                         t.scatter_reduce(dim, index, v, reduce, include_self=inc))


class _Index:
    """The index flavour: whole slices ``index[i]`` along ``dim``."""

    reduces = INDEX_REDUCES
    refusal = "Expected 'reduce' to be one of 'prod', 'amax', 'amin' or 'mean' but got {}."

    pick = staticmethod(lambda t, dim, index: t.index_select(dim, index))
    add = staticmethod(lambda t, dim, index, v: t.index_add(dim, index, v))
    fill0 = staticmethod(lambda t, dim, index: t.index_fill(dim, index, 0))
    again = staticmethod(lambda t, dim, index, v, reduce, inc:
                         t.index_reduce(dim, index, v, reduce, include_self=inc))


def _reduce_backward(F, c, g, src_name):
    """PyTorch's scatter_reduce_backward / index_reduce_backward (FunctionsManual.cpp)."""
    from .. import creation
    from . import functions

    where = functions["where"]
    self_, index, src, result = c["self"], c["index"], c[src_name], c["result"]  # all checked
    dim, reduce, inc = c["dim"], c["reduce"], c["include_self"]
    if reduce not in F.reduces:
        raise RuntimeError(F.refusal.format(reduce))
    if reduce == "sum":
        gs, gsrc = g, F.pick(g, dim, index)
    elif reduce == "prod":
        masked_self = self_.masked_fill(self_ == 0, 1)
        gs = g * F.again(masked_self, dim, index, src, reduce, inc) / masked_self
        src_zero = src == 0
        zeros = F.pick(F.add(creation.zeros_like(self_), dim, index, src_zero.to(self_.dtype)),
                       dim, index)
        single = src_zero & (zeros == 1)
        masked_src_result = F.again(self_, dim, index, src.masked_fill(single, 1), reduce, inc)
        gsrc = where(single, F.pick(g * masked_src_result, dim, index),
                     F.pick(g * result, dim, index) / src.masked_fill(src_zero, 1))
    elif reduce == "mean":
        n = F.add(creation.ones_like(g) if inc else creation.zeros_like(g), dim, index,
                  creation.ones_like(src))
        n = n.masked_fill(n == 0, 1)
        gs, gsrc = g / n, F.pick(g, dim, index) / F.pick(n, dim, index)
    else:  # amax / amin: the gradient is shared evenly by every element equal to the result
        value = F.pick(result, dim, index)
        self_is, src_is = self_ == result, src == value
        spread = g / F.add(self_is.to(self_.dtype), dim, index, src_is.to(self_.dtype))
        gs, gsrc = self_is * spread, src_is * F.pick(spread, dim, index)
    if not inc:
        gs = F.fill0(gs, dim, index)
    return (gs if c.needs_input_grad[0] else None, None, None,
            gsrc if c.needs_input_grad[3] else None)


register(OpSpec(
    name="scatter_reduce", forward=_scatter_reduce_fwd,
    backward=lambda c, g: _reduce_backward(_Scatter, c, g, "src"),
    args=("self", "dim", "index", "src"), params={"reduce": None, "include_self": True},
    saves=("self", "index", "src", "result"), dtype_rule="self", inplace=True,
    paddle_inplace=False, inplace_check=_no_overlap,
    doc="Fold ``src`` into ``self`` at ``index`` along ``dim`` with sum/prod/mean/amax/amin "
        "(ScatterReduceBackward0; saves self, index, src and the result)."))


# ---- index_reduce -------------------------------------------------------------------------------


def _index_reduce_fwd(xp, a, dim, index, source, out=None, dt=None, reduce=None,
                      include_self=True):
    _require("index_reduce" if out is None else "index_reduce_", reduce, source, xp, "source")
    if reduce not in INDEX_REDUCES:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or amin "
                           f"but got {reduce}.")
    d = layout.wrap_dim(dim, a.ndim)
    idx = index_func_checks("index_reduce", a, d, index, source, xp)
    warn_once("index_reduce", "index_reduce() is in beta and the API may change at any time.")
    _index_reduce_refusals(xp, a, d, idx, reduce, include_self)
    target = out if out is not None else a.copy()
    s1 = as_1d(source)
    full = xp.broadcast_to(idx.reshape([-1 if i == d else 1 for i in range(s1.ndim)]), s1.shape)
    reduce_into(xp, as_1d(target), _grid(full, d, xp), s1, d, reduce, include_self)
    return target


def _index_reduce_refusals(xp, a, d, idx, reduce, include_self):
    """PyTorch's index_reduce kernel refuses dtypes and indices in an order set by its path.

    ``include_self=False`` first index_fill_s the identity (no bool/complex; index_fill's
    bounds words). A self of more than one dim then reduces slice by slice (bool and complex
    mostly work there: maximum/minimum refuse complex at the first slice, the floor division
    of a bool mean at the end); a 1-dim self goes through one kernel that refuses bool and
    complex before looking at an index. (Checked before writing: PyTorch's own refusals may
    leave the target half written; here it is left untouched.)
    """
    n = _nonempty(a.shape, d)
    odd = a.dtype.kind in "bc"
    if not include_self:
        _refuse_dtype("index_reduce_func_exclude_input_init", reduce, a, odd)
        bad = (idx >= n) | (idx < -n)
        if bad.any():
            v = int(idx[int(xp.argmax(bad))])
            raise IndexError(f"index {v} is out of bounds for dimension {d} with size {n}")
    out_of_range = (idx >= n) | (idx < 0)
    if a.ndim > 1:
        if reduce in ("amax", "amin") and a.dtype.kind == "c" and idx.size and \
                not bool(out_of_range[0]):
            _refuse_dtype("maximum_cpu" if reduce == "amax" else "minimum_cpu", reduce, a, True)
    else:
        _refuse_dtype("index_func_", reduce, a, odd)
    if out_of_range.any():
        raise IndexError("index out of range in self")
    if a.ndim > 1:
        _refuse_dtype("div_floor_cpu", reduce, a, reduce == "mean" and a.dtype.kind == "b")


register(OpSpec(
    name="index_reduce", forward=_index_reduce_fwd,
    backward=lambda c, g: _reduce_backward(_Index, c, g, "source"),
    args=("self", "dim", "index", "source"), params={"reduce": None, "include_self": True},
    saves=("self", "index", "source", "result"), dtype_rule="self", inplace=True,
    paddle_inplace=False, inplace_check=_no_overlap,
    doc="Fold slices ``source[i]`` into ``self[index[i]]`` along ``dim`` with prod/mean/amax/amin "
        "(IndexReduceBackward0; saves self, index, source and the result)."))
