"""More linear algebra and numerics: addmv/addr/addbmm (and their in-place forms), vdot,
aminmax, logcumsumexp, frexp, matrix_power, matrix_exp, pinverse, qr, cholesky and
cholesky_inverse; cov, corrcoef, gradient, histogram, unique_consecutive; the functional
bernoulli, poisson and binomial.

The ``add*`` family follows addmm (ops/linalg.py): ``beta * self + alpha * product``, the
in-place form writes into ``self`` (one version bump) and refuses a product whose shape is
not the target's. Where PyTorch composes an op of others (matrix_power is matmuls, cov is
``mm`` then ``div`` then ``squeeze``, corrcoef ends in ``clip``, gradient in ``cat``) the
function here calls the same table ops, so the graph shows PyTorch's nodes. Where PyTorch
has a node of its own, the op is a table entry whose backward is written in tensor ops.

qr's Q and R are two nodes named LinalgQrBackward0 (the table differentiates the first
output of an op only), each carrying its share of PyTorch's ``linalg_qr_backward``; the
shares add up at A, as with the SVD in ops/linalg_inverse.py.

>>> import inplace_lab as il
>>> y = il.addmv(il.zeros(2), il.eye(2), il.ones(2, requires_grad=True))
>>> y.tolist(), y.grad_fn.name()
([1.0, 1.0], 'AddmvBackward0')
"""
from __future__ import annotations

import math
import warnings
from collections import namedtuple

from .. import backend, creation, dtypes, layout
from . import dispatch
from .elementwise import assign
from .join import cat
from .linalg import _check_expand, _no_bool, _same_shape, _x
from .linalg_inverse import INV, _square
from .table import OpSpec, register


def _scaled(xp, s, prod, dt, beta, alpha):
    """beta * self + alpha * prod (beta == 0 ignores self, NaN included, as PyTorch)."""
    if not (dt.is_floating_point or dt.is_complex):
        beta, alpha = int(beta), int(alpha)
    r = prod if alpha == 1 else prod * alpha
    if beta != 0:
        r = r + (s if beta == 1 else s * beta)
    r = xp.asarray(r)
    if r.shape != prod.shape:
        r = xp.broadcast_to(r, prod.shape).copy()
    return r.astype(dt.np, copy=False)


def _beta_grad(c, i, g):
    meta = c.input_meta[i]
    if meta is None or not c.needs_input_grad[i]:
        return None
    g = g if c["beta"] == 1 else g * c["beta"]
    return g.sum_to_size(meta[0]) if tuple(g.shape) != tuple(meta[0]) else g


def _alpha(c, g):
    return g if g is None or c["alpha"] == 1 else g * c["alpha"]


# ---- addmv ---------------------------------------------------------------------------------------

def _addmv_shape(ins):
    s, m, v = ins
    if m.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {s.ndim}, {m.ndim}, {v.ndim}")
    if m.shape[1] != v.shape[0] or (s.ndim == 1 and s.shape[0] not in (1, m.shape[0])):
        raise RuntimeError(f"size mismatch, got input ({s.shape[0] if s.ndim else 1}), mat "
                           f"({_x(m.shape)}), vec ({v.shape[0]})")
    return (m.shape[0],)


