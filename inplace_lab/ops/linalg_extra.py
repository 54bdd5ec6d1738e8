"""More linear algebra from course notebooks: tensordot, inner, kron, cross, cdist, dist,
trapezoid, vander (and, in the modules imported at the end, einsum, det/slogdet/inverse/svd,
multinomial and the functional normal, quantile).

Where PyTorch composes an op of others (tensordot is permute -> reshape -> ``mm``; kron
is two views and a ``mul``; trapezoid is slices, an add and a sum; vander is a cumprod
copied into slices) the function here calls the same table ops, so the graph shows
PyTorch's nodes and autograd needs no new formula. Where PyTorch has a node of its own
(``LinalgCrossBackward0``, ``CdistBackward0``, ``EuclideanDistBackward0``,
``DistBackward0``) the op is a table entry with its backward written in tensor ops, so
``create_graph=True`` differentiates it again.

>>> import inplace_lab as il
>>> a = il.tensor([[0., 0.], [3., 4.]], requires_grad=True)
>>> d = il.cdist(a, a); d.tolist(), d.grad_fn.name()
([[0.0, 5.0], [5.0, 0.0]], 'CdistBackward0')
"""
from __future__ import annotations

import math
import warnings

from .. import backend, dtypes, layout
from ..tensor import Tensor
from . import dispatch
from .elementwise import SCALAR, _sub_dtype, assign, promote
from .methods import unsafe_view
from .table import OPS, OpSpec, register


def _sum_back(g, meta):
    """A gradient of a broadcast result, summed back to the input's shape."""
    return g.sum_to_size(meta[0]) if tuple(g.shape) != tuple(meta[0]) else g


def _same_dtype(a, b, message=None):
    if a._dtype is not b._dtype:
        raise RuntimeError(message or f"expected scalar type {a._dtype.torch_name} but found "
                                      f"{b._dtype.torch_name}")


# ---- tensordot and inner -------------------------------------------------------------------------

def _tensordot_dims(a, b, dims):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))  # PyTorch's lists: the error names -1
    d1, d2 = dims
    d1 = [d1] if isinstance(d1, int) else list(d1)
    d2 = [d2] if isinstance(d2, int) else list(d2)
    return d1, d2


def tensordot(a, b, dims=2, out=None):
    """``torch.tensordot``: contract ``dims`` (an int: a's last and b's first dims; or two
    lists) as one ``mm`` of the permuted, flattened operands (a ``dot`` for a full one)."""
    dims1, dims2 = _tensordot_dims(a, b, dims)
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    _same_dtype(a, b, "both inputs should have same dtype")
    w1 = [layout.wrap_dim(d, a.ndim) for d in dims1]
    w2 = [layout.wrap_dim(d, b.ndim) for d in dims2]
    csize, t1, t2 = 1, a, b
    for d1, d2, r1, r2 in zip(w1, w2, dims1, dims2):
        s1, s2 = a.shape[d1], b.shape[d2]
        if s2 == 1:  # a broadcast dimension is summed right away
            t1 = t1.sum(d1, True)
        elif s1 == 1:
            t2 = t2.sum(d2, True)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} "
                                   f"in dim {r1} and second has size {s2} in dim {r2}")
            csize *= s1
    p1 = [i for i in range(a.ndim) if i not in w1]
    p2 = [i for i in range(b.ndim) if i not in w2]
    rsizes = [t1.shape[i] for i in p1] + [t2.shape[i] for i in p2]
    size1, size2 = math.prod(t1.shape[i] for i in p1), math.prod(t2.shape[i] for i in p2)
    if size1 != 1 or size2 != 1:
        r = t1.permute(p1 + w1).reshape(size1, csize).mm(t2.permute(w2 + p2).reshape(csize, size2))
    else:  # everything contracted: PyTorch's dot (contiguous) or mul + sum
        t1, t2 = t1.permute(p1 + w1), t2.permute(w2 + p2)
        if t1.is_contiguous() and t2.is_contiguous():
            r = t1.flatten().dot(t2.flatten())
        else:
            r = (t1.squeeze() * t2.squeeze()).sum(dtype=t1.dtype)
    r = r.reshape(rsizes)
    if out is not None:
        if out._dtype is not r._dtype:
            raise RuntimeError(f"tensordot: Expected the output tensor to have dtype "
                               f"{r._dtype.torch_name}, but got an output tensor with dtype "
                               f"{out._dtype.torch_name}")
        return out.resize_(r.shape).copy_(r) if out.shape != r.shape else out.copy_(r)
    return r


