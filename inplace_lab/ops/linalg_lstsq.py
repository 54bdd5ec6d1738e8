"""Least squares and ranks: ``linalg.lstsq`` (LinalgLstsqBackward0 on the solution and the
residuals), ``linalg.pinv`` with atol/rtol/hermitian (LinalgPinvBackward0) and
``linalg.matrix_rank``; and PyTorch's composites over the table: ``multi_dot`` (and the
deprecated ``chain_matmul``), ``cond``, ``vecdot``, ``linalg.vander``, ``tensorinv``,
``tensorsolve``.

lstsq runs LAPACK's driver on the host (``gelsy`` by default on the CPU, as PyTorch; ``gels``,
``gelsd``, ``gelss``), so rank and singular values are there only for the drivers that give
them, and the residuals only for a tall full-rank system and a driver other than gelsy.

>>> import inplace_lab as il
>>> from inplace_lab.torch import linalg
>>> linalg.lstsq(il.tensor([[1.], [1.]]), il.tensor([[1.], [3.]])).solution.round().tolist()
[[2.0]]
"""
from __future__ import annotations

import numpy as np

from .. import backend, dtypes, layout
from . import dispatch
from .linalg_more import _pinv_bw
from .linalg_solve import (_fcontig, _matrices, _no_out, _rt, _sum_to, on_host,
                           output_nr, share_output, with_out)
from .table import OpSpec, register

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


# ---- lstsq ---------------------------------------------------------------------------------------

def _lstsq_rule(spec, ins, params):
    a, b = ins
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if b.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, "
                           f"but got input's dtype {a._dtype.torch_name} and other's dtype "
                           f"{b._dtype.torch_name}")
    diff = a.ndim - b.ndim
    if not 0 <= diff <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    layout.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-1] if diff else b.shape[:-2]))
    if a.shape[-2] != (b.shape[-1] if diff else b.shape[-2]):
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-1)" if diff
                           else "torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    driver = params["driver"]
    if driver is not None and driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of "
                           "(gels, gelsy, gelsd, gelss)")
    if a._dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    return a._dtype


def _lstsq_arrays(xp, a, b, dt, rcond, driver):
    import scipy.linalg

    driver = driver or "gelsy"
    vec = a.ndim - b.ndim == 1
    ha = backend.to_numpy(a).astype(dt.np)
    hb = backend.to_numpy(b).astype(dt.np)
    if vec:
        hb = hb[..., None]
    batch = np.broadcast_shapes(ha.shape[:-2], hb.shape[:-2])
    ha = np.ascontiguousarray(np.broadcast_to(ha, batch + ha.shape[-2:]))
    hb = np.ascontiguousarray(np.broadcast_to(hb, batch + hb.shape[-2:]))
    m, n = ha.shape[-2:]
    k = hb.shape[-1]
    if rcond is None:
        rcond = float(np.finfo(dt.np).eps) * max(m, n)
    xs, ranks, svs = [], [], []
    ma, _ = _matrices(ha)
    mb, _ = _matrices(hb)
    for A, B in zip(ma, mb):
        if 0 in A.shape or k == 0:
            xs.append(np.zeros((n, k), dt.np))
            ranks.append(0)
            svs.append(np.zeros(min(m, n), dt.np))
            continue
        if driver == "gels":
            _, x, _ = getattr(scipy.linalg.lapack, ("s" if dt.np == np.float32 else "d") + "gels")(
                A, np.concatenate([B, np.zeros((max(n - m, 0), k), dt.np)]) if n > m else B)
            xs.append(x[:n])
            ranks.append(0)
            continue
        x, _, rank, s = scipy.linalg.lstsq(A, B, cond=rcond, lapack_driver=driver)
        xs.append(np.asarray(x, dt.np))
        ranks.append(int(rank))
        svs.append(np.asarray(s, dt.np) if s is not None else np.zeros(0, dt.np))
    x = np.stack(xs).reshape(batch + (n, k)) if xs else np.zeros(batch + (n, k), dt.np)
    full = driver == "gels" or all(r == n for r in ranks)
    if m > n and driver != "gelsy" and full:
        res = ((np.matmul(ha, x) - hb) ** 2).sum(-2).astype(dt.np)
    else:
        res = np.zeros((0,), dt.np)
    rank = np.asarray(ranks, np.int64).reshape(batch) if driver != "gels" else \
        np.zeros((0,), np.int64)
    sv = np.stack(svs).reshape(batch + (min(m, n),)) if driver in ("gelsd", "gelss") and svs \
        else np.zeros((0,), dt.np)
    # (PyTorch's solution of a tall system is a view of B's column-major buffer of m rows,
    # strides (1, m); here it is column-major of its own n rows)
    x = _fcontig(xp, xp.asarray(x))
    if vec:
        x = x[..., 0]
    return x, xp.asarray(res), xp.asarray(rank), xp.asarray(sv)


