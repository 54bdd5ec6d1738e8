"""Reductions: sum, mean, prod, max/min, amax/amin, argmax/argmin, var/std, norm, all/any,
count_nonzero, cumsum/cumprod, with PyTorch's dtype, keepdim and grad_fn rules.

PyTorch gives one op two backward nodes depending on the overload called:
``x.sum()`` is SumBackward0, ``x.sum(0)`` SumBackward1; ``x.max()`` is MaxBackward1
(saves self and result), ``x.max(0)`` MaxBackward0 (saves the indices). Each overload is
its own table entry; the public one picks the right one with ``select``.

What each backward saves decides which in-place ops break it (SEMANTICS.md section 5):
sum, mean and cumsum save nothing; var saves its input; max/amax, norm, prod and
cumprod save input and result. Every backward is written with tensor ops, so
``create_graph=True`` differentiates it again.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import warnings
from collections import namedtuple

import numpy as _np

from .. import dtypes, layout, policy
from .cascade_sum import paddle_sum, torch_sum
from .elementwise import assign, masked_grad, overload, refuse_complex
from .table import OPS, OpSpec, register


def dims_of(dim, ndim):
    """Normalise ``dim`` (None, int or sequence) to a sorted tuple of axes."""
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        ds = tuple(sorted(layout.wrap_dim(d, ndim) for d in dim))
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"dim {ds[0]} appears multiple times in the list of dims")
        return ds
    d = layout.wrap_dim(dim, ndim)
    return (d,) if ndim else ()


def expand_back(g, in_shape, dim, keepdim):
    """Broadcast a reduced gradient back to the input's shape (PyTorch's sum_backward: a
    reduction over every dim expands its 0-dim gradient directly, so every stride is 0)."""
    if not keepdim and len(in_shape) and not (
            dim is None or isinstance(dim, (list, tuple)) and len(dim) == 0):
        for d in dims_of(dim, len(in_shape)):
            g = g.unsqueeze(d)
    return g.expand(in_shape)


def keep(t, in_shape, dim, keepdim):
    """A reduced tensor with its reduced dims put back as size 1 (ready to broadcast)."""
    if not keepdim and len(in_shape):
        for d in dims_of(dim, len(in_shape)):
            t = t.unsqueeze(d)
    return t


def _count(shape, dim):
    n = 1
    for d in dims_of(dim, len(shape)):
        n *= shape[d]
    return n


def _sel(name, full, with_dim, dim_pos=1, paddle=None):
    """``select`` for overloads: ``full`` when no dim is given, ``with_dim`` otherwise;
    ``paddle`` (a forward): for a Paddle tensor, the same spec with Paddle's kernel."""
    variants = {}

    def select(args, kwargs):
        dim = args[dim_pos] if len(args) > dim_pos else kwargs.get("dim")
        spec = OPS[with_dim] if dim is not None else OPS[full]
        if paddle is not None:  # (the Paddle facade passes every argument by name)
            pol = getattr(args[0] if args else kwargs.get("self", kwargs.get("input")), "_pol",
                          None)
            if pol is not None and policy.is_paddle(pol):
                v = variants.get(spec.name)
                if v is None:
                    v = variants[spec.name] = dataclasses.replace(spec, forward=paddle,
                                                                  select=None)
                return v
        return spec

    select.__name__ = f"select_{name}"
    return select


def _require_float(who):
    def rule(spec, ins, params):
        dt = ins[0]._dtype
        if not (dt.is_floating_point or dt.is_complex):
            raise RuntimeError(who(dt))
        return dt

    return rule


# ---- sum, mean, prod ----------------------------------------------------------------------------

def _sum_dtype(spec, ins, params):
    if params.get("dtype") is not None:
        return dtypes.from_any(params["dtype"])
    dt = ins[0]._dtype
    return dtypes.int64 if dt.category <= dtypes.INT else dt


def _ufunc_method(xp, ufunc, method, fallback):
    """numpy's ``add.reduce`` (etc.) called directly: what ``np.sum`` calls, without its Python
    wrapper, which costs a microsecond and, on inf - inf, warns from numpy's own frame (the
    package's RuntimeWarning filter covers its own frames only). Other backends: ``fallback``."""
    if xp is _np:
        return getattr(getattr(_np, ufunc), method)
    return getattr(xp, fallback)