def inner(input, other, *, out=None):
    """``torch.inner``: the sum over the last dims (tensordot over -1/-1); a scalar operand
    multiplies."""
    if out is not None:
        raise TypeError("inner(): out= is not supported here")
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def kron(input, other, *, out=None):
    """``torch.kron``: ``a`` viewed as (n0, 1, n1, 1, ...), ``b`` as (1, m0, 1, m1, ...),
    multiplied and viewed back (UnsafeViewBackward0 over MulBackward0, as PyTorch)."""
    if out is not None:
        raise TypeError("kron(): out= is not supported here")
    nd = max(input.ndim, other.ndim)
    pa, pb = nd - input.ndim, nd - other.ndim
    a_shape, b_shape, r_shape = [], [], []
    for i in range(nd):
        sa = input.shape[i - pa] if i >= pa else 1
        sb = other.shape[i - pb] if i >= pb else 1
        a_shape += [sa, 1]
        b_shape += [1, sb]
        r_shape.append(sa * sb)

    return _unsafe_view_result(_unsafe_alias(input, a_shape) * _unsafe_alias(other, b_shape),
                               r_shape)


def _unsafe_view_result(t, shape):
    """``_unsafe_view`` of a fresh result: its own geometry rewritten (not a view), with the
    strides a view would get; PyTorch's view error when none exist."""
    if t.is_contiguous():
        return unsafe_view(t, shape)
    strides = layout.view_strides(t._shape, t._strides, tuple(shape))
    if strides is None:
        return t.view(shape)  # raises PyTorch's "view size is not compatible ..."
    node = dispatch.make_node(OPS["_unsafe_view"], [t], {}, t._policy) if t._grad_fn else None
    t._set_geometry(tuple(shape), strides)
    if node is not None:
        t._grad_fn = None
        dispatch.set_history(t, node)
    return t


def _unsafe_alias(t, shape):
    """PyTorch's ``_unsafe_view`` of an input: ``t.view(shape)`` (same error when the strides
    do not allow it) recorded as UnsafeViewBackward0 rather than ViewBackward0. Internal:
    the alias never reaches the user, so no view bookkeeping is needed for it."""
    if not (dispatch._gm.enabled and t.requires_grad):
        return t.view(shape)
    from ..autograd import no_grad

    with no_grad():
        v = t.view(shape)
    dispatch.set_history(v, dispatch.make_node(OPS["_unsafe_view"], [t], {}, t._policy))
    return v


# ---- cross ---------------------------------------------------------------------------------------

def _cross_fwd(xp, a, b, out=None, dt=None, dim=-1):
    with backend.np.errstate(all="ignore"):  # (numpy's Python cross would warn from its own frame)
        r = xp.cross(a, b, axis=dim)
    return assign(xp, out, r.astype(dt.np, copy=False))


def _cross_rule(spec, ins, params):
    a, b = ins
    if a.ndim != b.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    shape = layout.broadcast_shapes(a.shape, b.shape)
    d = layout.wrap_dim(params["dim"], len(shape))
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {params['dim']} must have length 3. "
                           f"Got {a.shape[d]} and {b.shape[d]}")
    if a._dtype is dtypes.bool_:  # (ATen's cross kernel, dispatched on self's dtype, then other's)
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    _same_dtype(a, b)
    return a._dtype


