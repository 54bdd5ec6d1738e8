"""torch-level comparison, search and nan-aware reduction functions.

``isclose``/``allclose`` (how exercises are graded), ``isin``, ``unravel_index``,
``searchsorted``/``bucketize``, ``histc``, ``nansum``/``nanmean`` and
``std_mean``/``var_mean``, each with PyTorch 2.13's signature, dtype and node:

- ``nansum`` is one node, NansumBackward0, whose gradient is zero where the input is nan;
  ``nanmean`` is PyTorch's composite ``nansum(x) / (count of non-nan)`` (DivBackward0).
- ``std_mean``/``var_mean`` return a plain tuple of two results that share *one* node
  (StdMeanBackward0 / VarMeanBackward0, outputs 0 and 1), as in PyTorch.
- ``unravel_index`` is PyTorch's Python recipe (floor_divide, remainder, then ``unbind``),
  so its results are views of one int64 tensor.
- comparisons and searches are not differentiable: their results never require grad.
"""
from __future__ import annotations

import math

from .. import backend, dtypes, hooks
from ..tensor import Tensor
from . import dispatch, gather_scatter, reduction
from .cascade_sum import torch_nansum
from .table import OPS, OpSpec, register


def _composite(fn, method=True, args=("self",)):
    register(OpSpec(name=fn.__name__, forward=fn, kind="composite", method=method, args=args,
                    doc=fn.__doc__))


# ---- isclose / allclose --------------------------------------------------------------------------

def _isclose_rule(spec, ins, params):
    a, b = ins
    if not isinstance(b, Tensor):
        raise TypeError(f"isclose(): argument 'other' (position 2) must be Tensor, "
                        f"not {type(b).__name__}")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"{a._dtype.torch_name} did not match {b._dtype.torch_name}")
    if a._dtype.is_complex and params["equal_nan"]:
        raise RuntimeError("isclose with equal_nan=True is not supported for complex inputs.")
    return dtypes.bool_


def _isclose_fwd(xp, a, b, out=None, dt=None, rtol=1e-05, atol=1e-08, equal_nan=False):
    """PyTorch's formula: ``a == b``, or ``|a - b| <= atol + |rtol * b|`` and finite, in the
    inputs' dtype (integers and bools in the default float dtype)."""
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close = a == b
    if equal_nan and a.dtype.kind == "f":
        close = close | ((a != a) & (b != b))
    if rtol == 0 and atol == 0:
        return close
    if a.dtype.kind not in "fc":
        a = a.astype(dtypes.get_default_dtype().np)
        b = b.astype(a.dtype)
    actual = xp.abs(a - b)
    return close | (xp.isfinite(actual) & (actual <= atol + xp.abs(rtol * b)))