def _summing(order, mean=False):
    """A sum (``mean``: mean) forward that adds in ``order`` (cascade_sum's torch_sum or
    paddle_sum: the framework's own order of additions, the last bits of a float sum) where
    that models the call, else numpy's."""

    def fwd(xp, a, out=None, dt=None, dim=None, keepdim=False, dtype=None):
        axes = dims_of(dim, a.ndim)
        if xp is _np:
            r = order(a, axes, keepdim, dt.np, mean=mean)
            if r is not None:
                return r
        if not mean:
            return _ufunc_method(xp, "add", "reduce", "sum")(a, axis=axes, keepdims=keepdim,
                                                             dtype=dt.np)
        with _quiet(xp, not a.size):  # NaN over an empty slice, as torch, silently
            return xp.mean(a, axis=axes, keepdims=keepdim, dtype=dt.np)

    return fwd


_sum_fwd, _paddle_sum_fwd = _summing(torch_sum), _summing(paddle_sum)


def _sum_bw(c, g):
    return expand_back(g, c.input_meta[0][0], c["dim"], c["keepdim"])


_DIM_PARAMS = {"dim": None, "keepdim": False, "dtype": None}
register(OpSpec(name="sum", forward=_sum_fwd, backward=_sum_bw, dtype_rule=_sum_dtype,
                params=dict(_DIM_PARAMS), node_name="SumBackward0",
                select=_sel("sum", "sum", "_sum_dim", paddle=_paddle_sum_fwd), doc="sum(input, dim=None, keepdim=False, *, dtype=None)"))
register(OpSpec(name="_sum_dim", forward=_sum_fwd, backward=_sum_bw, dtype_rule=_sum_dtype,
                params=dict(_DIM_PARAMS), node_name="SumBackward1", method=False, function=False))


def _mean_dtype(spec, ins, params):
    if params.get("dtype") is not None:
        return dtypes.from_any(params["dtype"])
    dt = ins[0]._dtype
    if dt.category <= dtypes.INT:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {dt.torch_name}")
    return dt


@contextlib.contextmanager
def _quiet(xp, when=True):
    """numpy's warnings off (``when``) for a kernel whose NaN/inf PyTorch returns silently
    (the mean of an empty slice): its RuntimeWarnings and floating-point errstate."""
    if not when:
        yield
        return
    with warnings.catch_warnings(), _np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


_mean_fwd = _summing(torch_sum, mean=True)  # (PyTorch's CPU mean: its sum / the count)
_paddle_mean_fwd = _summing(paddle_sum, mean=True)  # (Eigen's MeanReducer)


def _mean_bw(c, g):
    shape = c.input_meta[0][0]
    # torch's order (grad.expand(sizes) / numel): a dense gradient, stolen by a leaf as made
    return expand_back(g, shape, c["dim"], c["keepdim"]) / _count(shape, c["dim"])


register(OpSpec(name="mean", forward=_mean_fwd, backward=_mean_bw, dtype_rule=_mean_dtype,
                params=dict(_DIM_PARAMS), node_name="MeanBackward0",
                select=_sel("mean", "mean", "_mean_dim", paddle=_paddle_mean_fwd)))
register(OpSpec(name="_mean_dim", forward=_mean_fwd, backward=_mean_bw, dtype_rule=_mean_dtype,
                params=dict(_DIM_PARAMS), node_name="MeanBackward1", method=False, function=False))


def _prod_fwd(xp, a, out=None, dt=None, dim=None, keepdim=False, dtype=None):
    return _ufunc_method(xp, "multiply", "reduce", "prod")(
        a, axis=dims_of(dim, a.ndim), keepdims=keepdim, dtype=dt.np)


def _prod_bw(c, g):
    """torch's prod_backward: ``g * result / x`` without zeros; with zeros, the product of
    the other elements as exclusive cumulative products from both ends (a NaN or inf anywhere
    in the slice reaches every gradient, as there); a full product with two zeros or more: 0."""
    x, r = c["self"], c["result"]
    shape, dim, kd = c.input_meta[0][0], c["dim"], c["keepdim"]
    if not shape:
        return g
    g, r = keep(g, shape, dim, kd), keep(r, shape, dim, kd)
    zero = x == 0
    n_zero = int(zero.sum())
    if n_zero == 0:
        return g * (r / x)
    if dim is None:
        if n_zero > 1:
            return x.new_zeros(shape)
        return g * _exclusive_products(x.reshape(-1), 0).reshape(shape)
    d = dims_of(dim, len(shape))[0]
    if shape[d] == 1:  # (prod_safe_zeros_backward returns the gradient itself: a view, which
        return g       #  AccumulateGrad copies into a leaf's layout, version 1; wide seed 110805)
    return g * _exclusive_products(x, d)


