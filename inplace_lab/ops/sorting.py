"""Sorting: sort, argsort, msort, topk and unique, with PyTorch 2.13's CPU answers, and the
machinery the selection ops (ops/selection.py: kthvalue, median, nanmedian, mode, cummax,
cummin) share with them: dim/dtype checks, row helpers, the (values, indices) entries, and
the public fronts that take ``out=(values, indices)``.

Every op that picks elements returns ``(values, indices)`` (``torch.return_types.sort``
...) and its backward *saves the indices*, not the data: the gradient is scattered back
to the positions the forward picked (``zeros(x.shape).scatter(dim, indices, grad)``), so
``x.add_(1)`` after ``v, i = x.sort()`` leaves backward intact, while ``i.add_(1)`` breaks
it. That fresh gradient arrives with ``_version`` 2, as PyTorch's (``grad_writes``).

Which index a tie gets is part of the answer:

- ``sort``: equal keys keep their order (numpy's stable sort) and NaN sorts as the largest
  value, as PyTorch's ``stable=True``. PyTorch's ``stable=False`` sort (the default) is
  stable too on rows of up to 16 elements (libstdc++'s insertion sort); on longer rows with
  ties its order is std::sort's and differs from this one.
- ``topk``: ties are taken in index order (PyTorch: nth_element's order, which can differ),
  and ``sorted=False`` answers in sorted order (PyTorch: its selection order; same set).
- ``unique``: each NaN is distinct; NaNs' inverse indices follow the input order here.

>>> import inplace_lab as il
>>> il.tensor([3., 1., 2.]).sort(descending=True).indices.tolist()
[0, 2, 1]
"""
from __future__ import annotations

from collections import namedtuple

from .. import creation, dtypes, errors, layout, policy
from ..autograd import grad_mode
from . import dispatch
from .reduction import call_out_multi
from .table import OpSpec, register

_INT64 = "int64"


# ---- argument checks, in PyTorch's words ------------------------------------------------------

def _int_arg(fname, name, pos, v):
    """PyTorch's parser: an int (a bool or a float is refused), else TypeError."""
    if v is None or isinstance(v, bool) or not isinstance(v, int):
        if hasattr(v, "__index__") and not isinstance(v, bool) and not hasattr(v, "_a"):
            return int(v)  # a numpy integer
        if v is None and name == "k":
            raise TypeError(f'{fname}() missing 1 required positional arguments: "k"')
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not "
                        f"{type(v).__name__}")
    return v


def _dim(fname, dim, ndim):
    return layout.wrap_dim(_int_arg(fname, "dim", 1, dim), ndim)


def _refuse(kinds, message):
    """A dtype rule: the input's own dtype, unless its category is refused (PyTorch's words)."""
    cats = {"bool": dtypes.BOOL, "complex": dtypes.COMPLEX}
    bad = {cats[k] for k in kinds}

    def rule(spec, ins, params):
        dt = ins[0]._dtype
        if dt.category in bad:
            raise message(dt)
        return dt

    return rule


def _not_implemented(kernel):
    return lambda dt: NotImplementedError(f'"{kernel}" not implemented for \'{dt.torch_name}\'')


_SORT_DT = _refuse(("complex",), lambda dt: RuntimeError(" Sort does not support complex dtypes on CPU"))


def _topk_msg(dt):
    what = "complex" if dt.category == dtypes.COMPLEX else "bool"
    return RuntimeError(f"{' ' if what == 'complex' else ''}topk does not support {what} dtypes on CPU")


# ---- array helpers: work along the last axis of a (rows, n) view --------------------------------

def _rows(xp, a, d):
    """``a`` with axis ``d`` moved last and the rest flattened: (rows, n), and a way back."""
    m = xp.moveaxis(a, d, -1)
    lead = m.shape[:-1]

    def back(r, keep_last=True):
        if not keep_last:  # one pick per row: already in the result's (C) order
            return r.reshape(lead)
        return xp.ascontiguousarray(xp.moveaxis(r.reshape(lead + r.shape[1:]), -1, d))

    rows = 1
    for n in lead:
        rows *= n
    return xp.ascontiguousarray(m).reshape(rows, m.shape[-1]), back


def _order(xp, m, descending):
    """Indices sorting each row of ``m``, equal keys in index order, NaN as the largest."""
    if not descending:
        return xp.argsort(m, axis=-1, kind="stable")
    n = m.shape[-1]
    return (n - 1) - xp.argsort(m[..., ::-1], axis=-1, kind="stable")[..., ::-1]