register(OpSpec(name="isclose", forward=_isclose_fwd, args=("self", "other"),
                params={"rtol": 1e-05, "atol": 1e-08, "equal_nan": False},
                dtype_rule=_isclose_rule, out=False,
                doc="isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)"))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``isclose(...).all()`` as a Python bool (the usual way to grade a result)."""
    return bool(dispatch.call(OPS["isclose"], (input, other), {
        "rtol": rtol, "atol": atol, "equal_nan": equal_nan}).all().item())


_composite(allclose, args=("self", "other"))


def equal(input, other):
    """``torch.equal``: True when both have the same size and the same elements (dtypes may
    differ: 1.0 equals 1; nan equals nothing), as a Python bool. (Paddle's ``equal`` is the
    elementwise ``eq``; ``equal_all`` is this.)"""
    for i, (name, x) in enumerate((("input", input), ("other", other))):
        if not isinstance(x, Tensor):
            raise TypeError(f"equal(): argument '{name}' (position {i + 1}) must be Tensor, "
                            f"not {type(x).__name__}")
    if input.device != other.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least "
                           f"two devices, {other.device} and {input.device}!")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(backend.xp_of(input._storage.device).array_equal(input._a, other._a))


_composite(equal, args=("self", "other"))


# ---- isin ---------------------------------------------------------------------------------------

def _isin_rule(spec, ins, params):
    if not any(isinstance(x, Tensor) for x in ins):
        got = ", ".join(type(x).__name__ for x in ins)
        raise TypeError(
            f"isin() received an invalid combination of arguments - got ({got}), but expected "
            "one of:\n * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)\n * (Number element, Tensor test_elements, "
            "*, bool assume_unique = False, bool invert = False, Tensor out = None)\n * (Tensor "
            "elements, Number test_element, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None)\n")
    return dtypes.bool_


def _isin_fwd(xp, a, b, out=None, dt=None, assume_unique=False, invert=False):
    return xp.isin(a, b, invert=invert)


register(OpSpec(name="isin", forward=_isin_fwd, args=("elements", "test_elements"),
                params={"assume_unique": False, "invert": False}, dtype_rule=_isin_rule,
                method=False, doc="isin(elements, test_elements, *, assume_unique=False, "
                                  "invert=False)"))


# ---- unravel_index ------------------------------------------------------------------------------

def unravel_index(indices, shape):
    """Flat indices -> one index tensor per dim of ``shape`` (views: ``unbind`` of one tensor)."""
    from .. import creation

    if indices.is_complex() or indices.is_floating_point() or indices._dtype is dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got "
                        f"torch.{indices._dtype.name}")
    if isinstance(shape, int):
        shape = (shape,)
    elif not isinstance(shape, (list, tuple)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for n in shape:
        if not isinstance(n, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(n)}")
    shape = tuple(shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coefs = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        coefs[i] = coefs[i + 1] * shape[i + 1]
    dev = indices.device
    div = creation.tensor(coefs if shape else [1], dtype=dtypes.int64, device=dev)
    mod = creation.tensor(list(shape), dtype=dtypes.int64, device=dev)
    res = dispatch.call(OPS["remainder"], (
        dispatch.call(OPS["floor_divide"], (indices.unsqueeze(-1), div), {}), mod), {})
    return res.unbind(-1)


_composite(unravel_index, method=False, args=("indices",))


# ---- nansum / nanmean ---------------------------------------------------------------------------

def _nansum_dtype(spec, ins, params):
    if ins[0]._dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    return reduction._sum_dtype(spec, ins, params)


def _nansum_fwd(xp, a, out=None, dt=None, dim=None, keepdim=False, dtype=None):
    if xp is backend.np:  # PyTorch's order of additions (see cascade_sum)
        r = torch_nansum(a, reduction.dims_of(dim, a.ndim), keepdim, dt.np)
        if r is not None:
            return r
    with backend.np.errstate(all="ignore"):  # (numpy's Python wrapper would warn from its own frame)
        return xp.nansum(a, axis=reduction.dims_of(dim, a.ndim), keepdims=keepdim, dtype=dt.np)


def _nansum_bw(c, g):
    """The sum's gradient, zero where the input was nan (PyTorch's nansum_backward)."""
    x = c["self"]
    if g._dtype is not x._dtype:
        g = g.to(x._dtype)
    g = reduction.expand_back(g, c.input_meta[0][0], c["dim"], c["keepdim"])
    return g * x.isnan().logical_not()


register(OpSpec(name="nansum", forward=_nansum_fwd, backward=_nansum_bw, saves=("self",),
                dtype_rule=_nansum_dtype, params={"dim": None, "keepdim": False, "dtype": None},
                node_name="NansumBackward0",
                doc="nansum(input, dim=None, keepdim=False, *, dtype=None)"))


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """PyTorch's composite: ``nansum(x, dim) / (number of non-nan elements)``."""
    if not (input._dtype.is_floating_point or input._dtype.is_complex):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input._dtype.torch_name}")
    kw = {"dim": dim, "keepdim": keepdim}
    count = dispatch.call(OPS["sum"], (input.isnan().logical_not_(),), kw)
    if out is not None:  # PyTorch's nanmean_out: nansum into out, then out.div_ (two bumps)
        dispatch.call(OPS["nansum"], (input,), {**kw, "dtype": dtype, "out": out})
        return dispatch.call_inplace(OPS["div"], (out, count), {})
    total = dispatch.call(OPS["nansum"], (input,), {**kw, "dtype": dtype})
    return dispatch.call(OPS["div"], (total, count), {})


_composite(nanmean)


# ---- std_mean / var_mean: two outputs of one node -----------------------------------------------

def _stat_mean_fwd(root):
    stat = reduction._var_fwd(root)

    def fwd(xp, a, out=None, dt=None, dim=None, unbiased=None, keepdim=False, correction=None):
        axes, _, kd = reduction._var_args(a.ndim, dim, unbiased, keepdim, correction)
        return (stat(xp, a, dim=dim, unbiased=unbiased, keepdim=keepdim, correction=correction),
                xp.mean(a, axis=axes, keepdims=kd))

    return fwd


def _stat_mean_bw(root):
    stat_bw = reduction._var_bw(root)

    def bw(c, g_stat, g_mean=None):
        shape = c.input_meta[0][0]
        axes, _, kd = reduction._var_args(len(shape), c["dim"], c["unbiased"], c["keepdim"],
                                          c["correction"])
        g = stat_bw(c, g_stat) if g_stat is not None else None
        if g_mean is not None:
            n = math.prod(shape[d] for d in axes)
            gm = reduction.expand_back(g_mean, shape, axes, kd) / n
            g = gm if g is None else g + gm
        return g

    return bw