def _addmv_rule(spec, ins, params):
    _addmv_shape(ins)
    s, m, v = ins
    if not (s._dtype is m._dtype is v._dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{s._dtype.torch_name}, {m._dtype.torch_name}, and {v._dtype.torch_name}")
    return _no_bool(s._dtype, "addmv_impl_cpu")


def _addmv_fwd(xp, s, m, v, out=None, dt=None, beta=1, alpha=1):
    prod = xp.matmul(m, v)
    if out is None:
        _check_expand(s.shape, prod.shape, dt)
    return assign(xp, out, _scaled(xp, s, prod, dt, beta, alpha))


def _addmv_bw(c, g):
    gm = _alpha(c, g.outer(c["vec"])) if c.needs_input_grad[1] else None
    gv = _alpha(c, c["mat"].t().mv(g)) if c.needs_input_grad[2] else None
    return _beta_grad(c, 0, g), gm, gv


register(OpSpec(
    name="addmv", forward=_addmv_fwd, backward=_addmv_bw, args=("self", "mat", "vec"),
    params={"beta": 1, "alpha": 1}, dtype_rule=_addmv_rule, saves=("mat", "vec"),
    save_if={"mat": "vec", "vec": "mat"}, inplace_check=_same_shape(_addmv_shape), inplace=True,
    doc="torch.addmv(input, mat, vec, *, beta=1, alpha=1): beta * input + alpha * (mat @ vec)."))


# ---- addr ----------------------------------------------------------------------------------------

def _addr_shape(ins):
    s, a, b = ins
    if a.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {a.ndim}-D")
    if b.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {b.ndim}-D")
    return (a.shape[0], b.shape[0])


def _addr_rule(spec, ins, params):
    shape = _addr_shape(ins)
    _check_expand(ins[0].shape, shape, ins[0]._dtype)
    dt = dtypes.promote_types(dtypes.promote_types(ins[0]._dtype, ins[1]._dtype), ins[2]._dtype)
    if dt is dtypes.bool_:
        for k in ("beta", "alpha"):
            if not isinstance(params[k], bool) and params[k] not in (0, 1):
                raise RuntimeError(f"Boolean {k} only supported for Boolean results.")
    elif not (dt.is_floating_point or dt.is_complex):
        for k in ("beta", "alpha"):
            if isinstance(params[k], float):
                raise RuntimeError(f"For integral input tensors, argument {k} must not be a "
                                   "floating point number.")
    return dt


def _addr_fwd(xp, s, a, b, out=None, dt=None, beta=1, alpha=1):
    prod = a[:, None] * b[None, :]
    if dt is dtypes.bool_:
        r = (prod & bool(alpha)) | (s & bool(beta))
        return assign(xp, out, xp.broadcast_to(r, prod.shape).copy())
    return assign(xp, out, _scaled(xp, s.astype(dt.np), prod.astype(dt.np), dt, beta, alpha))


def _addr_bw(c, g):
    ga = _alpha(c, g.mv(c["vec2"])) if c.needs_input_grad[1] else None
    gb = _alpha(c, g.t().mv(c["vec1"])) if c.needs_input_grad[2] else None
    return _beta_grad(c, 0, g), ga, gb


register(OpSpec(
    name="addr", forward=_addr_fwd, backward=_addr_bw, args=("self", "vec1", "vec2"),
    params={"beta": 1, "alpha": 1}, dtype_rule=_addr_rule, saves=("vec1", "vec2"),
    save_if={"vec1": "vec2", "vec2": "vec1"}, inplace_check=_same_shape(_addr_shape),
    inplace=True,
    doc="torch.addr(input, vec1, vec2, *, beta=1, alpha=1): beta * input + alpha * outer(vec1, vec2)."))


# ---- addbmm --------------------------------------------------------------------------------------

def _addbmm_shape(ins):
    s, b1, b2 = ins
    if b1.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if b2.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor")
    if b1.shape[0] != b2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{b1.shape[0]} and {b2.shape[0]}")
    if b1.shape[2] != b2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({b1.shape[1]}x{b1.shape[2]} and "
                           f"{b2.shape[1]}x{b2.shape[2]})")
    return (b1.shape[1], b2.shape[2])


def _addbmm_rule(spec, ins, params):
    shape = _addbmm_shape(ins)
    _check_expand(ins[0].shape, shape, ins[0]._dtype)
    if not (ins[0]._dtype is ins[1]._dtype is ins[2]._dtype):
        raise RuntimeError(f"expected scalar type {ins[0]._dtype.torch_name} but found "
                           f"{(ins[1] if ins[1]._dtype is not ins[0]._dtype else ins[2])._dtype.torch_name}")
    return _no_bool(ins[0]._dtype, "addbmm")


def _addbmm_fwd(xp, s, b1, b2, out=None, dt=None, beta=1, alpha=1):
    prod = xp.matmul(b1, b2).sum(0) if b1.shape[0] else \
        xp.zeros((b1.shape[1], b2.shape[2]), dtype=dt.np)
    return assign(xp, out, _scaled(xp, s, prod, dt, beta, alpha))


def _addbmm_bw(c, g):
    b1, b2 = c.input_meta[1][0], c.input_meta[2][0]
    ge = g.unsqueeze(0).expand(b1[0], b1[1], b2[2])
    g1 = _alpha(c, ge.bmm(c["batch2"].transpose(1, 2))) if c.needs_input_grad[1] else None
    g2 = _alpha(c, c["batch1"].transpose(1, 2).bmm(ge)) if c.needs_input_grad[2] else None
    return _beta_grad(c, 0, g), g1, g2


register(OpSpec(
    name="addbmm", forward=_addbmm_fwd, backward=_addbmm_bw, args=("self", "batch1", "batch2"),
    params={"beta": 1, "alpha": 1}, dtype_rule=_addbmm_rule, saves=("batch1", "batch2"),
    save_if={"batch1": "batch2", "batch2": "batch1"}, inplace_check=_same_shape(_addbmm_shape),
    inplace=True,
    doc="torch.addbmm: beta * input + alpha * (the sum over the batch of batch1 @ batch2)."))


# ---- vdot ----------------------------------------------------------------------------------------

def _vdot_rule(spec, ins, params):
    a, b = ins
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found "
                           f"{a._dtype.torch_name} and {b._dtype.torch_name}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
            "respectively")
    return _no_bool(a._dtype, "vdot")


register(OpSpec(
    name="vdot",
    forward=lambda xp, a, b, out=None, dt=None: assign(xp, out, xp.asarray(xp.vdot(a, b), dtype=dt.np)),
    backward=lambda c, g: (g * c["other"] if c.needs_input_grad[0] else None,
                           g * c["self"] if c.needs_input_grad[1] else None),
    args=("self", "other"), dtype_rule=_vdot_rule, saves=("self", "other"),
    save_if={"self": "other", "other": "self"},
    doc="torch.vdot(input, other): the dot product, the first argument conjugated."))


# ---- aminmax -------------------------------------------------------------------------------------

def _aminmax_rule(spec, ins, params):
    a, dim = ins[0], params["dim"]
    if dim is not None:
        d = layout.wrap_dim(dim, a.ndim)
        if a.ndim and a.shape[d] == 0:
            raise IndexError(f"aminmax(): Expected reduction dim {d} to have non-zero size.")
    elif a.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if a._dtype.is_complex:
        raise RuntimeError("aminmax(): input should be real, but got complex")
    return a._dtype


