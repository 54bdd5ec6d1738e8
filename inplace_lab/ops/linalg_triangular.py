"""Triangular systems, QR and Paddle's variants of the table's solves: ``linalg.solve_triangular``
(LinalgSolveTriangularBackward0), the deprecated ``triangular_solve`` (TriangularSolveBackward0:
the solution and the copy of A as two parts), ``cholesky_solve`` (CholeskySolveBackward0),
``linalg.qr`` (LinalgQrBackward0, column-major Q and R as two parts); and the kernels the
Paddle facade names otherwise (its eigvalsh, its cholesky_solve gradient kept to the factor's
triangle, its one-kernel matrix_power).

Triangular solves call BLAS trsm on the host, as PyTorch's CPU kernel: no singularity check,
a zero on the diagonal gives inf/nan rather than an error.

>>> import inplace_lab as il
>>> from inplace_lab.torch import linalg
>>> linalg.solve_triangular(il.tensor([[2., 1.], [0., 4.]]), il.tensor([[3.], [4.]]),
...                         upper=True).tolist()
[[1.0], [1.0]]
"""
from __future__ import annotations

import numpy as np

from .. import backend, creation, dtypes  # noqa: F401
from . import dispatch
from .linalg_solve import (EIGH_W, INV_EX, _broadcast_batch, _fcontig, _float_rule, _lapack,
                           _matrices, _no_out, _rt, _same_dtype, _sum_to, _x, on_host,
                           output_nr, share_output, warn_once, with_out)
from .table import OpSpec, register


# ---- solve_triangular, triangular_solve ----------------------------------------------------------------

def _trsm_host(a, b, upper, left, unitriangular, trans=0):
    """BLAS trsm per matrix (no singularity check: a zero diagonal gives inf/nan, as PyTorch)."""
    f = _lapack("blas", "trsm", a.dtype)
    ma, _ = _matrices(a)
    mb, _ = _matrices(b)
    with np.errstate(all="ignore"):
        out = [f(1.0, m, rhs, side=0 if left else 1, lower=not upper, trans_a=trans,
                 diag=int(bool(unitriangular))) for m, rhs in zip(ma, mb)]
    return np.stack(out).reshape(b.shape) if out else np.zeros(b.shape, b.dtype)


def _st_rule(spec, ins, params):
    a, b = ins
    for t, nm in ((a, "A"), (b, "B")):
        if t.ndim < 2:
            raise RuntimeError(f"linalg.solve_triangular: The input tensor {nm} must have at "
                               "least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but "
                           f"they are {a.shape[-2]} by {a.shape[-1]} matrices")
    left = params["left"]
    if (b.shape[-2] if left else b.shape[-1]) != a.shape[-1]:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {'AX = B' if left else 'XA = B'} ({_x(a.shape)} and "
                           f"{_x(b.shape)})")
    _same_dtype("linalg.solve_triangular", a, b)
    _float_rule("triangular_solve_cpu")(a)
    from .. import layout

    layout.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    return a._dtype


@on_host
def _st_fwd(xp, a, b, out=None, dt=None, upper=True, left=True, unitriangular=False):
    a, b = _broadcast_batch(xp, a, b)
    x = _trsm_host(backend.to_numpy(a).astype(dt.np), backend.to_numpy(b).astype(dt.np),
                   upper, left, unitriangular)
    return _fcontig(xp, xp.asarray(x))


def _tri_mask(gA, upper, unitriangular):
    return gA.triu(int(unitriangular)) if upper else gA.tril(-int(unitriangular))


def _st_bw(c, g):
    """PyTorch's linalg_solve_triangular backward: gB = A^{-H} gX (left) or gX A^{-H};
    gA = -gB X^H (or -X^H gB), kept to A's triangle."""
    A, X = c["self"], c["result"]
    upper, left, unit = c["upper"], c["left"], c["unitriangular"]
    gB = dispatch.call(SOLVE_TRI, (A.mH, g), {"upper": not upper, "left": left,
                                               "unitriangular": unit})
    gA = None
    if c.needs_input_grad[0]:
        gA = -(gB.matmul(X.mH)) if left else -(X.mH.matmul(gB))
        gA = _sum_to(_tri_mask(gA, upper, unit), c.input_meta[0][0])
    return gA, (_sum_to(gB, c.input_meta[1][0]) if c.needs_input_grad[1] else None)