def _two_outputs(spec, args, kwargs):
    """Both results of ``spec`` as outputs 0 and 1 of one node (the dispatcher's steps)."""
    ins, params, _ = dispatch.bind(spec, args, kwargs)
    dev, pol = dispatch.device_of(spec, ins)
    dt = dispatch.result_dtype(spec, ins, params)
    xp = backend.xp_of(dev)
    res = spec.forward(xp, ins[0]._a, out=None, dt=dt, **params)
    outs = tuple(Tensor._wrap(xp.asarray(r), dev, pol) for r in res)
    if dispatch._needs_grad(spec, ins):
        node = dispatch.make_node(spec, ins, params, pol)
        dispatch.save_inputs(node, spec, ins, pol)
        for i, o in enumerate(outs):
            dispatch.set_history(o, node, i)
        dispatch.save_result(node, spec, outs[0], pol)
    if hooks.active:
        hooks.emit_op(spec, "normal", ins, list(outs))
    return outs


_VAR_PARAMS = {"dim": None, "unbiased": None, "keepdim": False, "correction": None}
for _name, _root, _node in (("std_mean", True, "StdMeanBackward0"),
                            ("var_mean", False, "VarMeanBackward0")):
    register(OpSpec(
        name=f"_{_name}", forward=_stat_mean_fwd(_root), backward=_stat_mean_bw(_root),
        params=dict(_VAR_PARAMS), saves=("self", "result") if _root else ("self",),
        dtype_rule=reduction._require_float(
            lambda dt, n=_name: f"{n} only support floating point and complex dtypes"),
        node_name=_node, method=False, function=False, out=False))


def std_mean(input, *args, **kwargs):
    """``(std, mean)`` over ``dim`` (``correction``/``unbiased`` as ``std``): one StdMeanBackward0."""
    return _two_outputs(OPS["_std_mean"], (input,) + args, kwargs)


def var_mean(input, *args, **kwargs):
    """``(var, mean)`` over ``dim``: one VarMeanBackward0 node with two outputs."""
    return _two_outputs(OPS["_var_mean"], (input,) + args, kwargs)


_composite(std_mean, method=False)
_composite(var_mean, method=False)


# ---- searchsorted / bucketize -------------------------------------------------------------------

def _search_dtype(spec, ins, params):
    return dtypes.int32 if params["out_int32"] else dtypes.int64


def _bsearch(xp, bnd, vals, right, sorter):
    """PyTorch's lower/upper bound, vectorised: the first i with ``b[i] >= v`` (``> v`` when
    ``right``), comparing as its C++ loop does (a nan value or boundary sorts last)."""
    n = bnd.shape[-1]
    rows = 1 if bnd.ndim == 1 else math.prod(bnd.shape[:-1])
    b2 = bnd.reshape(rows, n)
    v2 = xp.asarray(vals).reshape(rows, -1)
    s2 = None if sorter is None else sorter.reshape(rows, n)
    lo = xp.zeros(v2.shape, dtype=xp.int64)
    hi = xp.full(v2.shape, n, dtype=xp.int64)
    while True:
        active = lo < hi
        if not active.any():
            break
        mid = lo + ((hi - lo) >> 1)
        at = xp.minimum(mid, n - 1)
        if s2 is not None:
            at = xp.take_along_axis(s2, at, axis=1)
        mv = xp.take_along_axis(b2, at, axis=1)
        go = ~(mv > v2) if right else ~(mv >= v2)
        lo = xp.where(active & go, mid + 1, lo)
        hi = xp.where(active & ~go, mid, hi)
    return lo.reshape(xp.asarray(vals).shape)


def _search_fwd(xp, bnd, vals, sorter, out=None, dt=None, out_int32=False, right=False,
                side=None):
    if bnd.dtype == bool:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    if sorter is not None and bnd.shape[-1] and (
            int(sorter.min()) < 0 or int(sorter.max()) >= bnd.shape[-1]):
        raise RuntimeError("torch.searchsorted(): sorter index out of range")
    return _bsearch(xp, bnd, vals, right or side == "right", sorter).astype(dt.np)


_SEARCH = register(OpSpec(name="_searchsorted", forward=_search_fwd,
                          args=("sorted_sequence", "input", "sorter"),
                          params={"out_int32": False, "right": False, "side": None},
                          dtype_rule=_search_dtype, method=False, function=False))