def _exclusive_products(x, d):
    """torch's prod_safe_zeros_backward (before the gradient): along ``d``, the product of
    the elements before each one times the product of those after it."""
    from .join import cat

    n = x.shape[d]
    if x.numel() == 0:
        return x.new_ones(x.shape)
    ones = x.new_ones(tuple(1 if i == d else s for i, s in enumerate(x.shape)))
    before = cat([ones, x.narrow(d, 0, n - 1)], d).cumprod(d)
    after = cat([ones, x.narrow(d, 1, n - 1).flip(d)], d).cumprod(d).flip(d)
    return before * after


register(OpSpec(name="prod", forward=_prod_fwd, backward=_prod_bw, dtype_rule=_sum_dtype,
                params=dict(_DIM_PARAMS), saves=("self", "result"), node_name="ProdBackward0",
                select=_sel("prod", "prod", "_prod_dim")))
register(OpSpec(name="_prod_dim", forward=_prod_fwd, backward=_prod_bw, dtype_rule=_sum_dtype,
                params=dict(_DIM_PARAMS), saves=("self", "result"), node_name="ProdBackward1",
                method=False, function=False))


# ---- max / min / amax / amin / argmax / argmin ------------------------------------------------

def _check_nonempty(who, a, dim, *, err=RuntimeError):
    if a.size == 0:
        if dim is None or (isinstance(dim, (list, tuple)) and not dim):
            raise err(f"{who}(): Expected reduction dim to be specified for input.numel() == 0."
                      + (" Specify the reduction dim with the 'dim' argument." if who != "argmax"
                         and who != "argmin" else ""))
        for d in dims_of(dim, a.ndim):
            if a.shape[d] == 0:
                raise IndexError(f"{who}(): Expected reduction dim {d} to have non-zero size.")


def _extreme(fname):
    def fwd(xp, a, out=None, dt=None, dim=None, keepdim=False):
        _check_nonempty(fname, a, dim)
        return getattr(xp, "max" if fname.endswith("max") else "min")(a, axis=dims_of(dim, a.ndim),
                                                                keepdims=keepdim)

    return fwd


def _even_bw(c, g):
    """Ties share the gradient evenly (max(), amax(), min(), amin() all do this)."""
    x, r = c["self"], c["result"]
    shape, dim, kd = c.input_meta[0][0], c["dim"], c["keepdim"]
    rk = keep(r, shape, dim, kd)
    mask = x == rk
    if c.spec.name in ("amax", "amin"):  # torch's scale_grad_by_count: (grad / count) * mask
        n = mask.sum(dims_of(dim, len(shape)), keepdim=True) if len(shape) else mask.sum()
        return keep(g, shape, dim, kd) / n * mask
    # max()/min(): evenly_distribute_backward; a NaN result goes to the NaN elements
    mask = mask.logical_or(x.isnan().logical_and(rk.isnan()))
    n = mask.sum(dims_of(dim, len(shape)), keepdim=True) if len(shape) else mask.sum()
    if dim is None:  # max(): grad.new_zeros(sizes).masked_fill_(mask, g / n), contiguous
        mask = mask.contiguous()  # whatever x's layout (grad_writes bumps it to version 1)
    return masked_grad(keep(g, shape, dim, kd) / n, mask)


def _arg_rule(which):
    def rule(spec, ins, params):
        if ins[0]._dtype.category == 0:
            raise RuntimeError(f"arg{which}(): does not support bool input")
        if ins[0]._dtype.category == dtypes.COMPLEX:
            raise RuntimeError(f"arg{which}(): does not support complex input")
        return _long(spec, ins, params)

    return rule


def _arg_out(ins, dt, target, inplace):
    """argmax/argmin's out= must be int64 (ATen's check, before the cast rule)."""
    if target is not dtypes.int64 and not policy.is_paddle(policy.policy_of(ins[0])):
        return (f"Expected out tensor to have dtype long int, but got {dtypes.cpp_name(target)} "
                "instead")
    return None