SOLVE_TRI = register(OpSpec(
    name="linalg_solve_triangular", forward=_st_fwd, backward=_st_bw, args=("self", "B"),
    params={"upper": True, "left": True, "unitriangular": False}, dtype_rule=_st_rule,
    saves=("self", "result"), node_name="LinalgSolveTriangularBackward0", method=False,
    function=False, out=False,
    doc="the solution of a triangular system (BLAS trsm; no singularity check)."))


def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``torch.linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False)``."""
    return with_out("linalg_solve_triangular", lambda: dispatch.call(
        SOLVE_TRI, (A, B), {"upper": upper, "left": left, "unitriangular": unitriangular}),
        (A, B), out)


_TS_WARNING = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be "
    "removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
    "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
    "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B).")


def _ts_rule(spec, ins, params):
    b, a = ins
    if b.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {b.ndim} dimensions instead")
    if a.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, "
                           f"but it has {a.ndim} dimensions instead")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{a.shape[-1]} by {a.shape[-1]} but each b matrix is {b.shape[-2]} "
                           f"by {b.shape[-1]}")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{b._dtype.torch_name} and A of type {a._dtype.torch_name} instead.")
    _float_rule("triangular_solve_cpu")(a)
    return a._dtype


def _ts_arrays(xp, b, a, dt, upper, transpose, unitriangular):
    a, b = _broadcast_batch(xp, a, b)
    x = _trsm_host(backend.to_numpy(a).astype(dt.np), backend.to_numpy(b).astype(dt.np),
                   upper, True, unitriangular, trans=int(bool(transpose)))
    return _fcontig(xp, xp.asarray(x)), _fcontig(xp, a.astype(dt.np, copy=True))


@on_host
def _ts_sol_fwd(xp, b, a, out=None, dt=None, upper=True, transpose=False, unitriangular=False):
    return _ts_arrays(xp, b, a, dt, upper, transpose, unitriangular)


@on_host
def _ts_clone_fwd(xp, b, a, out=None, dt=None, upper=True, transpose=False, unitriangular=False):
    x, m = _ts_arrays(xp, b, a, dt, upper, transpose, unitriangular)
    return m, x


def _ts_sol_bw(c, g):
    """PyTorch's triangular_solve_backward (the solution's share)."""
    A, X = c["A"], c["result"]
    upper, tr, unit = c["upper"], c["transpose"], c["unitriangular"]
    gB = dispatch.call(TS_SOL, (g, A), {"upper": upper, "transpose": not tr,
                                         "unitriangular": unit}).solution
    gA = None
    if c.needs_input_grad[1]:
        gA = -(X.matmul(gB.mH)) if tr else -(gB.matmul(X.mH))
        gA = _sum_to(_tri_mask(gA, upper, unit), c.input_meta[1][0])
    return (_sum_to(gB, c.input_meta[0][0]) if c.needs_input_grad[0] else None), gA


_TS = dict(args=("self", "A"), params={"upper": True, "transpose": False, "unitriangular": False},
           dtype_rule=_ts_rule, node_name="TriangularSolveBackward0", method=False,
           function=False, out=False)
TS_SOL = register(OpSpec(
    name="_triangular_solve", forward=_ts_sol_fwd, backward=_ts_sol_bw,
    outputs=("solution", "cloned_coefficient"), saves=("A", "result"),
    doc="torch.triangular_solve's solution, with its share of the backward.", **_TS))
TS_CLONE = register(OpSpec(
    name="_triangular_solve_clone", forward=_ts_clone_fwd,
    backward=lambda c, g: (None, _sum_to(g, c.input_meta[1][0])),
    outputs=("cloned_coefficient", "solution"),
    doc="torch.triangular_solve's copy of A, whose gradient goes to A.", **_TS))
TriangularSolveResult = _rt("triangular_solve", ["solution", "cloned_coefficient"])


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``torch.triangular_solve`` (deprecated): (solution of op(A) X = b, a copy of A)."""
    _no_out(out, "triangular_solve")
    warn_once("triangular_solve", _TS_WARNING)
    kw = {"upper": upper, "transpose": transpose, "unitriangular": unitriangular}
    r = dispatch.call(TS_SOL, (input, A), kw)
    if not r.solution.requires_grad:
        return TriangularSolveResult(r.solution, r.cloned_coefficient)
    clone = dispatch.call(TS_CLONE, (input, A), kw).cloned_coefficient
    output_nr(clone, 1)
    return TriangularSolveResult(r.solution, clone)