def _aminmax_fwd(first):
    def fwd(xp, a, out=None, dt=None, dim=None, keepdim=False):
        axis = None if dim is None or a.ndim == 0 else layout.wrap_dim(dim, a.ndim)
        keep = keepdim if dim is not None else False
        lo = xp.asarray(xp.amin(a, axis=axis, keepdims=keep))
        hi = xp.asarray(xp.amax(a, axis=axis, keepdims=keep))
        if dim is None and keepdim:  # torch keeps every dim as size 1
            lo, hi = lo.reshape((1,) * a.ndim), hi.reshape((1,) * a.ndim)
        return (lo, hi) if first == "min" else (hi, lo)

    return fwd


def _aminmax_bw(c, g):
    """PyTorch's amax/amin gradient: shared equally among the tied extreme elements."""
    x, r = c["self"], c["result"]
    dim, keep = c["dim"], c["keepdim"]
    if dim is not None and not keep and x.ndim:
        g, r = g.unsqueeze(dim), r.unsqueeze(dim)
    mask = (x == r)
    if dim is None or not x.ndim:
        return g * mask / mask.sum()
    return g * mask / mask.sum(dim, keepdim=True)


_AMM = dict(backward=_aminmax_bw, params={"dim": None, "keepdim": False},
            dtype_rule=_aminmax_rule, saves=("self", "result"), node_name="AminmaxBackward0",
            method=False, function=False, out=False, layout="contiguous")
AMINMAX_MIN = register(OpSpec(name="_aminmax_min", forward=_aminmax_fwd("min"),
                              outputs=("min", "max"), **_AMM))
AMINMAX_MAX = register(OpSpec(name="_aminmax_max", forward=_aminmax_fwd("max"),
                              outputs=("max", "min"), **_AMM))
AminmaxResult = namedtuple("aminmax", ["min", "max"], module="inplace_lab.return_types")


def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``torch.aminmax``: (min, max) over all elements or along ``dim``."""
    if out is not None:
        raise TypeError("aminmax(): out= is not supported here")
    kw = {"dim": dim, "keepdim": keepdim}
    lo = dispatch.call(AMINMAX_MIN, (input,), kw)
    if not lo.min.requires_grad:
        return AminmaxResult(lo.min, lo.max)
    return AminmaxResult(lo.min, dispatch.call(AMINMAX_MAX, (input,), kw).max)


# ---- logcumsumexp --------------------------------------------------------------------------------

def _lcse_rule(spec, ins, params):
    dt = ins[0]._dtype
    if not (dt.is_floating_point or dt.is_complex):
        from .elementwise import under_torch

        if under_torch(ins):  # (PyTorch 2.13's kernel has no integer loop: after the dim check)
            layout.wrap_dim(params.get("dim", 0), ins[0].ndim)
            raise NotImplementedError(
                f"\"logcumsumexp_out_cpu\" not implemented for '{dt.torch_name}'")
        # integer inputs compute in the default float dtype (Paddle's facade)
        return dtypes.get_default_dtype()
    return dt


def _lcse_fwd(xp, a, out=None, dt=None, dim=0):
    a = a.astype(dt.np, copy=False)
    if a.ndim == 0:
        layout.wrap_dim(dim, 0)
        return assign(xp, out, a.copy())
    d = layout.wrap_dim(dim, a.ndim)
    with backend.np.errstate(all="ignore"):  # (cupy has no logaddexp.accumulate: the host's)
        r = backend.accumulate(xp, "logaddexp", a, d)
    return assign(xp, out, r.astype(dt.np, copy=False))


def _lcse_bw(c, g):
    """PyTorch's logcumsumexp_backward: positive and negative parts of g in log space."""
    if g.ndim == 0 or g.numel() == 0:
        return g
    x, r, d = c["self"], c["result"], c["dim"]
    lowest = float(backend.np.finfo(g.dtype.np if hasattr(g.dtype, "np") else "float64").min)

    def rev(t):
        return dispatch.call(LCSE, (t.flip(d),), {"dim": d}).flip(d)

    log_abs = g.abs().where(g != 0, 1).log()  # (zeros are masked below: no log(0) warning)
    pos = log_abs.where(g > 0, lowest)
    neg = log_abs.where(g < 0, lowest)
    return (rev(pos - r) + x).exp() - (rev(neg - r) + x).exp()


LCSE = register(OpSpec(
    name="logcumsumexp", forward=_lcse_fwd, backward=_lcse_bw, params={"dim": 0},
    dtype_rule=_lcse_rule, saves=("self", "result"), layout="contiguous",
    doc="torch.logcumsumexp(input, dim): log(cumsum(exp(input))) without overflow."))


# ---- frexp ---------------------------------------------------------------------------------------

def _frexp_rule(spec, ins, params):
    dt = ins[0]._dtype
    if not dt.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return dt


def _frexp_fwd(xp, a, out=None, dt=None):
    m, e = xp.frexp(a)
    return m.astype(dt.np, copy=False), e.astype("int32", copy=False)


FREXP = register(OpSpec(
    name="frexp", forward=_frexp_fwd, outputs=("mantissa", "exponent"), dtype_rule=_frexp_rule,
    out=False, layout="preserve",
    doc="torch.frexp(input): mantissa in [0.5, 1) and int32 exponent, input = m * 2**e."))


# ---- matrix_power, matrix_exp, pinverse ----------------------------------------------------------