def _arg_fwd(fname):
    def fwd(xp, a, out=None, dt=None, dim=None, keepdim=False):
        _check_nonempty(fname, a, dim, err=IndexError)
        f = xp.argmax if fname == "argmax" else xp.argmin
        if dim is None:
            r = f(a.reshape(-1))
            return r.reshape((1,) * a.ndim) if keepdim else r
        if a.ndim == 0:
            layout.wrap_dim(dim, 0)
            return xp.zeros((), dtype="int64")
        return f(a, axis=layout.wrap_dim(dim, a.ndim), keepdims=keepdim)

    return fwd


def _minmax_dim_fwd(fname):
    def fwd(xp, a, out=None, dt=None, dim=0, keepdim=False):
        _check_nonempty(fname, a, dim, err=IndexError)
        if a.ndim == 0:
            layout.wrap_dim(dim, 0)
            return a.copy(), xp.zeros((), dtype="int64")
        d = layout.wrap_dim(dim, a.ndim)
        idx = (xp.argmax if fname == "max" else xp.argmin)(a, axis=d, keepdims=True)
        vals = xp.take_along_axis(a, idx, axis=d)
        if not keepdim:
            vals, idx = vals.squeeze(d), idx.squeeze(d)
        return vals, idx.astype("int64")

    return fwd


def _minmax_dim_bw(c, g):
    """The whole gradient goes to the element at the returned index (no sharing of ties):
    ATen's value_selecting_reduction_backward, a scatter into zeros through the saved
    indices (so indices changed behind autograd's back, ``.data``, fail as torch's do)."""
    from .. import creation

    shape, dim, kd = c.input_meta[0][0], c["dim"], c["keepdim"]
    if not len(shape):
        return g
    d = layout.wrap_dim(dim, len(shape))
    idx = keep(c["indices"], shape, dim, kd)
    return creation.zeros(shape, dtype=g._dtype, device=g.device).scatter(
        d, idx, keep(g, shape, dim, kd))


def _long(spec, ins, params):
    return dtypes.int64


for _n, _node in (("max", "Max"), ("min", "Min")):
    _other = "maximum" if _n == "max" else "minimum"

    def _select(args, kwargs, _n=_n, _other=_other):
        dim = args[1] if len(args) > 1 else kwargs.get("dim", kwargs.get("other"))
        if dim is None:
            return OPS[_n]
        if not isinstance(dim, (int, list, tuple)):  # a tensor: elementwise maximum/minimum
            return OPS[_other]
        return OPS[f"_{_n}_dim"]

    # The public max/min is the composite front below (out=(values, indices) needs it);
    # this entry stays the table's "max" (what facades resolve, gradcheck checks, the nodes).
    register(OpSpec(name=_n, forward=_extreme(_n), backward=_even_bw,
                    dtype_rule=refuse_complex("self", f"{_n}_all"),
                    grad_writes=1, params={"dim": None, "keepdim": False}, saves=("self", "result"),
                    node_name=f"{_node}Backward1", select=_select, method=False, function=False,
                    doc=f"{_n}(input) -> tensor; {_n}(input, dim, keepdim=False) -> (values, indices); "
                        f"{_n}(input, other) is {_other}."))
    _dim_spec = register(OpSpec(
        name=f"_{_n}_dim", forward=_minmax_dim_fwd(_n), backward=_minmax_dim_bw, grad_writes=2,
        dtype_rule=refuse_complex("self", f"{_n}(): does not support complex input", RuntimeError),
        params={"dim": 0, "keepdim": False}, saves=("indices",),
        outputs=("values", "indices"), node_name=f"{_node}Backward0", out=False,
        method=False, function=False))
    _dim_spec.return_type = namedtuple(_n, _dim_spec.outputs, module="inplace_lab.return_types")
    register(OpSpec(name=f"a{_n}", forward=_extreme(f"a{_n}"), backward=_even_bw,
                    dtype_rule=refuse_complex("self", f"{_n}_values_cpu"),
                    params={"dim": (), "keepdim": False}, saves=("self", "result"),
                    node_name=f"A{_n}Backward0"))
    register(OpSpec(name=f"arg{_n}", forward=_arg_fwd(f"arg{_n}"), dtype_rule=_arg_rule(_n),
                    params={"dim": None, "keepdim": False}, cast_error=_arg_out))


# ---- out=(values, indices) for the several-result overloads (max(dim), min(dim)) --------------