# ---- cholesky_solve --------------------------------------------------------------------------------

def _cs_rule(spec, ins, params):
    b, L = ins
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                           "instead")
    if L.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L.ndim} dimensions "
                           "instead")
    _float_rule("cholesky_solve_cpu")(b)
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {L.shape[-2]} by "
                           f"{L.shape[-1]} matrices")
    if L.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{L.shape[-1]} by {L.shape[-1]} but each b matrix is {b.shape[-2]} "
                           f"by {b.shape[-1]}")
    if L._dtype is not b._dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{b._dtype.torch_name} and A of type {L._dtype.torch_name} instead.")
    return b._dtype


@on_host
def _cs_fwd(xp, b, L, out=None, dt=None, upper=False):
    L, b = _broadcast_batch(xp, L, b)
    hL, hb = backend.to_numpy(L).astype(dt.np), backend.to_numpy(b).astype(dt.np)
    f = _lapack("lapack", "potrs", hL.dtype)
    mL, _ = _matrices(hL)
    mb, _ = _matrices(hb)
    with np.errstate(all="ignore"):
        out_ = [f(m, rhs, lower=not upper)[0] for m, rhs in zip(mL, mb)]
    x = np.stack(out_).reshape(hb.shape) if out_ else np.zeros(hb.shape, hb.dtype)
    return _fcontig(xp, xp.asarray(x))


def _cs_bw(c, g):
    """PyTorch's cholesky_solve_backward."""
    L, X, upper = c["input2"], c["result"], c["upper"]
    gB = dispatch.call(CHOLESKY_SOLVE, (g, L), {"upper": upper})
    gL = None
    if c.needs_input_grad[1]:
        common = gB.matmul(X.mH)
        common = common + common.mH
        gL = _sum_to(-(L.matmul(common)) if upper else -(common.matmul(L)), c.input_meta[1][0])
    return (_sum_to(gB, c.input_meta[0][0]) if c.needs_input_grad[0] else None), gL


CHOLESKY_SOLVE = register(OpSpec(
    name="cholesky_solve", forward=_cs_fwd, backward=_cs_bw, args=("self", "input2"),
    params={"upper": False}, dtype_rule=_cs_rule, saves=("input2", "result"),
    doc="torch.cholesky_solve(B, L, upper=False): X with (L L^H) X = B from the factor L."))

# ---- linalg.qr (column-major Q and R, as LAPACK's geqrf/orgqr write them) -----------------------

def _lqr_arrays(xp, a, dt, mode):
    from .linalg_more import _qr_arrays

    q, r = _qr_arrays(xp, a, dt, "reduced" if mode == "r" else mode)
    return _fcontig(xp, q), _fcontig(xp, r)


def _lqr_grad(Q, R, gQ, gR, mode):
    from .linalg_more import _qr_grad

    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                           "differentiate through linalg.qr.")
    return (_qr_grad(Q, R, gQ, gR, mode),)


@on_host
def _lqr_q_fwd(xp, a, out=None, dt=None, mode="reduced"):
    return _lqr_arrays(xp, a, dt, mode)


@on_host
def _lqr_r_fwd(xp, a, out=None, dt=None, mode="reduced"):
    q, r = _lqr_arrays(xp, a, dt, mode)
    return r, q


def _lqr_rule(spec, ins, params):
    from .linalg_more import _qr_rule

    if params["mode"] not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{params['mode']}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    return _qr_rule(spec, ins, params)


_LQR = dict(params={"mode": "reduced"}, dtype_rule=_lqr_rule, node_name="LinalgQrBackward0",
            method=False, function=False, out=False)
LQR_Q = register(OpSpec(
    name="_linalg_qr_q_colmajor", forward=_lqr_q_fwd, outputs=("Q", "R"), saves=("result", "R"),
    backward=lambda c, g: _lqr_grad(c["result"], c["R"], g, None, c["mode"]),
    doc="Q of torch.linalg.qr, with Q's share of the backward.", **_LQR))