def _isnan(xp, m):
    return xp.isnan(m) if m.dtype.kind in "fc" else xp.zeros(m.shape, dtype=bool)


def _reduced(xp, vals, idx, back, d, keepdim):
    """(rows,) picks back to the input's shape without dim ``d`` (or with it as size 1)."""
    v, i = back(vals, keep_last=False), back(idx, keep_last=False)
    if keepdim:
        v, i = xp.expand_dims(v, d), xp.expand_dims(i, d)
    return v, i.astype(_INT64)


def _scalar_pair(xp, a):
    return a.copy(), xp.zeros((), dtype=_INT64)


# ---- sort / argsort / msort -------------------------------------------------------------------

def _sort_fwd(xp, a, out=None, dt=None, dim=-1, descending=False, stable=False):
    d = _dim("sort", dim, a.ndim)
    if a.ndim == 0:
        return _scalar_pair(xp, a)
    m, back = _rows(xp, a, d)
    idx = _order(xp, m, bool(descending))
    return back(xp.take_along_axis(m, idx, -1)), back(idx).astype(_INT64)


def _scatter_bw(c, g):
    """value_selecting_reduction_backward: the gradient goes back to the picked positions."""
    shape = c.input_meta[0][0]
    if not len(shape):
        return g.clone()
    d = layout.wrap_dim(c["dim"], len(shape))
    idx = c["indices"]
    if not c.params.get("keepdim", True) and idx.ndim < len(shape):
        g, idx = g.unsqueeze(d), idx.unsqueeze(d)
    return creation.zeros(shape, dtype=g._dtype, device=g.device).scatter(d, idx, g)


def _multi(name, forward, params, node, *, saves=("indices",), backward=_scatter_bw,
           dtype_rule=None, grad_writes=2, public=None):
    """A (values, indices) op; its return type is named after the public op (``sort``)."""
    spec = register(OpSpec(name=name, forward=forward, backward=backward, params=params,
                           saves=saves, outputs=("values", "indices"), node_name=node,
                           dtype_rule=dtype_rule or "self", out=False, method=False,
                           function=False, grad_writes=grad_writes))
    if public and public != name:
        spec.return_type = namedtuple(public, spec.outputs, module="inplace_lab.return_types")
    return spec


_SORT = _multi("sort", _sort_fwd, {"dim": -1, "descending": False}, "SortBackward0",
               dtype_rule=_SORT_DT)
# PyTorch's sort.stable overload (any call naming stable=, even stable=False): SortBackward1
_SORT_STABLE = _multi("_sort_stable", _sort_fwd, {"dim": -1, "descending": False, "stable": None},
                      "SortBackward1", dtype_rule=_SORT_DT, public="sort")


def _argsort_fwd(xp, a, out=None, dt=None, dim=-1, descending=False, stable=False):
    return _sort_fwd(xp, a, dim=dim, descending=descending)[1]


_ARGSORT = register(OpSpec(name="argsort", forward=_argsort_fwd,
                           params={"dim": -1, "descending": False, "stable": False},
                           dtype_rule=lambda spec, ins, params: (_SORT_DT(spec, ins, params),
                                                                 dtypes.int64)[1],
                           method=False, function=False))


def _out_tuple(public, spec, args, kwargs, signature):
    """``out=(values, indices)``: checked and written by reduction.call_out_multi, after the
    dtype checks whose words differ per op (sort and topk use call_out_multi's own)."""
    out = kwargs.get("out")
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{public}() received an invalid combination of arguments - got an out= "
                        f"{type(out).__name__}, but expected one of:\n * {signature}")
    ins, params, outs = dispatch.bind(spec, args, kwargs)
    words = _OUT_DTYPE_WORDS.get(public)
    x = ins[0]
    if words is not None and len(outs) == 2 and hasattr(x, "_dtype") and all(
            hasattr(o, "_dtype") for o in outs) and not (grad_mode.state.enabled and any(
            t._requires_grad for t in (x,) + tuple(outs))):
        want = (x._dtype, dtypes.int64)
        bad = [i for i in (0, 1) if outs[i]._dtype is not want[i]]
        if bad:
            i = 1 if (public in ("median", "nanmedian") and 1 in bad) else bad[0]
            raise errors.InplaceCastError(words[i](want[i], outs[i]._dtype), tensor=outs[i],
                                          op=public)
    return call_out_multi(spec, public, ins, params, outs)


_tensor_type = policy.legacy_type_name  # (the median out= errors: the CPU kernel's words)