def matrix_power(input, n):
    """``torch.matrix_power``: matmuls by repeated squaring, as ATen (an inverse for n < 0)."""
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {input.shape[-2]} by {input.shape[-1]} matrices")
    a = input
    if n == 0:
        eye = creation.eye(a.shape[-1], dtype=a.dtype, device=a.device).expand(a.shape)
        return _clone_contiguous(a).copy_(eye)
    if n < 0:
        a = dispatch.call(INV, (a,), {})
        n = -n
    elif n == 1:
        return _clone_contiguous(a)
    if n == 1:
        return a
    if n == 2:
        return a.matmul(a)
    if n == 3:
        return a.matmul(a).matmul(a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else z.matmul(z)
        if bit:
            result = z if result is None else result.matmul(z)
    return result


def _clone_contiguous(a):
    """``a.clone(memory_format=torch.contiguous_format)``: a C-ordered copy (CloneBackward0)."""
    return dispatch.call(CLONE_C, (a,), {})


CLONE_C = register(OpSpec(
    name="_clone_contiguous", forward=lambda xp, a, out=None, dt=None: xp.array(a, order="C"),
    backward=lambda c, g: g, dtype_rule="self", method=False, function=False, out=False,
    node_name="CloneBackward0", doc="clone(memory_format=torch.contiguous_format)."))


def _expm_host(a):
    """scipy's expm on the host: numpy has no matrix exponential, nor has cupy."""
    import numpy as np
    import scipy.linalg

    h = backend.to_numpy(a)
    if h.shape[-1] == 0:
        return h.copy()
    flat = h.reshape((-1,) + h.shape[-2:])
    return np.stack([scipy.linalg.expm(m) for m in flat]).reshape(h.shape) if flat.shape[0] \
        else h.copy()


def _mexp_fwd(xp, a, out=None, dt=None):
    r = xp.asarray(_expm_host(a)).astype(dt.np, copy=False)
    return assign(xp, out, r)


def _mexp_bw(c, g):
    """PyTorch's differential of exp at A^H in the direction g: the top-right block of
    exp([[A^H, g], [0, A^H]])."""
    a = c["self"].mH
    n = a.shape[-1]
    z = g * 0
    big = cat([cat([a, g], -1), cat([z, a], -1)], -2)
    return dispatch.call(MEXP, (big,), {})[..., :n, n:]


MEXP = register(OpSpec(
    name="matrix_exp", forward=_mexp_fwd, backward=_mexp_bw,
    dtype_rule=_square("linalg.matrix_exp"), saves=("self",),
    node_name="LinalgMatrixExpBackward0",
    doc="torch.matrix_exp(A): the matrix exponential (scipy's expm, on the host)."))


def _pinv_fwd(xp, a, out=None, dt=None, rcond=1e-15):
    if 0 in a.shape:
        r = xp.zeros(a.shape[:-2] + (a.shape[-1], a.shape[-2]), dtype=dt.np)
    else:
        r = xp.linalg.pinv(a, rcond)
    return assign(xp, out, r.astype(dt.np, copy=False))


def _pinv_rule(spec, ins, params):
    a = ins[0]
    if a.ndim < 2:
        raise RuntimeError(f"linalg.pinv(" f"{{{a._dtype.torch_name}}}" "): expected a tensor "
                           f"with 2 or more dimensions of float, double, cfloat or cdouble types")
    if not (a._dtype.is_floating_point or a._dtype.is_complex):
        raise RuntimeError(f"linalg.pinv({a._dtype.torch_name}{{{list(a.shape)}}}): expected a "
                           "tensor with 2 or more dimensions of float, double, cfloat or cdouble "
                           "types")
    return a._dtype


def _pinv_bw(c, g):
    """PyTorch's pinv_backward (real case)."""
    A, P = c["self"], c["result"]
    m, n = A.shape[-2], A.shape[-1]
    Ph, gh = P.mH, g.mH
    if m <= n:
        K = gh.matmul(P)
        KPh = K.matmul(Ph)
        return -(P.matmul(K)).mH + KPh - A.matmul(P).matmul(KPh) + \
            Ph.matmul(P).matmul(gh - K.matmul(A))
    K = P.matmul(gh)
    PhK = Ph.matmul(K)
    return -(K.matmul(P)).mH + (gh - A.matmul(K)).matmul(P).matmul(Ph) + PhK - \
        PhK.matmul(P).matmul(A)


PINV = register(OpSpec(
    name="_linalg_pinv", forward=_pinv_fwd, backward=_pinv_bw, params={"rcond": 1e-15},
    dtype_rule=_pinv_rule, saves=("self", "result"), node_name="LinalgPinvBackward0",
    method=False, function=False, out=False,
    doc="the Moore-Penrose pseudo-inverse (singular values below rcond * max are dropped)."))


def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: ``torch.linalg.pinv(input, rcond=rcond)``."""
    return dispatch.call(PINV, (input,), {"rcond": rcond})


# ---- qr ------------------------------------------------------------------------------------------

_QR_WARNING = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
    "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
    "Q, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if "
    "some else 'complete')")


def _qr_rule(spec, ins, params):
    a = ins[0]
    if a.ndim < 2:
        raise RuntimeError(f"linalg.qr: The input tensor A must have at least 2 dimensions.")
    if not (a._dtype.is_floating_point or a._dtype.is_complex):
        raise RuntimeError(f"linalg.qr: Expected a floating point or complex tensor as input. "
                           f"Got {a._dtype.torch_name}")
    return a._dtype


def _qr_arrays(xp, a, dt, mode):
    m, n = a.shape[-2:]
    if 0 in a.shape:
        k = m if mode == "complete" else min(m, n)
        q = xp.broadcast_to(xp.eye(m, k, dtype=dt.np), a.shape[:-2] + (m, k)).copy()
        return q, xp.zeros(a.shape[:-2] + (k, n), dtype=dt.np)
    q, r = xp.linalg.qr(a, mode=mode)
    return q.astype(dt.np, copy=False), r.astype(dt.np, copy=False)


def _qr_grad(Q, R, gQ, gR, mode):
    """PyTorch's linalg_qr_backward for m >= n (or mode='complete' with m <= n ... refused)."""
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    if m < n:
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "m < n here (not supported).")
    gA = None
    if gR is not None:
        gA = gR.matmul(R.mH)
    if gQ is not None:
        term = Q.mH.matmul(gQ)
        gA = -term if gA is None else gA - term
    gA = gA.triu()
    gA = gA + gA.mH
    eye = creation.eye(gA.shape[-1], dtype=gA.dtype, device=gA.device)
    gA = gA - gA * eye * 0.5
    gA = Q.matmul(gA)
    if gQ is not None:
        gA = gA + gQ
    return gA.matmul(dispatch.call(INV, (R.mH,), {}))


