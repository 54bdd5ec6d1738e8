"""Selection: kthvalue, median, nanmedian, mode, cummax and cummin, with the indices
PyTorch 2.13's CPU kernels pick (ops/sorting.py holds what they share with sort).

Each returns ``(values, indices)`` and its backward scatters the gradient back through the
saved indices (cummax/cummin with scatter_add: several outputs may pick one input). The
exceptions, as in PyTorch: ``median()``/``nanmedian()`` without a dim save input and
result and share the gradient evenly among the elements equal to the median.

Which index a tie gets:

- ``kthvalue``: PyTorch's own quickselect decides; a row whose k-th value is tied is
  replayed here with that exact algorithm (rows without a tie need no replay).
- ``median(dim)``/``nanmedian(dim)``: the lower median in (value, index) order (a row with a
  NaN answers its first NaN). An all-NaN row of ``nanmedian`` answers index 0 here; PyTorch's
  nth_element answers another NaN on rows of more than 3.
- ``mode``: the smallest most frequent value, at its last index (PyTorch's std::sort is the
  stable insertion sort on rows of up to 16: exact there, NaN rows replayed; longer rows
  with ties may differ).
- ``cummax``/``cummin``: ties move the index forward (``>=``); a NaN sticks, each new NaN
  taking the index.
"""
from __future__ import annotations

from math import isnan

from .. import backend, creation, layout
from .sorting import (
    _INT64,
    _dim,
    _front,
    _int_arg,
    _isnan,
    _multi,
    _not_implemented,
    _order,
    _reduced,
    _refuse,
    _rows,
    _scalar_pair,
    install_fronts,
)
from .table import OPS, OpSpec, register

# ---- kthvalue: PyTorch's quickselect, replayed on tied rows -------------------------------------

def _gt_or_nan(x, y):
    return (isnan(x) and not isnan(y)) or x > y