_MEDIAN_OUT_WORDS = (
    lambda w, g: (f"Expected tensor for 'values' to have the same type as tensor for argument #2 "
                  f"'self'; but type {_tensor_type(g)} does not equal {_tensor_type(w)} (while "
                  "checking arguments for median)"),
    lambda w, g: (f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                  f"{_tensor_type(g)} instead (while checking arguments for median)"))
_CUM_OUT_WORDS = (lambda w, g: f"expected scalar_type {w.torch_name} but found {g.torch_name}",) * 2
_OUT_DTYPE_WORDS = {
    "kthvalue": (lambda w, g: "output values must be of same type as input",
                 lambda w, g: "output indices must be of scalar type Long"),
    "median": _MEDIAN_OUT_WORDS, "nanmedian": _MEDIAN_OUT_WORDS,
    "mode": (lambda w, g: f"expected scalar type '{w.torch_name}' but got '{g.torch_name}' for "
                          "values output",
             lambda w, g: f"expected scalar type '{w.torch_name}' but got '{g.torch_name}' for "
                          "indices output"),
    "cummax": _CUM_OUT_WORDS, "cummin": _CUM_OUT_WORDS,
}


_UNSET = object()


def _sort_overload(fname, input, pos, kw, out_type):
    """(dim, descending, stable or _UNSET) by PyTorch's two overloads of sort/argsort: either
    ``(input, dim=-1, descending=False)`` or, once ``stable=`` is named, all keywords."""
    def combination():
        got = ", ".join([type(input).__name__ if not hasattr(input, "_a") else "Tensor"]
                        + [type(p).__name__ for p in pos]
                        + [f"{k}={type(v).__name__}" for k, v in kw.items() if v is not _UNSET])
        return TypeError(
            f"{fname}() received an invalid combination of arguments - got ({got}), but expected "
            f"one of:\n * (Tensor input, *, bool stable, int dim = -1, bool descending = False, "
            f"{out_type} out = None)\n * (Tensor input, int dim = -1, bool descending = False"
            + (", *, tuple of Tensors out = None)" if fname == "sort" else ")"))

    if len(pos) > 2:
        raise TypeError(f"{fname}() takes from 1 to 3 positional arguments but {len(pos) + 1} "
                        "were given")
    stable = kw["stable"]
    if pos and stable is not _UNSET or (stable is None and fname == "argsort"):
        raise combination()
    if fname == "argsort" and stable is _UNSET and kw.get("out") is not None:
        raise combination()
    dim, desc = (list(pos) + [_UNSET, _UNSET])[:2]
    for name, p, k in (("dim", dim, kw["dim"]), ("descending", desc, kw["descending"])):
        if p is not _UNSET and k is not _UNSET:
            raise TypeError(f"{fname}() got multiple values for argument '{name}'")
    dim = dim if dim is not _UNSET else (-1 if kw["dim"] is _UNSET else kw["dim"])
    desc = desc if desc is not _UNSET else (False if kw["descending"] is _UNSET else kw["descending"])
    return dim, desc, stable


def sort(input, *pos, dim=_UNSET, descending=_UNSET, stable=_UNSET, out=None):
    """sort(input, dim=-1, descending=False, *, out=None) -> (values, indices): SortBackward0;
    sort(input, *, stable, dim=-1, descending=False, out=None): SortBackward1."""
    dim, descending, stable = _sort_overload(
        "sort", input, pos, {"dim": dim, "descending": descending, "stable": stable, "out": out},
        "tuple of Tensors")
    if stable is _UNSET:
        spec, kw = _SORT, {"dim": dim, "descending": descending}
    else:
        spec, kw = _SORT_STABLE, {"dim": dim, "descending": descending, "stable": stable}
    if out is not None:
        return _out_tuple("sort", spec, (input,), {**kw, "out": out},
                          "(Tensor input, int dim = -1, bool descending = False, *, tuple of "
                          "Tensors out = None)")
    return dispatch.call(spec, (input,), kw)


def argsort(input, *pos, dim=_UNSET, descending=_UNSET, stable=_UNSET, out=None):
    """argsort(input, dim=-1, descending=False) or argsort(input, *, stable, dim=-1,
    descending=False, out=None) -> int64 indices (no grad)."""
    dim, descending, stable = _sort_overload(
        "argsort", input, pos, {"dim": dim, "descending": descending, "stable": stable, "out": out},
        "Tensor")
    kw = {"dim": dim, "descending": descending, "stable": bool(stable is not _UNSET and stable)}
    if out is not None:
        kw["out"] = out
    return dispatch.call(_ARGSORT, (input,), kw)