def _qr_q_fwd(xp, a, out=None, dt=None, mode="reduced"):
    return _qr_arrays(xp, a, dt, mode)


def _qr_r_fwd(xp, a, out=None, dt=None, mode="reduced"):
    q, r = _qr_arrays(xp, a, dt, mode)
    return r, q


QR_Q = register(OpSpec(
    name="_linalg_qr_q", forward=_qr_q_fwd, outputs=("Q", "R"), params={"mode": "reduced"},
    dtype_rule=_qr_rule, saves=("result", "R"), node_name="LinalgQrBackward0",
    backward=lambda c, g: _qr_grad(c["result"], c["R"], g, None, c["mode"]),
    method=False, function=False, out=False, doc="Q of the QR decomposition, with Q's share."))
QR_R = register(OpSpec(
    name="_linalg_qr_r", forward=_qr_r_fwd, outputs=("R", "Q"), params={"mode": "reduced"},
    dtype_rule=_qr_rule, saves=("result", "Q"), node_name="LinalgQrBackward0",
    backward=lambda c, g: _qr_grad(c["Q"], c["result"], None, g, c["mode"]),
    method=False, function=False, out=False, doc="R of the QR decomposition, with R's share."))
QrResult = namedtuple("qr", ["Q", "R"], module="inplace_lab.return_types")


def qr(input, some=True, *, out=None):
    """``torch.qr`` (deprecated): ``torch.linalg.qr(A, 'reduced' if some else 'complete')``."""
    if out is not None:
        raise TypeError("qr(): out= is not supported here")
    warnings.warn(_QR_WARNING, UserWarning, stacklevel=2)
    kw = {"mode": "reduced" if some else "complete"}
    r = dispatch.call(QR_Q, (input,), kw)
    if not r.Q.requires_grad:
        return QrResult(r.Q, r.R)
    return QrResult(r.Q, dispatch.call(QR_R, (input,), kw).R)


# ---- cholesky and cholesky_inverse -------------------------------------------------------------------

_CHOLESKY_WARNING = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
    "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced with\n"
    "U = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results for all valid "
    "(symmetric positive definite) inputs.")


def _chol_fwd(xp, a, out=None, dt=None, upper=False):
    try:
        L = xp.linalg.cholesky(a)
    except xp.linalg.LinAlgError:
        from .linalg_inverse import LinAlgError

        raise LinAlgError(_not_pd_message(a)) from None
    L = L.astype(dt.np, copy=False)
    return assign(xp, out, xp.swapaxes(L, -1, -2).copy() if upper else L)


def _not_pd_message(a):
    import numpy as np

    h = backend.to_numpy(a)
    flat = h.reshape((-1,) + h.shape[-2:])
    for k, m in enumerate(flat):
        for i in range(1, m.shape[-1] + 1):  # the order of the first leading minor that fails
            try:
                np.linalg.cholesky(m[:i, :i])
            except np.linalg.LinAlgError:
                where = f"(Batch element {k}): " if h.ndim > 2 else ""
                return (f"cholesky: {where}The factorization could not be completed because "
                        f"the input is not positive-definite (the leading minor of order {i} is "
                        "not positive-definite).")
    return "cholesky: the input is not positive-definite."


def _chol_bw(c, g):
    """PyTorch's cholesky_backward: L^{-H} Φ(L^H gL) L^{-1}, symmetrised."""
    L = c["result"]
    if c["upper"]:
        L, g = L.mH, g.mH
    Linv = dispatch.call(INV, (L,), {})
    phi = L.mH.matmul(g).tril()
    eye = creation.eye(L.shape[-1], dtype=L.dtype, device=L.device)
    phi = phi - phi * eye * 0.5
    gA = Linv.mH.matmul(phi).matmul(Linv)
    return (gA + gA.mH) * 0.5


CHOLESKY = register(OpSpec(
    name="_cholesky", forward=_chol_fwd, backward=_chol_bw, params={"upper": False},
    dtype_rule=_square("cholesky"), saves=("result",), node_name="CholeskyBackward0",
    method=False, function=False, out=False,
    doc="the Cholesky factor of a symmetric positive-definite matrix (saves only the result)."))