def _cross_bw(c, g):
    d = c["dim"]
    ga = _sum_back(dispatch.call(CROSS, (c["other"], g), {"dim": d}), c.input_meta[0]) \
        if c.needs_input_grad[0] else None
    gb = _sum_back(dispatch.call(CROSS, (g, c["self"]), {"dim": d}), c.input_meta[1]) \
        if c.needs_input_grad[1] else None
    return ga, gb


CROSS = register(OpSpec(
    name="linalg_cross", forward=_cross_fwd, backward=_cross_bw, args=("self", "other"),
    params={"dim": -1}, dtype_rule=_cross_rule, saves=("self", "other"), method=False,
    save_if={"self": "other", "other": "self"}, node_name="LinalgCrossBackward0",
    doc="torch.linalg.cross(input, other, *, dim=-1): the cross product of 3-vectors along dim."))


def cross(input, other, dim=None, *, out=None):
    """``torch.cross``: linalg.cross, but without ``dim`` the first dimension of size 3 (with
    PyTorch's deprecation warning)."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                      "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
                      "default value of dim will change to agree with that of linalg.cross in a "
                      "future release.", UserWarning, stacklevel=2)
        shape = layout.broadcast_shapes(input.shape, other.shape)
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    kw = {"dim": dim} if out is None else {"dim": dim, "out": out}
    return dispatch.call(CROSS, (input, other), kw)


# ---- cdist and dist ------------------------------------------------------------------------------

def _pnorm(xp, m, p, axis):
    """The p-norm of non-negative ``m`` along ``axis`` (p = 0 counts the non-zeros)."""
    if p == 0:
        return xp.sum(m != 0, axis=axis).astype(m.dtype)
    if p == 1:
        return xp.sum(m, axis=axis)
    if p == 2:
        return xp.sqrt(xp.sum(m * m, axis=axis))
    if math.isinf(p):
        return xp.max(m, axis=axis, initial=0) if m.ndim else m
    return xp.sum(m ** p, axis=axis) ** (1.0 / p)


def _cdist_fwd(xp, x1, x2, out=None, dt=None, p=2.0):
    diff = xp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    return assign(xp, out, _pnorm(xp, diff, p, -1).astype(dt.np, copy=False))


def _pair_grad(diff, dist, g, p):
    """d dist / d x1 for each pair, times the pair's gradient (PyTorch's _cdist_backward)."""
    if p == 0:
        return diff * 0
    if p == 1:
        return g * diff.sign()
    if math.isinf(p):
        return g * diff.sign() * (diff.abs() == dist)
    if p == 2:
        return (g * diff / dist).where(dist != 0, 0)
    if p < 2:
        zero = (dist == 0) | ((diff == 0) & (p < 1))
        return (diff.sign() * diff.abs() ** (p - 1) * g / dist ** (p - 1)).where(~zero, 0)
    return (diff * diff.abs() ** (p - 2) * g / dist ** (p - 1)).where(dist != 0, 0)


def _cdist_bw(c, g):
    x1, x2, r, p = c["x1"], c["x2"], c["result"], c["p"]
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., r1, r2, m)
    pg = _pair_grad(diff, r.unsqueeze(-1), g.unsqueeze(-1), p)
    g1 = _sum_back(pg.sum(-2), c.input_meta[0]) if c.needs_input_grad[0] else None
    g2 = _sum_back(-pg.sum(-3), c.input_meta[1]) if c.needs_input_grad[1] else None
    return g1, g2


def _float_pair(name, x1, x2):
    for label, t in (("X1", x1), ("X2", x2)):
        if not t._dtype.is_floating_point:
            raise RuntimeError(f"{name} only supports floating-point dtypes, {label} got: "
                               f"{t._dtype.torch_name}")


def _cdist_rule(spec, ins, params):
    _same_dtype(*ins)
    return ins[0]._dtype


CDIST = register(OpSpec(
    name="_cdist_forward", forward=_cdist_fwd, backward=_cdist_bw, args=("x1", "x2"),
    params={"p": 2.0}, dtype_rule=_cdist_rule, saves=("x1", "x2", "result"),
    node_name="CdistBackward0", method=False, function=False, out=False,
    doc="pairwise p-norm distances of the rows, batch dims broadcast (CdistBackward0)."))


def _euclid_fwd(xp, x1, x2, out=None, dt=None):
    """PyTorch's matrix-product form: |a|^2 - 2 a.b + |b|^2, clamped at 1e-30, then sqrt."""
    n1 = (x1 * x1).sum(-1, keepdims=True)
    n2 = (x2 * x2).sum(-1, keepdims=True)
    a = xp.concatenate([-2 * x1, n1, xp.ones_like(n1)], -1)
    b = xp.concatenate([x2, xp.ones_like(n2), n2], -1)
    r = xp.matmul(a, xp.swapaxes(b, -1, -2))
    return assign(xp, out, xp.sqrt(xp.maximum(r, 1e-30)).astype(dt.np, copy=False))