LQR_R = register(OpSpec(
    name="_linalg_qr_r_colmajor", forward=_lqr_r_fwd, outputs=("R", "Q"), saves=("result", "Q"),
    backward=lambda c, g: _lqr_grad(c["Q"], c["result"], None, g, c["mode"]),
    doc="R of torch.linalg.qr, with R's share of the backward.", **_LQR))
LinalgQrResult = _rt("linalg_qr", ["Q", "R"])


def linalg_qr(A, mode="reduced", *, out=None):
    """``torch.linalg.qr``: (Q, R), mode 'reduced', 'complete' or 'r' (Q empty, R not
    differentiable)."""
    _no_out(out, "qr")
    kw = {"mode": mode}
    if mode == "r":
        R = dispatch.call(LQR_R, (A,), kw).R
        return LinalgQrResult(creation.empty((0,), dtype=A.dtype, device=A.device), R)
    r = dispatch.call(LQR_Q, (A,), kw)
    if not r.Q.requires_grad:
        return LinalgQrResult(r.Q, r.R)
    R = dispatch.call(LQR_R, (A,), kw).R
    share_output(r.Q, "R", R, 1)
    share_output(R, "Q", r.Q, 0)
    output_nr(R, 1)
    return LinalgQrResult(r.Q, R)


# ---- Paddle's variants (its eigvalsh kernel; its cholesky_solve gradient kept to the factor's
# triangle): the same kernels under other nodes, named by the Paddle facade

EIGVALSH = register(OpSpec(
    name="_paddle_eigvalsh", forward=EIGH_W.forward, backward=EIGH_W.backward,
    outputs=EIGH_W.outputs, params=dict(EIGH_W.params), dtype_rule=EIGH_W.dtype_rule,
    saves=EIGH_W.saves, node_name="LinalgEighBackward0", method=False, function=False,
    out=False, doc="paddle.linalg.eigvalsh: the eigenvalues of a symmetric matrix."))


def _paddle_cs_bw(c, g):
    """Paddle's cholesky_solve_grad: PyTorch's, the factor's gradient kept to its triangle."""
    gB, gL = _cs_bw(c, g)
    if gL is not None:
        gL = gL.triu() if c["upper"] else gL.tril()
    return gB, gL


PADDLE_CHOLESKY_SOLVE = register(OpSpec(
    name="_paddle_cholesky_solve", forward=_cs_fwd, backward=_paddle_cs_bw,
    args=("self", "input2"), params={"upper": False}, dtype_rule=_cs_rule,
    saves=("input2", "result"), node_name="CholeskySolveBackward0", method=False,
    function=False, out=False,
    doc="paddle.linalg.cholesky_solve: the factor's gradient in its triangle."))

@on_host
def _paddle_mpow_fwd(xp, a, out=None, dt=None, n=1):
    if n < 0:
        a = np.linalg.inv(a) if a.size else a
        n = -n
    if a.shape[-1] == 0:
        return a.astype(dt.np, copy=True)
    return np.linalg.matrix_power(a, n).astype(dt.np, copy=False)


def _powers(M, n):
    """[I, M, M^2, ..., M^(n-1)] in table ops."""
    out = [creation.eye(M.shape[-1], dtype=M.dtype, device=M.device).expand(tuple(M.shape))]
    for _ in range(n - 1):
        out.append(out[-1].matmul(M))
    return out


def _paddle_mpow_bw(c, g):
    """d(M^n) at M: sum_k (M^T)^k g (M^T)^(n-1-k); n < 0 through M = A^-1 (dM = -M dA M)."""
    A, n = c["self"], c["n"]
    if n == 0:
        return (g * 0,)
    M = A if n > 0 else dispatch.call(INV_EX, (A,), {"check_errors": "linalg.inv"}).inverse
    m = abs(n)
    P = _powers(M.mT, m)
    gM = sum(P[k].matmul(g).matmul(P[m - 1 - k]) for k in range(m))
    if n > 0:
        return (gM,)
    return (-(M.mT.matmul(gM).matmul(M.mT)),)


PADDLE_MATRIX_POWER = register(OpSpec(
    name="_paddle_matrix_power", forward=_paddle_mpow_fwd, backward=_paddle_mpow_bw,
    params={"n": 1}, dtype_rule="self", saves=("self",), node_name="MatrixPowerBackward0",
    method=False, function=False, out=False,
    doc="paddle.linalg.matrix_power: one kernel (MatrixPowerGradNode), an inverse for n < 0."))