def cholesky(input, upper=False, *, out=None):
    """``torch.cholesky`` (deprecated): L with A = L L^H (or U = L^H with ``upper``)."""
    if out is not None:
        raise TypeError("cholesky(): out= is not supported here")
    warnings.warn(_CHOLESKY_WARNING, UserWarning, stacklevel=2)
    return dispatch.call(CHOLESKY, (input,), {"upper": upper})


def _chol_inv_fwd(xp, L, out=None, dt=None, upper=False):
    L = xp.triu(L) if upper else xp.tril(L)  # (LAPACK's potri reads one triangle only)
    A = xp.matmul(xp.swapaxes(L, -1, -2), L) if upper else xp.matmul(L, xp.swapaxes(L, -1, -2))
    return assign(xp, out, xp.linalg.inv(A).astype(dt.np, copy=False))


def _chol_inv_bw(c, g):
    """PyTorch's cholesky_inverse_backward (real case)."""
    L, r = c["self"], c["result"]
    common = r.matmul(g + g.mH).matmul(r)
    return -(L.matmul(common)) if c["upper"] else -(common.matmul(L))


register(OpSpec(
    name="cholesky_inverse", forward=_chol_inv_fwd, backward=_chol_inv_bw,
    params={"upper": False}, dtype_rule=_square("cholesky_inverse"), saves=("self", "result"),
    doc="torch.cholesky_inverse(L, upper=False): the inverse of L L^H from its Cholesky factor."))


# ---- cov, corrcoef --------------------------------------------------------------------------------

def cov(input, *, correction=1, fweights=None, aweights=None):
    """``torch.cov``: ATen's composite (a weighted mean, ``mm``, ``true_divide``, ``squeeze``)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    if input.dtype is dtypes.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.ndim < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.ndim > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got "
                               f"fweights with {fweights.ndim} dimensions")
        if fweights.dtype.is_floating_point or fweights.dtype.is_complex:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights "
                               f"with {fweights.dtype.torch_name} dtype")
        if fweights.numel() != n:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {fweights.numel()} != {n}")
        if n > 0 and bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.ndim > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got "
                               f"aweights with {aweights.ndim} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {aweights.dtype.torch_name} dtype")
        if aweights.numel() != n:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aweights.numel()} != {n}")
        if n > 0 and bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = creation.tensor(n, dtype=dtypes.int64, device=x.device)
    else:
        w_sum = w.sum()
        if not bool(w_sum != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum if aweights is not None \
            else w_sum - correction
    else:
        norm = w_sum - correction
    if bool(norm <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than "
                      "the number of observations.", UserWarning, stacklevel=2)
        norm = norm * 0
    x = x - avg.unsqueeze(1)
    c = x.mm((x * w if w is not None else x).t())
    return c.true_divide(norm).squeeze()


def corrcoef(input):
    """``torch.corrcoef``: cov scaled by the standard deviations, clipped to [-1, 1]."""
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    c = c / std.view(-1, 1)
    c = c / std.view(1, -1)
    return c.clip(-1, 1)


# ---- gradient -------------------------------------------------------------------------------------

def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """``torch.gradient``: central differences inside, one-sided (``edge_order`` 1 or 2) at the
    ends, one tensor per dim (ATen's composite: slices, sub, div, then ``cat``)."""
    if dim is None:
        dims = list(range(input.ndim))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or "
                               f"it's spacing and dim arguments to have the same length, but got "
                               f"a spacing argument of length {len(spacing)} and a dim argument of "
                               f"length {len(dims)}.")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[layout.wrap_dim(d, input.ndim)] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    out = []
    for d, h in zip(dims, spacings):
        if hasattr(h, "ndim"):
            raise NotImplementedError("torch.gradient with coordinate tensors as spacing is not "
                                      "supported here yet")
        d = layout.wrap_dim(d, input.ndim)

        def sl(start, stop=None):
            return input.narrow(d, start if start >= 0 else input.shape[d] + start,
                                (stop if stop is not None and stop >= 0 else
                                 input.shape[d] + (stop or 0)) -
                                (start if start >= 0 else input.shape[d] + start))

        center = (sl(2) - sl(0, -2)) / h
        if edge_order == 1:
            pre = (sl(1, 2) - sl(0, 1)) / h
            app = (sl(-1) - sl(-2, -1)) / h
        else:
            pre = (sl(0, 1) * -1.5 + sl(1, 2) * 2 - sl(2, 3) * 0.5) / h
            app = (sl(-3, -2) * 0.5 + sl(-2, -1) * -2 + sl(-1) * 1.5) / h
        out.append(cat([pre, center / 2, app], d))
    return tuple(out)


# ---- histogram, unique_consecutive ----------------------------------------------------------------