def _euclid_bw(c, g):
    x1, x2, r = c["x1"], c["x2"], c["result"]
    ratio = (g / r).masked_fill(r == 0, 0)
    g1 = x1 * ratio.sum(-1, True) - ratio.matmul(x2) if c.needs_input_grad[0] else None
    g2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1) if c.needs_input_grad[1] else None
    return g1, g2


EUCLID = register(OpSpec(
    name="_euclidean_dist", forward=_euclid_fwd, backward=_euclid_bw, args=("x1", "x2"),
    dtype_rule=_cdist_rule, saves=("x1", "x2", "result"), method=False, function=False,
    out=False, doc="cdist p=2 through a matrix product (EuclideanDistBackward0)."))

_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
          "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """``torch.cdist``: distances between the rows of x1 and of x2 (batch dims broadcast).

    p = 2 on more than 25 rows (or with ``compute_mode='use_mm_for_euclid_dist'``) goes
    through the matrix-product formula, as PyTorch's does (EuclideanDistBackward0 under a
    view); otherwise one CdistBackward0 node.
    """
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for label, t in (("X1", x1), ("X2", x2)):
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {label} got: {t.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
                           f"X2: {x2.shape[-1]}")
    _float_pair("cdist", x1, x2)
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = layout.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    mode = _MODES[compute_mode]
    if p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        out_shape = list(batch) + [r1, r2]
        if x1.ndim == 2 and x2.ndim == 2:
            return dispatch.call(EUCLID, (x1, x2), {}).view(out_shape)
        nb = math.prod(batch)
        a = x1.expand(tuple(batch) + (r1, c)).reshape(nb, r1, c)
        b = x2.expand(tuple(batch) + (r2, c)).reshape(nb, r2, c)
        return dispatch.call(EUCLID, (a, b), {}).view(out_shape)
    return dispatch.call(CDIST, (x1, x2), {"p": float(p)})


def _dist_fwd(xp, a, b, out=None, dt=None, p=2):
    m = xp.abs(xp.asarray(a, dtype=dt.np) - xp.asarray(b, dtype=dt.np))
    return assign(xp, out, xp.asarray(_pnorm(xp, m.reshape(-1), float(p), None), dtype=dt.np))


def _dist_rule(spec, ins, params):
    dt = _sub_dtype(spec, ins, params)  # (self - other first: bool is sub's error; a 0-dim
    layout.broadcast_shapes(ins[0].shape, ins[1].shape)  # other keeps self's float32)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {dt.torch_name} instead.")
    return dt


def _dist_bw(c, g):
    """The vector norm's gradient at ``self - other`` (PyTorch's norm_backward)."""
    x, r, p = c["self"] - c["other"], c["result"], float(c["p"])
    if p == 0:
        gx = x * 0
    elif p == 1:
        gx = g * x.sign()
    elif math.isinf(p):
        mask = x.abs() == r
        gx = g * x.sign() * mask / mask.sum()
    elif p == 2:
        gx = (g * x / r).where(r != 0, 0)
    else:
        gx = (g * x.sign() * x.abs() ** (p - 1) / r ** (p - 1)).where(r != 0, 0)
    return (_sum_back(gx, c.input_meta[0]) if c.needs_input_grad[0] else None,
            _sum_back(-gx, c.input_meta[1]) if c.needs_input_grad[1] else None)


register(OpSpec(
    name="dist", forward=_dist_fwd, backward=_dist_bw, args=("self", "other"), params={"p": 2},
    dtype_rule=_dist_rule, saves=("self", "other", "result"), out=False,
    doc="torch.dist(input, other, p=2): the p-norm of input - other (DistBackward0)."))


# ---- trapezoid, vander ---------------------------------------------------------------------------

def _scalar(name, t, number):
    """``at::mul(t, 0.5)`` inside an ATen composite: the Scalar overload (MulBackward1 ...)."""
    return dispatch.call(SCALAR[name], (t, number), {})


def _slice(t, dim, start, stop=None):
    return t[(slice(None),) * dim + (slice(start, stop),)]


def _zeros_except(y, dim):
    from .. import creation

    shape = [n for i, n in enumerate(y.shape) if i != dim]
    return creation.zeros(shape, dtype=y.dtype, device=y.device)


def _trapezoid_args(name, y, x, dx, dim):
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        "Tensor, dx=...), but expected one of:\n * (Tensor y, Tensor x, *, int dim "
                        "= -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = layout.wrap_dim(dim, y.ndim)
    if y._dtype is dtypes.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if x is None:
        return dim, None, 1 if dx is None else dx
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = x.view([x.shape[0] if i == dim else 1 for i in range(y.ndim)])
    elif x.ndim < y.ndim:
        x = x.view([1] * (y.ndim - x.ndim) + list(x.shape))
    return dim, _slice(x, dim, 1) - _slice(x, dim, 0, -1), None


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.trapezoid``: the trapezoid rule along ``dim``, with sample points ``x`` or a
    constant spacing ``dx`` (PyTorch's formulas, so the same nodes and rounding)."""
    dim, dxs, step = _trapezoid_args("trapezoid", y, x, dx, dim)
    if y.shape[dim] == 0:
        return _zeros_except(y, dim)
    if dxs is None:
        ends = _scalar("mul", y.select(dim, 0) + y.select(dim, -1), 0.5)
        return _scalar("mul", y.sum(dim) - ends, step)
    return _scalar("div", ((_slice(y, dim, 0, -1) + _slice(y, dim, 1)) * dxs).sum(dim), 2.0)