def call_out_multi(spec, public, ins, params, outs):
    """``torch.max(x, dim, out=(values, indices))``: every result written into its out tensor.

    PyTorch's order, and every check before the first write (so a refused call leaves each
    out tensor's data, shape and version as they were; PyTorch itself resizes ``values``
    before it looks at ``indices``' dtype): out tensors that require grad (while grad mode
    is on), the kernel's own errors (dim out of range, empty dim), each out's dtype (exactly
    the result's: no casting, unlike the one-result ``out=``), overlaps. Then an out of the
    wrong shape is resized (with PyTorch's deprecation warning if it had elements), the
    result is written, and *each* out tensor's version goes up by one. Returns
    ``<name>_out(values=..., indices=...)`` holding the out tensors themselves.
    """
    import warnings

    from .. import backend, errors, hooks
    from ..autograd import grad_mode
    from ..tensor import Tensor
    from . import dispatch

    n = len(spec.outputs)
    if not isinstance(outs, (tuple, list)) or not all(isinstance(o, Tensor) for o in outs):
        raise TypeError(f"{public}(): out= must be a tuple of {n} tensors ({', '.join(spec.outputs)}), "
                        f"got {type(outs).__name__}")
    if len(outs) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(outs)}")
    if grad_mode.state.enabled and any(isinstance(x, Tensor) and x._requires_grad
                                       for x in list(ins) + list(outs)):
        raise errors.OutRequiresGradError(
            f"{public}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.", tensor=outs[0], op=public)
    dev, _ = dispatch.device_of(spec, list(ins) + list(outs))
    dt = dispatch.result_dtype(spec, ins, params)
    xp = backend.xp_of(dev)
    res = [xp.asarray(r) for r in spec.forward(xp, *[x._a if isinstance(x, Tensor) else x
                                                   for x in ins], out=None, dt=dt, **params)]
    tensors = [x for x in ins if isinstance(x, Tensor)]
    for o, r in zip(outs, res):
        want = dtypes.from_numpy_dtype(r.dtype)
        if o._dtype is not want:
            raise errors.InplaceCastError(
                f"Expected out tensor to have dtype {dtypes.cpp_name(want)}, "
                f"but got {dtypes.cpp_name(o._dtype)} instead",
                tensor=o, op=public)
    for o, r in zip(outs, res):
        if tuple(r.shape) == o._shape:  # (a resized out is contiguous and fresh-shaped: no check)
            dispatch.check_overlap(o, tensors)
    for o, r in zip(outs, res):
        shape = tuple(r.shape)
        if shape != o._shape:
            dispatch.resize_out(o, shape, stacklevel=6)
        o._a[...] = r
        o._vc.bump()
    if hooks.active:
        hooks.emit_op(spec, "out", ins, list(outs))
    return _out_type(spec, public)(*outs)


def _out_type(spec, public):
    """PyTorch's ``torch.return_types.max_out``: made once per op."""
    t = getattr(spec, "out_return_type", None)
    if t is None:
        t = spec.out_return_type = namedtuple(f"{public}_out", spec.outputs,
                                              module="inplace_lab.return_types")
    return t


def _with_out_tuple(name):
    """The public ``max``/``min``: the table op, plus out=(values, indices) for the dim overload.

    The dispatcher's ``out=`` takes one tensor; this front sends a call with a dim and an
    ``out=`` to ``call_out_multi`` and every other call, unchanged, to ``dispatch.call``.
    """
    from . import dispatch

    full, with_dim = OPS[name], OPS[f"_{name}_dim"]

    def front(*args, **kwargs):
        out = kwargs.get("out")
        if out is not None:
            chosen = full.select(args, kwargs)
            if chosen is with_dim:
                if not isinstance(out, (tuple, list)):
                    raise TypeError(
                        f"{name}() received an invalid combination of arguments - got an out= "
                        f"{type(out).__name__}, but expected one of:\n"
                        f" * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors "
                        "out = None)")
                ins, params, outs = dispatch.bind(with_dim, args, kwargs)
                return call_out_multi(with_dim, name, ins, params, outs)
            if isinstance(out, (tuple, list)):
                raise TypeError(
                    f"{name}() received an invalid combination of arguments - out=(values, "
                    f"indices) needs a dim, but expected one of:\n"
                    f" * (Tensor input, *, Tensor out = None)\n"
                    f" * (Tensor input, Tensor other, *, Tensor out = None)")
        return dispatch.call(full, args, kwargs)

    front.__name__ = front.__qualname__ = name
    return front


for _n in ("max", "min"):
    register(OpSpec(name=f"_{_n}_front", forward=_with_out_tuple(_n), kind="composite",
                    aliases=(_n,), doc=OPS[_n].doc))