def _check_search(b, v, side, right, sorter):
    pre = "torch.searchsorted(): "
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{pre}side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(f"{pre}side and right can't be set to opposites, got side of "
                               f"{side} while right was True")
    if sorter is not None:
        if sorter._shape != b._shape:
            raise RuntimeError(f"{pre}boundary and sorter must have the same size, but got "
                               f"boundary tensor {list(b._shape)}and got sorter tensor "
                               f"{list(sorter._shape)}")
        if sorter._dtype is not dtypes.int64:
            raise RuntimeError(f"{pre}sorter must be a tensor of long dtype but got dtype "
                               f"{sorter._dtype.torch_name}")
    vdim, vshape = (v.ndim, v._shape) if isinstance(v, Tensor) else (0, ())
    if vdim == 0 and b.ndim != 1:
        raise RuntimeError(f"{pre}input value can be a scalar only when boundaries tensor "
                           f"dimension is 1, but we got boundaries tensor dim({b.ndim}) and "
                           f"input value's dim(0) numel(1)")
    if b.ndim == 0:
        raise RuntimeError(f"{pre}boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if b.ndim != 1 and (vdim != b.ndim or vshape[:-1] != b._shape[:-1]):
        raise RuntimeError(f"{pre}boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, "
                           f"but we got boundaries tensor {list(b._shape)} and input value "
                           f"tensor {list(vshape)}")


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Insertion points of ``input`` in the innermost dim of ``sorted_sequence`` (int64, or int32
    with ``out_int32``); ``right``/``side='right'`` puts equal values after their matches."""
    _check_search(sorted_sequence, input, side, right, sorter)
    kw = {"out_int32": out_int32, "right": right, "side": side}
    if out is not None:
        kw["out"] = out
    return dispatch.call(_SEARCH, (sorted_sequence, input, sorter), kw)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value: ``searchsorted(boundaries, input, right=right)``."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


_composite(searchsorted, method=False, args=("sorted_sequence", "input"))
_composite(bucketize, method=False, args=("self", "boundaries"))


# ---- histc --------------------------------------------------------------------------------------

def _histc_dtype(spec, ins, params):
    dt = ins[0]._dtype
    if not dt.is_floating_point:  # (a bool input fails first in the bin edges' linspace)
        kernel = "linspace_cpu" if dt is dtypes.bool_ else "aminmax_cpu" if dt.is_complex \
            else "histogram_cpu"  # (complex: the range's aminmax fails first)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dt.torch_name}'")
    return dt


def _g(v):
    return "-nan" if math.isnan(v) else f"{v:g}"


def _histc_fwd(xp, a, out=None, dt=None, bins=100, min=0, max=0):
    """Counts in ``bins`` equal bins over [min, max] (the data's range when both are equal);
    values outside are ignored, a value equal to max counts in the last bin. The bin of a value
    is PyTorch's arithmetic ``int((x - lo) * bins / (hi - lo))`` in the input's dtype."""
    if isinstance(bins, bool) or not isinstance(bins, int):
        raise TypeError(f"histc(): argument 'bins' must be int, not {type(bins).__name__}")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_g(lo)}, {_g(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    edges = xp.linspace(lo, hi, bins + 1).astype(a.dtype)
    left, right = edges[0], edges[-1]
    x = a.reshape(-1)
    x = x[(x >= left) & (x <= right)]
    pos = ((x - left) * a.dtype.type(bins) / (right - left)).astype(xp.int64)
    pos = xp.minimum(pos, bins - 1)
    return xp.bincount(pos, minlength=bins).astype(a.dtype)


register(OpSpec(name="histc", forward=_histc_fwd, params={"bins": 100, "min": 0, "max": 0},
                dtype_rule=_histc_dtype, doc="histc(input, bins=100, min=0, max=0, *, out=None)"))


# ---- bincount -----------------------------------------------------------------------------------

def _bincount_dtype(spec, ins, params):
    x, w = ins[0], ins[1] if len(ins) > 1 else None
    if x._dtype.category != 1:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{x._dtype.torch_name}'")
    if w is None:
        return dtypes.int64
    return w._dtype if w._dtype.is_floating_point else dtypes.float64  # (int weights: double)


def _bincount_fwd(xp, a, weights=None, out=None, dt=None, minlength=0):
    """How often each value occurs in a 1-d tensor of non-negative integers (summed weights
    when given), ``max(x) + 1`` entries or ``minlength``."""
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != a.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    return xp.bincount(a, weights=weights, minlength=minlength).astype(dt.np, copy=False)


register(OpSpec(name="bincount", forward=_bincount_fwd, args=("self", "weights"),
                optional_args=("weights",), params={"minlength": 0}, dtype_rule=_bincount_dtype,
                backward=gather_scatter._no_derivative("bincount"),
                node_name="torch::autograd::NotImplemented", out=False,
                doc="bincount(input, weights=None, minlength=0)"))