def trapz(y, x=None, *, dx=None, dim=-1):
    """``torch.trapz``: the old name of trapezoid."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.cumulative_trapezoid``: the running trapezoid sums along ``dim``."""
    dim, dxs, step = _trapezoid_args("cumulative_trapezoid", y, x, dx, dim)
    left, right = _slice(y, dim, 0, -1), _slice(y, dim, 1)
    if dxs is None:
        return _scalar("mul", left + right, step / 2.0).cumsum(dim)
    return _scalar("div", ((left + right) * dxs).cumsum(dim), 2.0)


def vander(x, N=None, increasing=False):
    """``torch.vander``: columns x**0 .. x**(N-1) (decreasing unless ``increasing``), filled
    as PyTorch does: ones, then a cumprod of x copied into the columns after the first."""
    from .. import creation

    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = dtypes.promote_types(x._dtype, dtypes.int64)
    result = creation.empty((x.shape[0], n), dtype=dt, device=x.device)
    if n > 0:
        result.fill_(1)
        if n > 1:
            result[:, 1:] = x.unsqueeze(1)
            result[:, 1:] = result[:, 1:].cumprod(1)
    return result if increasing else result.flip(1)


for _fn in (tensordot, inner, kron, cross, cdist, trapezoid, trapz, cumulative_trapezoid, vander):
    register(OpSpec(name=_fn.__name__, forward=_fn, kind="composite", doc=_fn.__doc__,
                    method=_fn in (inner, kron, cross)))

from . import einsum, linalg_inverse, quantile, sampling  # noqa: E402,F401  (register their ops)