@on_host
def _lstsq_sol_fwd(xp, a, b, out=None, dt=None, rcond=None, driver=None):
    return _lstsq_arrays(xp, a, b, dt, rcond, driver)


@on_host
def _lstsq_res_fwd(xp, a, b, out=None, dt=None, rcond=None, driver=None):
    x, res, rank, sv = _lstsq_arrays(xp, a, b, dt, rcond, driver)
    return res, x, rank, sv


def _as_matrix(t, vec):
    return t.unsqueeze(-1) if vec else t


def _lstsq_sol_bw(c, g):
    """PyTorch's linalg_lstsq_backward: through pinv(A) (gelsy is not deterministic)."""
    A, B = c["self"], c["b"]
    vec = A.ndim - B.ndim == 1
    gX, Bm = _as_matrix(g, vec), _as_matrix(B, vec)
    pinvA = dispatch.call(PINV_TOL, (A,), {})
    gA = gB = None
    if c.needs_input_grad[0]:
        gA = _sum_to(_pinv_grad(A, pinvA, gX.matmul(Bm.mH)), c.input_meta[0][0])
    if c.needs_input_grad[1]:
        gB = pinvA.mH.matmul(gX)
        gB = _sum_to(gB.squeeze(-1) if vec else gB, c.input_meta[1][0])
    return gA, gB


class _Ctx(dict):
    """A stand-in node context for ``_pinv_bw`` (which reads ``self`` and ``result``)."""


def _pinv_grad(A, P, g):
    return _pinv_bw(_Ctx(self=A, result=P), g)


def _lstsq_res_bw(c, g):
    """The residuals r = |A X - B|^2 per column at the optimum X: dr = 2 <AX - B, dA X - dB>."""
    if g.numel() == 0:  # (no residuals computed: nothing flows back)
        return None, None
    A, B, X = c["self"], c["b"], c["solution"]
    vec = A.ndim - B.ndim == 1
    Xm, Bm = _as_matrix(X, vec), _as_matrix(B, vec)
    R = A.matmul(Xm) - Bm
    gm = g.unsqueeze(-1).unsqueeze(-1) if vec else g.unsqueeze(-2)
    RG = R * gm * 2
    gA = _sum_to(RG.matmul(Xm.mH), c.input_meta[0][0]) if c.needs_input_grad[0] else None
    gB = None
    if c.needs_input_grad[1]:
        gB = -RG
        gB = _sum_to(gB.squeeze(-1) if vec else gB, c.input_meta[1][0])
    return gA, gB


_LSTSQ = dict(args=("self", "b"), params={"rcond": None, "driver": None},
              dtype_rule=_lstsq_rule, node_name="LinalgLstsqBackward0", method=False,
              function=False, out=False)
LSTSQ = register(OpSpec(
    name="_linalg_lstsq", forward=_lstsq_sol_fwd, backward=_lstsq_sol_bw,
    outputs=("solution", "residuals", "rank", "singular_values"), saves=("self", "b", "result"),
    doc="the least-squares solution (LAPACK's driver), with its share of the backward.",
    **_LSTSQ))
LSTSQ_RES = register(OpSpec(
    name="_linalg_lstsq_residuals", forward=_lstsq_res_fwd, backward=_lstsq_res_bw,
    outputs=("residuals", "solution", "rank", "singular_values"),
    saves=("self", "b", "solution"), doc="lstsq's residuals, with their share.", **_LSTSQ))