# ---- var / std ---------------------------------------------------------------------------------

def _var_args(a_ndim, dim, unbiased, keepdim, correction):
    """PyTorch's overloads: var(unbiased), var(dim, unbiased, keepdim), var(dim, *, correction)."""
    if isinstance(dim, bool):  # x.var(False): the first positional is `unbiased`
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dims_of(dim, a_ndim), correction, keepdim


def _var_fwd(root):
    def fwd(xp, a, out=None, dt=None, dim=None, unbiased=None, keepdim=False, correction=None):
        axes, corr, kd = _var_args(a.ndim, dim, unbiased, keepdim, correction)
        n = 1
        for d in axes:
            n *= a.shape[d]
        if n - corr <= 0:  # torch's own warning (the user's line: kernel, call, the entry)
            warnings.warn(f"{'std' if root else 'var'}(): degrees of freedom is <= 0. "
                          "Correction should be strictly less than the reduction factor (input "
                          "numel divided by output numel).", UserWarning, stacklevel=4)
        with _quiet(xp, not a.size or n - corr <= 0):  # NaN/inf as torch, silently
            mean = xp.mean(a, axis=axes, keepdims=True)
            sq = xp.abs(a - mean) ** 2
            v = xp.sum(sq, axis=axes, keepdims=kd) / max(n - corr, 0)
            return xp.sqrt(v) if root else v

    return fwd


def _var_bw(root):
    def bw(c, g):
        x = c["self"]
        shape = c.input_meta[0][0]
        axes, corr, kd = _var_args(len(shape), c["dim"], c["unbiased"], c["keepdim"], c["correction"])
        n = 1
        for d in axes:
            n *= shape[d]
        dim = axes if axes else None
        mean = x.mean(axes, keepdim=True) if len(shape) else x
        g = keep(g, shape, dim, kd)
        if root:  # torch's std_backward: var_backward((grad / (2 * std)).masked_fill_(std == 0, 0))
            r = keep(c["result"], shape, dim, kd)
            g = (g / (r * 2)).where(r != 0, 0.0)
        dof = n - corr
        if dof <= 0 and (dim is None or c["dim"] is None):  # torch's whole-tensor branch:
            # 2 / dof is infinite: inf * grad, NaN where x equals its mean (inf * 0)
            return g * x.new_full(shape, math.inf).where(x != mean, math.nan)
        # (2.0 / dof) * grad * (self - mean), grouped as torch (2 / 0 is inf there)
        return g * (2.0 / dof if dof else math.inf) * (x - mean)

    return bw


def _var_msg(dt):
    return "std and var only support floating point and complex dtypes"


_VAR_PARAMS = {"dim": None, "unbiased": None, "keepdim": False, "correction": None}
register(OpSpec(name="var", forward=_var_fwd(False), backward=_var_bw(False),
                dtype_rule=_require_float(_var_msg), params=dict(_VAR_PARAMS), saves=("self",)))
register(OpSpec(name="std", forward=_var_fwd(True), backward=_var_bw(True),
                dtype_rule=_require_float(_var_msg), params=dict(_VAR_PARAMS),
                saves=("self", "result")))


# ---- norm --------------------------------------------------------------------------------------

def _ord(p):
    if p is None or p == "fro":
        return 2.0
    if isinstance(p, str):
        raise RuntimeError(f"norm(): p={p!r} is a matrix norm; only vector norms (a number, inf, "
                           "-inf or 'fro') are implemented here")
    return float(p)


def _norm_fwd(xp, a, out=None, dt=None, p="fro", dim=None, keepdim=False, dtype=None):
    p = _ord(p)
    axes = dims_of(dim, a.ndim)
    m = xp.abs(a.astype(dt.np, copy=False))
    if p == math.inf:
        return xp.max(m, axis=axes, keepdims=keepdim, initial=0)
    if p == -math.inf:
        return xp.min(m, axis=axes, keepdims=keepdim)
    if p == 0:
        return xp.sum(m != 0, axis=axes, keepdims=keepdim).astype(dt.np)
    if p == 1:
        return xp.sum(m, axis=axes, keepdims=keepdim)
    if p == 2:
        return xp.sqrt(xp.sum(m * m, axis=axes, keepdims=keepdim))
    return xp.sum(m ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)