def msort(input, *, out=None):
    """msort(input) is sort(input, dim=0).values (its grad_fn is SortBackward0)."""
    if out is not None:
        return dispatch.call(_MSORT_OUT, (input,), {"out": out})
    return dispatch.call(_SORT, (input, 0), {}).values


_MSORT_OUT = register(OpSpec(name="_msort_out", dtype_rule=_SORT_DT, method=False, function=False,
                             forward=lambda xp, a, out=None, dt=None: _sort_fwd(xp, a, dim=0)[0]))


# ---- topk -------------------------------------------------------------------------------------

def _topk_fwd(xp, a, out=None, dt=None, k=None, dim=-1, largest=True, sorted=True):
    k = _int_arg("topk", "k", 1, k)
    d = _dim("topk", dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if a.ndim == 0:
        return _scalar_pair(xp, a)
    m, back = _rows(xp, a, d)
    idx = _order(xp, m, bool(largest))[:, :k]
    return back(xp.take_along_axis(m, idx, -1)), back(idx).astype(_INT64)


_TOPK = _multi("topk", _topk_fwd, {"k": None, "dim": -1, "largest": True, "sorted": True},
               "TopkBackward0", dtype_rule=_refuse(("complex", "bool"), _topk_msg))


# ---- unique (dim=None): no derivative, as PyTorch's _unique2 -----------------------------------

def _unique_fwd(xp, a, out=None, dt=None, sorted=True, return_inverse=False, return_counts=False):
    """Sorted distinct values (each NaN distinct; of equal keys the first in stable order),
    the inverse (input-shaped) and the counts: always sorted, as PyTorch's CPU unique."""
    flat = a.reshape(-1)
    perm = xp.argsort(flat, kind="stable")
    sv = flat[perm]
    first = xp.ones(sv.shape, dtype=bool)
    first[1:] = sv[1:] != sv[:-1]
    inverse = xp.empty(flat.shape, dtype=_INT64)
    inverse[perm] = xp.cumsum(first) - 1
    starts = xp.nonzero(first)[0]
    counts = xp.diff(xp.concatenate([starts, xp.asarray([flat.size])])).astype(_INT64)
    return sv[first], inverse.reshape(a.shape), counts


def _unique_bw(c, *grads):
    raise NotImplementedError("the derivative for '_unique2' is not implemented.")


_UNIQUE2 = register(OpSpec(
    name="_unique2", forward=_unique_fwd, backward=_unique_bw, out=False, method=False,
    function=False, params={"sorted": True, "return_inverse": False, "return_counts": False},
    outputs=("output", "inverse_indices", "counts"), node_name="Unique2Backward0",
    dtype_rule=_refuse(("complex",), _not_implemented("unique"))))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None): the
    distinct values, plus (as a plain tuple) the inverse indices and/or the counts."""
    if dim is not None:
        raise NotImplementedError("unique(dim=...) is not implemented in inplace_lab: only "
                                  "dim=None (the distinct elements of the flattened tensor)")
    res = dispatch.call(_UNIQUE2, (input,), {"sorted": sorted, "return_inverse": return_inverse,
                                            "return_counts": return_counts})
    picked = (res[0],) + ((res[1],) if return_inverse else ()) + ((res[2],) if return_counts else ())
    return picked[0] if len(picked) == 1 else picked


# ---- the public functions (Tensor methods and inplace_lab.<name>) -------------------------------

def _front(public, pick, signature):
    """The public op: ``pick(args, kwargs)`` chooses the table overload; a call with
    ``out=(values, indices)`` goes to reduction.call_out_multi, every other to the dispatcher."""

    def front(*args, **kwargs):
        spec = pick(args, kwargs)
        if kwargs.get("out") is not None and spec.outputs:
            return _out_tuple(public, spec, args, kwargs, signature)
        return dispatch.call(spec, args, kwargs)

    front.__name__ = front.__qualname__ = public
    front.__doc__ = f"{public}{signature}"
    return front


_FRONTS = {
    "sort": sort, "argsort": argsort, "msort": msort, "unique": unique,
    "topk": _front("topk", lambda a, k: _TOPK, "(Tensor input, int k, int dim = -1, bool largest "
                   "= True, bool sorted = True, *, tuple of Tensors out = None)"),
}


def install_fronts(fronts):
    """Register each public function as a composite entry aliased to its public name."""
    for name, fn in fronts.items():
        register(OpSpec(name=f"_{name}_front", forward=fn, kind="composite", aliases=(name,),
                        doc=(fn.__doc__ or "").strip()))


install_fronts(_FRONTS)

from . import selection  # noqa: F401  (kthvalue, median, mode, cummax: they use the above)