def quickselect_index(row, k):
    """The index PyTorch's ``quick_select_template`` leaves at position ``k`` (0-based).

    A transcription of ATen's SortingUtils.h (median-of-three pivot, Hoare partition, NaN
    largest), run on a Python list: only rows where the answer is a tie need it.
    """
    arr, ind = list(row), list(range(len(row)))

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        ind[i], ind[j] = ind[j], ind[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            return ind[k]
        if hi == lo + 1:
            if _gt_or_nan(arr[lo], arr[hi]):
                swap(lo, hi)
            return ind[k]
        swap(lo + (hi - lo) // 2, lo + 1)
        if _gt_or_nan(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if _gt_or_nan(arr[lo], arr[hi]):
            swap(lo, hi)
        if _gt_or_nan(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while _gt_or_nan(piv, arr[i]):
                i += 1
            j -= 1
            while _gt_or_nan(arr[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


def _check_reduce_dim(fname, a, d):
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")


def _kthvalue_fwd(xp, a, out=None, dt=None, k=None, dim=-1, keepdim=False):
    k = _int_arg("kthvalue", "k", 1, k)
    d = _dim("kthvalue", dim, a.ndim)
    _check_reduce_dim("kthvalue", a, d)
    if not 1 <= k <= (a.shape[d] if a.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.ndim == 0:
        return _scalar_pair(xp, a)
    m, back = _rows(xp, a, d)
    order = _order(xp, m, False)[:, k - 1]
    rows = xp.arange(m.shape[0])
    vals = m[rows, order]
    nan = _isnan(xp, m)
    tied = ((m == vals[:, None]) | (nan & _isnan(xp, vals)[:, None])).sum(-1) > 1
    idx = order.copy()
    for r in xp.nonzero(tied)[0].tolist():
        idx[r] = quickselect_index(m[r].tolist(), k - 1)
    return _reduced(xp, vals, idx, back, d, keepdim)


_KTH = _multi("kthvalue", _kthvalue_fwd, {"k": None, "dim": -1, "keepdim": False},
              "KthvalueBackward0", dtype_rule=_refuse(("bool", "complex"),
                                                      _not_implemented("kthvalue_cpu")))


# ---- median / nanmedian -----------------------------------------------------------------------

def _median_all(ignore_nan):
    def fwd(xp, a, out=None, dt=None):
        flat = a.reshape(-1)
        nan = _isnan(xp, flat)
        if ignore_nan:
            flat = flat[~nan]
        elif bool(nan.any()):
            return xp.asarray(xp.nan, dtype=a.dtype)
        if flat.size == 0:  # (PyTorch fills NaN, whatever an integer dtype makes of it)
            return xp.asarray(float("nan")).astype(a.dtype)
        pos = (flat.size - 1) // 2
        return xp.partition(flat, pos)[pos]

    return fwd


def _median_dim(fname, ignore_nan):
    def fwd(xp, a, out=None, dt=None, dim=None, keepdim=False):
        d = _dim(fname, dim, a.ndim)
        _check_reduce_dim(fname, a, d)
        if a.ndim == 0:
            return _scalar_pair(xp, a)
        m, back = _rows(xp, a, d)
        n = m.shape[1]
        order = _order(xp, m, False)  # (value, index) order, NaN last: nth_element's answer
        nan = _isnan(xp, m)
        n_nan = nan.sum(-1)
        if ignore_nan:
            pos = xp.maximum((n - n_nan - 1) // 2, 0)
        else:  # a row with a NaN answers its first NaN (found before any partitioning)
            pos = xp.where(n_nan > 0, n - n_nan, (n - 1) // 2)
        idx = xp.take_along_axis(order, pos[:, None], -1)[:, 0]
        vals = m[xp.arange(m.shape[0]), idx]
        return _reduced(xp, vals, idx, back, d, keepdim)

    return fwd


def _evenly_bw(c, g):
    """evenly_distribute_backward: every element equal to the median (or every NaN, when the
    median is NaN) gets an equal share."""
    x, r = c["self"], c["result"]
    mask = x.isnan() if bool(r.isnan()) else x == r
    zeros = creation.zeros(x.shape, dtype=g._dtype, device=g.device)
    return zeros.masked_fill(mask, g / mask.sum())


def _median_select(full, with_dim):
    def select(args, kwargs):
        return with_dim if (len(args) > 1 or "dim" in kwargs) else full

    return select


# (ATen names median's kernel in the refusal, nanmedian's too: "median_cpu" for the whole
# tensor, "median_out" along a dim)
_MEDIAN_DT = _refuse(("bool", "complex"), _not_implemented("median_cpu"))
_MEDIAN_DIM_DT = _refuse(("bool", "complex"), _not_implemented("median_out"))
_MEDIANS = {}
for _n, _node, _ign in (("median", "Median", False), ("nanmedian", "Nanmedian", True)):
    _MEDIANS[_n] = (
        register(OpSpec(name=_n, forward=_median_all(_ign), backward=_evenly_bw,
                        dtype_rule=_MEDIAN_DT, saves=("self", "result"),
                        node_name=f"{_node}Backward0", out=False, method=False, function=False,
                        grad_writes=1)),
        _multi(f"_{_n}_dim", _median_dim(_n, _ign), {"dim": None, "keepdim": False},
               f"{_node}Backward1", dtype_rule=_MEDIAN_DIM_DT, public=_n))


# ---- mode -------------------------------------------------------------------------------------

def _insertion_sorted(row):
    """libstdc++'s __insertion_sort of (value, index) pairs on ``value <`` (std::sort of up to
    16 elements): stable, and with NaN (never less, never greater) exactly as PyTorch's."""
    pairs = [(v, i) for i, v in enumerate(row)]
    for i in range(1, len(pairs)):
        val = pairs[i]
        if val[0] < pairs[0][0]:
            pairs[1:i + 1] = pairs[0:i]
            pairs[0] = val
            continue
        j = i
        while val[0] < pairs[j - 1][0]:
            pairs[j] = pairs[j - 1]
            j -= 1
        pairs[j] = val
    return pairs


def _mode_of_pairs(pairs):
    """PyTorch's scan: the first (smallest) value with the highest run length, its run's last
    index (runs split wherever neighbours differ, so every NaN is a run of its own)."""
    best, best_i, best_n, run = pairs[0][0], pairs[0][1], 0, 0
    for i, (v, ix) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or v != pairs[i + 1][0]:
            if run > best_n:
                best, best_i, best_n = v, ix, run
            run = 0
    return best, best_i


def _mode_fwd(xp, a, out=None, dt=None, dim=-1, keepdim=False):
    d = _dim("mode", dim, a.ndim)
    _check_reduce_dim("mode", a, d)
    if a.ndim == 0:
        return _scalar_pair(xp, a)
    m, back = _rows(xp, a, d)
    n = m.shape[1]
    order = _order(xp, m, False)
    sv = xp.take_along_axis(m, order, -1)
    pos = xp.arange(n)
    start = xp.ones(sv.shape, dtype=bool)
    start[:, 1:] = sv[:, 1:] != sv[:, :-1]
    end = xp.ones(sv.shape, dtype=bool)
    end[:, :-1] = start[:, 1:]
    first = backend.accumulate(xp, "maximum", xp.where(start, pos, 0), -1)
    runs = xp.where(end, pos - first + 1, 0)
    win = xp.argmax(runs, axis=-1)[:, None]
    vals = xp.take_along_axis(sv, win, -1)[:, 0]
    idx = xp.take_along_axis(order, win, -1)[:, 0]
    if n <= 16 and m.dtype.kind == "f":  # NaN rows: PyTorch's own sort, replayed
        for r in xp.nonzero(xp.isnan(m).any(-1))[0].tolist():
            vals[r], idx[r] = _mode_of_pairs(_insertion_sorted(m[r].tolist()))
    return _reduced(xp, vals, idx, back, d, keepdim)


_MODE = _multi("mode", _mode_fwd, {"dim": -1, "keepdim": False}, "ModeBackward0",
               dtype_rule=_refuse(("complex",), _not_implemented("mode_cpu")))


# ---- cummax / cummin --------------------------------------------------------------------------

def _cum_extreme(fname):
    def fwd(xp, a, out=None, dt=None, dim=None):
        if dim is None:
            raise TypeError(f'{fname}() missing 1 required positional arguments: "dim"')
        dim = _int_arg(fname, "dim", 1, dim)
        if a.ndim == 0:
            if dim not in (-1, 0):
                raise IndexError(f"{fname}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
            return _scalar_pair(xp, a)
        d = layout.wrap_dim(dim, a.ndim)
        vals = backend.accumulate(xp, "maximum" if fname == "cummax" else "minimum", a, d)
        # (NaN propagates, as PyTorch's)
        took = (a == vals) | _isnan(xp, a)  # where the running extreme (re)starts: ties move on
        pos = xp.arange(a.shape[d]).reshape((-1,) + (1,) * (a.ndim - d - 1))
        idx = backend.accumulate(xp, "maximum", xp.where(took, pos, 0), d) if a.size else \
            xp.zeros(a.shape, dtype=_INT64)
        return vals, idx.astype(_INT64)

    return fwd


def _cummaxmin_bw(c, g):
    """cummaxmin_backward: scatter_add, several outputs may have picked one input. (Its
    saved input is read, for the empty check, so a later write to it breaks backward.)"""
    shape = c.input_meta[0][0]
    if not len(shape) or not c["self"].numel():
        return g.clone()
    d = layout.wrap_dim(c["dim"], len(shape))
    return creation.zeros(shape, dtype=g._dtype, device=g.device).scatter_add(d, c["indices"], g)


for _n in ("cummax", "cummin"):
    _multi(_n, _cum_extreme(_n), {"dim": None}, f"{_n.capitalize()}Backward0",
           saves=("self", "indices"), backward=_cummaxmin_bw,
           dtype_rule=_refuse(("complex",), _not_implemented(f"{_n}_cpu")))


# ---- the public functions ----------------------------------------------------------------------

_FRONTS = {
    "kthvalue": _front("kthvalue", lambda a, k: _KTH, "(Tensor input, int k, int dim = -1, bool "
                       "keepdim = False, *, tuple of Tensors out = None)"),
    "mode": _front("mode", lambda a, k: _MODE, "(Tensor input, int dim = -1, bool keepdim = "
                   "False, *, tuple of Tensors out = None)"),
}
for _n in ("cummax", "cummin"):
    _FRONTS[_n] = _front(_n, lambda a, k, _s=OPS[_n]: _s,
                         "(Tensor input, int dim, *, tuple of Tensors out = None)")
for _n, (_full, _with_dim) in _MEDIANS.items():
    _FRONTS[_n] = _front(_n, _median_select(_full, _with_dim),
                         "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)")
install_fronts(_FRONTS)