def _norm_bw(c, g):
    x, r = c["self"], c["result"]
    shape, dim, kd, p = c.input_meta[0][0], c["dim"], c["keepdim"], _ord(c["p"])
    g, r = keep(g, shape, dim, kd), keep(r, shape, dim, kd)
    if p == 0:
        return x * 0
    if p == 1:
        return g * x.sign()
    if math.isinf(p):
        mask = x.abs() == r
        n = mask.sum(dims_of(dim, len(shape)), keepdim=True) if len(shape) else mask.sum()
        return g * x.sign() * mask / n
    if p == 2:
        return (g * x / r).where(r != 0, 0)
    return (g * x.sign() * x.abs() ** (p - 1) / r ** (p - 1)).where(r != 0, 0)


def _norm_dtype(spec, ins, params):
    dt = ins[0]._dtype
    if params.get("dtype") is not None:
        return dtypes.from_any(params["dtype"])
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {dt.torch_name}")
    return dt


# The public norm (torch.norm, Tensor.norm) is the composite front in linalg_norm.py: a
# string p such as 'nuc' is a matrix norm there; this entry stays the vector norm.
register(OpSpec(name="norm", forward=_norm_fwd, backward=_norm_bw, dtype_rule=_norm_dtype,
                params={"p": "fro", "dim": None, "keepdim": False, "dtype": None},
                saves=("self", "result"), node_name="LinalgVectorNormBackward0",
                method=False, function=False))


# ---- all / any / count_nonzero ------------------------------------------------------------------

def _logic_dtype(spec, ins, params):
    return dtypes.uint8 if ins[0]._dtype is dtypes.uint8 else dtypes.bool_


def _logic(fname):
    def fwd(xp, a, out=None, dt=None, dim=None, keepdim=False):
        r = getattr(xp, fname)(a, axis=dims_of(dim, a.ndim), keepdims=keepdim)
        return xp.asarray(r).astype(dt.np)

    return fwd


def _logic_cast(name):
    """all/any's out= is a bool or uint8 tensor (ATen's check, in its words)."""
    def check(ins, dt, target, inplace):
        if target not in (dtypes.bool_, dtypes.uint8) and not policy.is_paddle(
                policy.policy_of(ins[0])):
            return f"{name} only supports bool tensor for result, got: {target.torch_name}"
        return None

    return check


register(OpSpec(name="all", forward=_logic("all"), dtype_rule=_logic_dtype,
                params={"dim": None, "keepdim": False}, cast_error=_logic_cast("all")))
register(OpSpec(name="any", forward=_logic("any"), dtype_rule=_logic_dtype,
                params={"dim": None, "keepdim": False}, cast_error=_logic_cast("any")))
register(OpSpec(name="count_nonzero", dtype_rule=_long, params={"dim": None},
                forward=lambda xp, a, out=None, dt=None, dim=None: xp.asarray(xp.count_nonzero(
                    a, axis=dims_of(dim, a.ndim) if a.ndim else None)).astype("int64")))


# ---- cumsum / cumprod (and their in-place forms) ------------------------------------------------

def _cum(fname):
    def fwd(xp, a, out=None, dt=None, dim=0, dtype=None):
        if dim is None:  # (Paddle's in-place form without an axis: along the first)
            dim = 0
        if a.ndim == 0:
            layout.wrap_dim(dim, 0)
            return assign(xp, out, a.astype(dt.np))
        acc = _CPU_ACC.get(dt.np) if xp.__name__ == "numpy" else None
        r = _ufunc_method(xp, "add" if fname == "cumsum" else "multiply", "accumulate", fname)(
            a, axis=layout.wrap_dim(dim, a.ndim), dtype=acc or dt.np)
        if fname == "cumsum" and r.dtype.kind in "fc":  # (ATen's scan starts from 0, so
            r += 0.0  # -0.0 sums to +0.0 there; numpy starts from the first: wide seed 69146)
        return assign(xp, out, r if acc is None else r.astype(dt.np))

    return fwd


# PyTorch's CPU scans accumulate in at::acc_type (float32 in double, float16 in float): the
# same sums, rounded once at the end (numpy's float32 cumsum rounds every step)
_CPU_ACC = {_np.dtype(_np.float32): _np.float64, _np.dtype(_np.float16): _np.float32,
            _np.dtype(_np.complex64): _np.complex128}


def reverse_cumsum(g, dim):
    """sum_{j >= i} g_j along ``dim``: PyTorch's reversed_cumsum, flip-cumsum-flip (its
    rounding, and its nodes under create_graph)."""
    return g.flip(dim).cumsum(dim).flip(dim)