HistogramResult = namedtuple("histogram", ["hist", "bin_edges"], module="inplace_lab.return_types")


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """``torch.histogram``: counts (or weights) per bin; ``bins`` a count or the edges."""
    if out is not None:
        raise TypeError("histogram(): out= is not supported here")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"histogramdd" not implemented for \'{input.dtype.torch_name}\'')
    xp = backend.xp_of(input.device)
    a = input.detach()._a.reshape(-1)
    dt = input.dtype
    if hasattr(bins, "ndim"):
        edges = bins.detach()._a.astype(dt.np)
    else:
        if bins <= 0:
            raise RuntimeError("torch.histogram(): bins must be > 0, but got "
                               f"{bins} for dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif a.size:
            lo, hi = float(a.min()), float(a.max())
        else:
            lo = hi = 0.0
        if lo > hi:
            raise RuntimeError(f"torch.histogram(): min should not exceed max, but got min {lo} "
                               f"max {hi} for dimension 0")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = xp.linspace(lo, hi, bins + 1).astype(dt.np)
    nb = edges.shape[0] - 1
    inside = (a >= edges[0]) & (a <= edges[-1])
    pos = xp.searchsorted(edges, a, side="right") - 1
    pos = xp.where(pos == nb, nb - 1, pos)
    w = weight.detach()._a.reshape(-1) if weight is not None else None
    hist = xp.zeros(nb, dtype=dt.np)
    vals = xp.ones_like(a) if w is None else w.astype(dt.np)
    sel = inside
    backend.add_at(xp, hist, pos[sel], vals[sel])
    if density:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    from ..tensor import Tensor

    dev = input.device
    return HistogramResult(Tensor._wrap(xp.ascontiguousarray(hist.astype(dt.np)), dev, None),
                           Tensor._wrap(xp.ascontiguousarray(edges), dev, None))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``torch.unique_consecutive``: drop runs of equal elements (or slices along ``dim``)."""
    from ..tensor import Tensor

    xp = backend.xp_of(input.device)
    dev = input.device
    a = input.detach()._a
    if dim is None:
        flat = a.reshape(-1)
        n = flat.shape[0]
        start = xp.ones(n, dtype=bool)
        if n > 1:
            start[1:] = flat[1:] != flat[:-1]
        out_a = flat[start]
        inv = (xp.cumsum(start) - 1).reshape(a.shape)
    else:
        d = layout.wrap_dim(dim, a.ndim)
        moved = xp.moveaxis(a, d, 0)
        n = moved.shape[0]
        start = xp.ones(n, dtype=bool)
        if n > 1:
            diff = (moved[1:] != moved[:-1]).reshape(n - 1, -1)
            start[1:] = diff.any(axis=1) if diff.shape[1] else False
        out_a = xp.moveaxis(moved[start], 0, d)
        inv = xp.cumsum(start) - 1
    idx = xp.nonzero(start)[0]
    counts = xp.diff(xp.concatenate([idx, xp.asarray([n])])) if n else xp.zeros(0, dtype="int64")
    res = [Tensor._wrap(xp.ascontiguousarray(out_a), dev, None)]
    if return_inverse:
        res.append(Tensor._wrap(xp.ascontiguousarray(inv.astype("int64")), dev, None))
    if return_counts:
        res.append(Tensor._wrap(xp.ascontiguousarray(counts.astype("int64")), dev, None))
    return res[0] if len(res) == 1 else tuple(res)


# ---- functional bernoulli, poisson, binomial --------------------------------------------------------

def _gen(xp, generator=None):
    """The generator of ops/random: PyTorch's on the CPU (``rng``), cupy's on a GPU."""
    from .random import _gen as g

    return g(xp, generator)


def _float_probs(name, t):
    if not (t._dtype.is_floating_point):
        raise NotImplementedError(f'"{name}" not implemented for \'{t._dtype.torch_name}\'')
    return t._dtype


def _bern_fwd(xp, p, out=None, dt=None, generator=None):
    if not bool(((p >= 0) & (p <= 1)).all()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    if xp.__name__ == "numpy":  # (PyTorch's draws: one uniform per element of p)
        draws = _gen(xp, generator).bernoulli_tensor(p)
        return assign(xp, out, draws.reshape(p.shape).astype(dt.np))
    u = _gen(xp).random(size=p.shape)
    return assign(xp, out, (u < p).astype(dt.np))


def _sample_bw(c, g):
    return tuple(None if m is None or not c.needs_input_grad[i] else
                 creation.zeros(m[0], dtype=m[1], device=m[2])
                 for i, m in enumerate(c.input_meta))


BERN = register(OpSpec(
    name="_bernoulli_tensor", forward=_bern_fwd, backward=_sample_bw,
    dtype_rule=lambda s, ins, p: _float_probs("bernoulli_tensor_cpu_self_", ins[0]),
    node_name="BernoulliBackward0", method=False, function=False, layout="contiguous",
    params={"generator": None},
    doc="draws 1 with probability input, elementwise."))


def _poisson_fwd(xp, rate, out=None, dt=None, generator=None):
    if bool((rate < 0).any()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if xp.__name__ == "numpy":  # (PyTorch's sample_poisson, element by element)
        return assign(xp, out, _gen(xp, generator).poisson(rate).reshape(rate.shape).astype(dt.np))
    return assign(xp, out, xp.asarray(_gen(xp).poisson(rate)).astype(dt.np))  # (0-d: a scalar)


POISSON = register(OpSpec(
    name="poisson", forward=_poisson_fwd, backward=_sample_bw, out=False,
    params={"generator": None},
    dtype_rule=lambda s, ins, p: _float_probs("poisson_cpu", ins[0]), method=False,
    layout="contiguous", doc="torch.poisson(rates): Poisson draws with the given rates."))


def _binom_fwd(xp, count, prob, out=None, dt=None, generator=None):
    if xp.__name__ == "numpy":  # (PyTorch's sample_binomial, element by element)
        count, prob = xp.broadcast_arrays(count, prob)
        r = _gen(xp, generator).binomial(count, prob).reshape(count.shape)
        return assign(xp, out, r.astype(dt.np))
    r = _gen(xp).binomial(count.astype("int64"), prob)
    return assign(xp, out, xp.asarray(r).astype(dt.np))  # (0-d: a Python int)


BINOMIAL = register(OpSpec(
    name="binomial", forward=_binom_fwd, backward=_sample_bw, args=("count", "prob"), out=False,
    params={"generator": None},
    dtype_rule=lambda s, ins, p: _float_probs("binomial_cpu", ins[0]), method=False,
    layout="contiguous",
    doc="torch.binomial(count, prob): binomial draws (count trials of probability prob)."))


def bernoulli(input, p=None, *, generator=None, out=None):
    """``torch.bernoulli``: 1 with probability ``input`` (or the number ``p``) elementwise."""
    if p is not None:  # (Tensor.bernoulli(p): input's shape and dtype, probability p)
        from ..autograd import no_grad

        with no_grad():
            r = creation.empty(input.shape, dtype=input.dtype, device=input.device).bernoulli_(
                p, generator=generator)
        return r
    kw = {} if generator is None else {"generator": generator}
    return dispatch.call(BERN, (input,), kw if out is None else {**kw, "out": out})


for _fn, _method in ((aminmax, True), (matrix_power, True), (pinverse, True), (qr, True),
                     (cholesky, True), (cov, True), (corrcoef, True), (gradient, False),
                     (histogram, True), (unique_consecutive, True)):
    register(OpSpec(name=_fn.__name__, forward=_fn, kind="composite", doc=_fn.__doc__,
                    method=_method))
register(OpSpec(name="_bernoulli_front", forward=bernoulli, kind="composite",
                aliases=("bernoulli",), doc=bernoulli.__doc__))



# ---- legacy Tensor methods: new, get_device, is_cpu, resize, resize_as -------------------------------

def _new(self, *args, **kwargs):
    """``Tensor.new`` (legacy constructor): sizes give an uninitialised tensor, a sequence gives
    its data, nothing gives an empty (0,) tensor; self's dtype, device and facade unless told."""
    r = _new_tensor(self, *args, **kwargs)
    if r is not self and self._pol is not None and r._pol != self._pol:
        r._policy = self._pol
    return r


def _new_tensor(self, *args, **kwargs):
    dtype = kwargs.pop("dtype", None) or self.dtype
    device = kwargs.pop("device", None) or self.device
    if kwargs:
        raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) == 1 and not isinstance(args[0], int):
        a = args[0]
        if hasattr(a, "ndim") and hasattr(a, "_storage"):
            return a if a.dtype is dtype else a.to(dtype)
        if isinstance(a, (list, tuple)) and not all(isinstance(n, int) for n in a) or \
                isinstance(a, (list, tuple)) and any(isinstance(n, (list, tuple)) for n in a):
            return creation.tensor(a, dtype=dtype, device=device)
        from ..tensor import Size

        if isinstance(a, (list, tuple)) and not isinstance(a, Size):  # (ints: data, as torch's
            # legacy constructor reads them; a torch.Size gives the sizes)
            return creation.tensor(list(a), dtype=dtype, device=device)
        if isinstance(a, Size):  # (torch.Size([]): a 0-d tensor)
            return creation.empty(tuple(a), dtype=dtype, device=device)
        args = tuple(a)
    return creation.empty(tuple(args) if args else (0,), dtype=dtype, device=device)