LinalgLstsqResult = _rt("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def linalg_lstsq(A, B, rcond=None, *, driver=None):
    """``torch.linalg.lstsq``: (solution, residuals, rank, singular_values) of min |AX - B|."""
    kw = {"rcond": rcond, "driver": driver}
    r = dispatch.call(LSTSQ, (A, B), kw)
    res = r.residuals
    if r.solution.requires_grad:
        res = dispatch.call(LSTSQ_RES, (A, B), kw).residuals
        share_output(res, "solution", r.solution, 0)
        output_nr(res, 1)
    return LinalgLstsqResult(r.solution, res, r.rank, r.singular_values)


# ---- pinv, matrix_rank ------------------------------------------------------------------------------

def _tols(xp, atol, rtol, m, n, dt):
    """PyTorch's get_atol_rtol: rtol defaults to eps * max(m, n), or 0 where atol > 0 is given."""
    eps = float(np.finfo(dt.np).eps) * max(m, n)
    a = xp.asarray(0.0 if atol is None else atol, dtype=dt.np)
    if rtol is None:
        r = eps if atol is None else xp.where(a > 0, 0.0, eps)
    else:
        r = rtol
    return a, xp.asarray(r, dtype=dt.np)


@on_host
def _pinv_tol_fwd(xp, a, out=None, dt=None, atol=None, rtol=None, hermitian=False):
    m, n = a.shape[-2:]
    if 0 in a.shape:
        return xp.zeros(a.shape[:-2] + (n, m), dt.np)
    at, rt = _tols(xp, atol, rtol, m, n, dt)
    if hermitian:
        w, V = xp.linalg.eigh(a)
        S = xp.abs(w)
        smax = S.max(-1, keepdims=True)
        tol = xp.maximum(at[..., None] if at.ndim else at, (rt[..., None] if rt.ndim else rt) * smax)
        inv = xp.where(S > tol, 1 / xp.where(S > tol, w, 1), 0)
        r = xp.matmul(V * inv[..., None, :], xp.swapaxes(V, -1, -2))
    else:
        U, S, Vh = xp.linalg.svd(a, full_matrices=False)
        smax = S[..., :1]
        tol = xp.maximum(at[..., None] if at.ndim else at, (rt[..., None] if rt.ndim else rt) * smax)
        inv = xp.where(S > tol, 1 / xp.where(S > tol, S, 1), 0)
        r = xp.matmul(xp.swapaxes(Vh, -1, -2) * inv[..., None, :], xp.swapaxes(U, -1, -2))
    return xp.ascontiguousarray(r.astype(dt.np, copy=False))


def _pinv_tol_rule(spec, ins, params):
    a = ins[0]
    if a.ndim < 2 or not (a._dtype.is_floating_point or a._dtype.is_complex):
        raise RuntimeError(f"linalg.pinv({a._dtype.torch_name}{{{list(a.shape)}}}): expected a "
                           "tensor with 2 or more dimensions of float, double, cfloat or cdouble "
                           "types")
    return a._dtype


PINV_TOL = register(OpSpec(
    name="_linalg_pinv_tol", forward=_pinv_tol_fwd, backward=lambda c, g: (_pinv_bw(c, g),),
    params={"atol": None, "rtol": None, "hermitian": False}, dtype_rule=_pinv_tol_rule,
    saves=("self", "result"), node_name="LinalgPinvBackward0", method=False, function=False,
    out=False, doc="the pseudo-inverse, singular values below max(atol, rtol * max) dropped."))


def _num(t):
    """A tolerance as a number or an array (a tensor's values)."""
    from ..tensor import Tensor

    return t.detach()._a if isinstance(t, Tensor) else t


def linalg_pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """``torch.linalg.pinv(A, *, atol=None, rtol=None, hermitian=False)`` (``rcond``: the old
    name of rtol)."""
    if rcond is not None:
        rtol, atol = rcond, 0.0 if atol is None else atol
    return with_out("linalg_pinv", lambda: dispatch.call(
        PINV_TOL, (A,), {"atol": _num(atol), "rtol": _num(rtol), "hermitian": hermitian}),
        (A,), out)


def linalg_matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """``torch.linalg.matrix_rank``: the number of singular values above max(atol, rtol * max)
    (``tol``: the old name of atol, rtol then 0)."""
    _no_out(out, "matrix_rank")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least "
                           "2 dimensions.")
    if A.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    xp = backend.xp_of(A.device)
    a = A.detach()._a
    m, n = a.shape[-2:]
    if 0 in a.shape:
        r = xp.zeros(a.shape[:-2], np.int64)
    else:
        at, rt = _tols(xp, _num(atol), _num(rtol), m, n, A.dtype)
        S = xp.abs(xp.linalg.eigvalsh(a)) if hermitian else xp.linalg.svd(a, compute_uv=False)
        smax = S.max(-1, keepdims=True)
        tol_ = xp.maximum(at[..., None] if at.ndim else at, (rt[..., None] if rt.ndim else rt) * smax)
        r = (S > tol_).sum(-1).astype(np.int64)
    from ..tensor import Tensor

    return Tensor._wrap(xp.asarray(r).copy(), A.device, A._pol)