def _cumsum_bw(c, g):
    shape = c.input_meta[0][0]
    if layout.numel(shape) <= 1 or shape[layout.wrap_dim(c["dim"], len(shape))] == 1:
        return g  # PyTorch's trivial case: the gradient itself (a leaf then copies it)
    return reverse_cumsum(g, c["dim"])


def _cumprod_bw(c, g):
    """sum_{i >= k} g_i * prod_{j <= i, j != k} x_j; divides by x when no element is zero."""
    shape = c.input_meta[0][0]
    if layout.numel(shape) <= 1:
        return g
    d = layout.wrap_dim(c["dim"], len(shape))
    if shape[d] == 1:  # PyTorch's trivial cases: the gradient itself
        return g
    x, r = c["self"], c["result"]
    if not bool((x == 0).any()):
        return reverse_cumsum(g * r, d) / x
    from .. import creation

    pos = creation.arange(shape[d], device=g.device).reshape(
        tuple(n if i == d else 1 for i, n in enumerate(shape)))
    total = x * 0
    for k in range(shape[d]):  # exact with zeros: one cumprod per position, k replaced by 1
        at_k = pos == k
        part = x.where(~at_k, 1).cumprod(d) * g * (pos >= k)
        total = total + at_k * part.sum(d, keepdim=True)
    return total


def _cum_check(name):
    """ATen's cumsum_/cumprod_: the asked dtype must be the tensor's own, and the out kernel
    has no bool version (PyTorch's checks; Paddle's in-place forms have their own)."""
    def check(target, ins, params):
        from .. import policy

        if policy.is_paddle(policy.policy_of(target)):
            return
        dt = params.get("dtype")
        if dt is not None and dtypes.from_any(dt) is not target._dtype:
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {dtypes.cpp_name(target._dtype)} and "
                f"output tensor dtype {dtypes.cpp_name(dtypes.from_any(dt))} should match")
        if target._dtype is dtypes.bool_:
            raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
    return check


def _cum_dtype(who):
    """_sum_dtype, once PyTorch's parser has its ``dim`` (required: cumsum(x) is a TypeError,
    cumsum_() too; Paddle's fronts always pass one)."""
    def rule(spec, ins, params):
        if params.get("dim") is None and not policy.is_paddle(policy.policy_of(ins[0])):
            raise TypeError(f'{who}() missing 1 required positional arguments: "dim"')
        dt = _sum_dtype(spec, ins, params)
        if dt is dtypes.bool_ and not policy.is_paddle(policy.policy_of(ins[0])) and not (
                who.endswith("_") and dt is not ins[0]._dtype):  # (then _cum_check's words)
            # (dtype=torch.bool: ATen's out kernel has no bool loop)
            raise NotImplementedError(f'"{spec.name}_out_cpu" not implemented for \'Bool\'')
        return dt

    return rule


for _n, _bw, _saves in (("cumsum", _cumsum_bw, ()), ("cumprod", _cumprod_bw, ("self", "result"))):
    _s = register(OpSpec(name=_n, forward=_cum(_n), backward=_bw, dtype_rule=_cum_dtype(_n),
                         params={"dim": None, "dtype": None}, saves=_saves, inplace=True,
                         paddle_inplace=True, inplace_check=_cum_check(_n)))
    _s.inplace_spec = overload(_s, _s.node_name, dtype_rule=_cum_dtype(_n + "_"))


# ---- sum_to_size (the engine's reduce-to-shape) --------------------------------------------------

def _sum_to_fwd(xp, a, out=None, dt=None, size=(), paddle=False):
    """``paddle``: in Paddle's order (a Paddle gradient's reduction, backward_arrays)."""
    size = tuple(size)
    lead = a.ndim - len(size)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(size) if n == 1 and a.shape[lead + i] != 1)
    if not axes:
        r = a
    elif xp is _np and (r := (paddle_sum if paddle else torch_sum)(a, axes, True, dt.np)) \
            is not None:
        pass  # (the framework's order of additions, as _sum_fwd / _paddle_sum_fwd)
    else:
        r = xp.sum(a, axis=axes, keepdims=True, dtype=dt.np)
    return r.reshape(size) if r.shape != size else r


register(OpSpec(name="sum_to_size", forward=_sum_to_fwd,
                backward=lambda c, g: g.expand(c.input_meta[0][0]), dtype_rule="self",
                params={"size": ()}, function=False, out=False, node_name="SumBackward1"))