def _get_device(self):
    """``Tensor.get_device``: -1 on the CPU, else the GPU's index."""
    dev = self.device
    return -1 if dev.type == "cpu" else (dev.index or 0)


def _resize_function():
    from ..autograd.function import Function

    class Resize(Function):
        """``torch.autograd._functions.Resize``: the out-of-place, deprecated resize."""

        @staticmethod
        def forward(ctx, tensor, sizes):
            ctx.sizes = tuple(tensor.shape)
            n = math.prod(sizes)
            if tensor.numel() != n:
                have = "x".join(str(s) for s in tensor.shape)
                want = "x".join(str(s) for s in sizes)
                raise RuntimeError(
                    f"requested resize to {want} ({n} elements in total), but the given tensor "
                    f"has a size of {have} ({tensor.numel()} elements). autograd's resize can "
                    "only change the shape of a given tensor, while preserving the number of "
                    "elements. ")
            return tensor.contiguous().view(sizes)

        @staticmethod
        def backward(ctx, g):
            return g.contiguous().view(ctx.sizes), None

    return Resize


def _resize(self, *sizes):
    """``Tensor.resize`` (deprecated): a reshaped copy of the same number of elements."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    return _resize_function().apply(self, tuple(sizes))


def _resize_as(self, tensor):
    """``Tensor.resize_as`` (deprecated): ``resize`` to ``tensor``'s shape."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _resize_function().apply(self, tuple(tensor.shape))


def _install_methods():
    from ..autograd.node import register_post_accumulate_grad_hook
    from ..tensor import Tensor

    Tensor.new = _new
    Tensor.get_device = _get_device
    Tensor.is_cpu = property(lambda self: self.device.type == "cpu",
                             doc="True for a tensor in CPU memory.")
    Tensor.resize = _resize
    Tensor.resize_as = _resize_as
    Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook


_install_methods()
