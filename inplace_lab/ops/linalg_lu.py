"""The LU family, least squares and the tolerance-based pseudo-inverse: ``linalg.lu_factor``/
``lu_factor_ex`` (LinalgLuFactorExBackward0), ``linalg.lu`` (LinalgLuBackward0, L and U as two
parts), ``lu_unpack`` (LuUnpackBackward0), ``linalg.lu_solve`` (LinalgLuSolveBackward0),
``linalg.lstsq`` (LinalgLstsqBackward0: solution and residuals), ``linalg.pinv`` with
atol/rtol/hermitian (LinalgPinvBackward0) and ``linalg.matrix_rank``.

LAPACK's getrf on the host gives the factors with partial pivoting, as PyTorch's CPU kernel:
its 0-based pivots become PyTorch's 1-based int32 ones. The backwards are PyTorch's
``linalg_lu_backward`` (square, wide and tall), written with the table's triangular solve.

>>> import inplace_lab as il
>>> from inplace_lab.torch import linalg
>>> LU, piv = linalg.lu_factor(il.tensor([[1., 2.], [3., 4.]], dtype=il.float64))
>>> piv.tolist(), LU[0].tolist()
([2, 2], [3.0, 4.0])
"""
from __future__ import annotations

import numpy as np

from .. import backend, creation, dtypes
from . import dispatch
from .join import cat
from .linalg_solve import (_fcontig, _float_rule, _info_array, _lapack,
                           _matrices, _no_out, _rt, _sum_to, _x, on_host, output_nr,
                           share_output, warn_once, with_out)
from .linalg_triangular import SOLVE_TRI
from .table import OpSpec, register


# ---- getrf and the permutation ---------------------------------------------------------------------

def _getrf(h):
    """Per-matrix getrf: (LU, 1-based int32 pivots, infos)."""
    f = _lapack("lapack", "getrf", h.dtype)
    mats, batch = _matrices(h)
    m, n = h.shape[-2:]
    k = min(m, n)
    lus, pivs, infos = [], [], []
    for a in mats:
        if 0 in a.shape:
            lu, piv, info = a.copy(), np.zeros(k, np.int32), 0
        else:
            lu, piv, info = f(a)
        lus.append(lu)
        pivs.append(np.asarray(piv, np.int32) + 1)
        infos.append(int(info))
    lu = np.stack(lus).reshape(h.shape) if lus else h.copy()
    piv = np.stack(pivs).reshape(batch + (k,)) if pivs else np.zeros(batch + (k,), np.int32)
    return lu, piv, infos


def _perm_matrix(piv, m, dt):
    """P with A = P L U from 1-based LAPACK pivots (host arrays)."""
    flat = piv.reshape((int(np.prod(piv.shape[:-1], dtype=np.int64)), piv.shape[-1]))
    out = np.zeros((flat.shape[0], m, m), dt)
    for b, p in enumerate(flat):
        perm = np.arange(m)
        for i, j in enumerate(p - 1):
            perm[i], perm[j] = perm[j], perm[i]
        out[b, perm, np.arange(m)] = 1
    return out.reshape(piv.shape[:-1] + (m, m))


def _unpack(lu, dt):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=dt)
    U = np.triu(lu[..., :k, :])
    return L, U


def _P_of(LU, pivots):
    """P as a tensor (no history), from the factor's pivots."""
    h = _perm_matrix(backend.to_numpy(pivots._a), LU.shape[-2], LU.dtype.np)
    return creation.tensor(h, dtype=LU.dtype, device=LU.device)


def _solve_tri(A, B, upper, left, unit=False):
    return dispatch.call(SOLVE_TRI, (A, B), {"upper": upper, "left": left, "unitriangular": unit})


def lu_backward(gL, gU, P, L, U):
    """PyTorch's linalg_lu_backward (pivot=True): the gradient at A of L and/or U."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        gA = L.mH.matmul(gL).tril(-1) if gL is not None else None
        if gU is not None:
            t = gU.matmul(U.mH).triu()
            gA = t if gA is None else gA + t
        gA = _solve_tri(U.mH, gA, upper=False, left=False)
        gA = _solve_tri(L.mH, gA, upper=True, left=True, unit=True)
        return P.matmul(gA)
    if m < n:
        U1, U2 = U[..., :, :k], U[..., :, k:]
        gA = L.mH.matmul(gL) if gL is not None else None
        if gU is not None:
            t = gU.triu().matmul(U.mH)
            gA = -t if gA is None else gA - t
        gA = _solve_tri(U1.mH, gA.tril(-1), upper=False, left=False)
        if gU is not None:
            gA = cat([gA + gU[..., :, :k].triu(), gU[..., :, k:]], -1)
        gA = _solve_tri(L.mH, gA, upper=True, left=True, unit=True)
        if gU is None:
            gA = cat([gA, U2 * 0], -1)
        return P.matmul(gA)
    L1, L2 = L[..., :k, :], L[..., k:, :]
    gA = gU.matmul(U.mH) if gU is not None else None
    if gL is not None:
        t = L.mH.matmul(gL.tril(-1))
        gA = -t if gA is None else gA - t
    gA = _solve_tri(L1.mH, gA.triu(), upper=True, left=True, unit=True)
    if gL is not None:
        gA = cat([gA + gL[..., :k, :].tril(-1), gL[..., k:, :]], -2)
    gA = _solve_tri(U.mH, gA, upper=False, left=False)
    if gL is None:
        gA = cat([gA, L2 * 0], -2)
    return P.matmul(gA)


# ---- lu_factor_ex -------------------------------------------------------------------------------

def _luf_rule(spec, ins, params):
    a = ins[0]
    if a.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(a.shape)} instead")
    if not params["pivot"]:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    _float_rule("lu_cpu")(a)
    return a._dtype


@on_host
def _luf_fwd(xp, a, out=None, dt=None, pivot=True, check_errors=False):
    lu, piv, infos = _getrf(backend.to_numpy(a).astype(dt.np))
    if check_errors and any(infos):
        k = next(i for i, v in enumerate(infos) if v)
        where = f"(Batch element {k}): " if a.ndim > 2 else ""
        raise RuntimeError(
            f"torch.linalg.{check_errors}: {where}U[{infos[k]},{infos[k]}] is zero and using it on "
            "lu_solve would result in a division by zero. If you still want to perform the "
            "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return (_fcontig(xp, xp.asarray(lu)), xp.asarray(piv),
            _info_array(xp, infos, a.shape[:-2]))


def _luf_bw(c, g):
    LU, piv = c["result"], c["pivots"]
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + creation.eye(m, k, dtype=LU.dtype, device=LU.device)
    U = LU[..., :k, :].triu()
    return (lu_backward(g[..., :, :k], g[..., :k, :], _P_of(LU, piv), L, U),)


LU_FACTOR_EX = register(OpSpec(
    name="_linalg_lu_factor_ex", forward=_luf_fwd, backward=_luf_bw,
    outputs=("LU", "pivots", "info"), params={"pivot": True, "check_errors": False},
    dtype_rule=_luf_rule, saves=("result", "pivots"), node_name="LinalgLuFactorExBackward0",
    method=False, function=False, out=False,
    doc="LAPACK getrf: L and U in one matrix, the 1-based row swaps and the info per matrix."))
LinalgLuFactorResult = _rt("linalg_lu_factor", ["LU", "pivots"])
LinalgLuFactorExResult = _rt("linalg_lu_factor_ex", ["LU", "pivots", "info"])
LuWithInfoResult = _rt("_lu_with_info", ["LU", "pivots", "info"])


def linalg_lu_factor(A, *, pivot=True, out=None):
    """``torch.linalg.lu_factor``: (LU, pivots); a zero pivot raises RuntimeError."""
    _no_out(out, "lu_factor")
    r = dispatch.call(LU_FACTOR_EX, (A,), {"pivot": pivot, "check_errors": "lu_factor"})
    return LinalgLuFactorResult(r.LU, r.pivots)


def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``torch.linalg.lu_factor_ex``: (LU, pivots, info)."""
    _no_out(out, "lu_factor_ex")
    r = dispatch.call(LU_FACTOR_EX, (A,), {"pivot": pivot,
                                           "check_errors": "lu_factor_ex" if check_errors else False})
    return LinalgLuFactorExResult(r.LU, r.pivots, r.info)


_LU_WARNING = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")


def lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu`` (deprecated): (LU, pivots), or with ``get_infos`` (LU, pivots, infos)."""
    _no_out(out, "lu")
    warn_once("lu", _LU_WARNING)
    r = dispatch.call(LU_FACTOR_EX, (A,), {"pivot": pivot, "check_errors": False})
    return LuWithInfoResult(r.LU, r.pivots, r.info) if get_infos else (r.LU, r.pivots)


# ---- linalg.lu (P, L, U) and lu_unpack ---------------------------------------------------------------

def _lu_rule(spec, ins, params):
    a = ins[0]
    if a.ndim < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(a.shape)} instead")
    if not params["pivot"]:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    _float_rule("lu_cpu")(a)
    return a._dtype


def _plu_arrays(xp, a, dt):
    h = backend.to_numpy(a).astype(dt.np)
    lu_, piv, _ = _getrf(h)
    L, U = _unpack(lu_, dt.np)
    P = _perm_matrix(piv, h.shape[-2], dt.np)
    return xp.asarray(P), xp.asarray(L), xp.asarray(U)


@on_host
def _lu_l_fwd(xp, a, out=None, dt=None, pivot=True):
    P, L, U = _plu_arrays(xp, a, dt)
    return L, U, P


@on_host
def _lu_u_fwd(xp, a, out=None, dt=None, pivot=True):
    P, L, U = _plu_arrays(xp, a, dt)
    return U, L, P


_LU = dict(params={"pivot": True}, dtype_rule=_lu_rule, node_name="LinalgLuBackward0",
           method=False, function=False, out=False)
LU_L = register(OpSpec(
    name="_linalg_lu_l", forward=_lu_l_fwd, outputs=("L", "U", "P"), saves=("result", "U", "P"),
    backward=lambda c, g: (lu_backward(g, None, c["P"], c["result"], c["U"]),),
    doc="L of A = P L U, with L's share of the backward.", **_LU))
LU_U = register(OpSpec(
    name="_linalg_lu_u", forward=_lu_u_fwd, outputs=("U", "L", "P"), saves=("result", "L", "P"),
    backward=lambda c, g: (lu_backward(None, g, c["P"], c["L"], c["result"]),),
    doc="U of A = P L U, with U's share of the backward.", **_LU))
LinalgLuResult = _rt("linalg_lu", ["P", "L", "U"])


def linalg_lu(A, *, pivot=True, out=None):
    """``torch.linalg.lu``: (P, L, U) with A = P L U (partial pivoting, as LAPACK getrf)."""
    _no_out(out, "lu")
    r = dispatch.call(LU_L, (A,), {"pivot": pivot})
    if not r.L.requires_grad:
        return LinalgLuResult(r.P, r.L, r.U)
    U = dispatch.call(LU_U, (A,), {"pivot": pivot}).U
    share_output(r.L, "U", U, 1)  # (P is not differentiable: PyTorch's node numbers L 0, U 1)
    share_output(U, "L", r.L, 0)
    output_nr(U, 1)
    return LinalgLuResult(r.P, r.L, U)


def _unpack_rule(spec, ins, params):
    LU, piv = ins
    if LU.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU.shape)} instead")
    if params["unpack_pivots"]:
        if piv._dtype is not dtypes.int32 or not piv.is_contiguous():
            raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor "
                               "of torch.int32 dtype.\nNote: this function is intended to be used "
                               "with the output produced by torch.linalg.lu_factor")
        p = backend.to_numpy(piv._a)
        if p.size and (p.min() < 1 or p.max() > LU.shape[-2]):
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                               "inclusive.Did you properly pass the result of lu_factor?")
    return LU._dtype


def _unpack_arrays(xp, lu_, piv, dt, unpack_data, unpack_pivots):
    h = backend.to_numpy(lu_)
    if unpack_data:
        L, U = _unpack(h, dt.np)
    else:
        L = U = np.zeros((0,), dt.np)
    P = _perm_matrix(backend.to_numpy(piv), h.shape[-2], dt.np) if unpack_pivots else \
        np.zeros((0,), dt.np)
    return xp.asarray(np.ascontiguousarray(P)), xp.asarray(L), xp.asarray(U)


@on_host
def _unpack_l_fwd(xp, lu_, piv, out=None, dt=None, unpack_data=True, unpack_pivots=True):
    P, L, U = _unpack_arrays(xp, lu_, piv, dt, unpack_data, unpack_pivots)
    return L, U, P


@on_host
def _unpack_u_fwd(xp, lu_, piv, out=None, dt=None, unpack_data=True, unpack_pivots=True):
    P, L, U = _unpack_arrays(xp, lu_, piv, dt, unpack_data, unpack_pivots)
    return U, L, P


def _unpack_bw(which):
    """PyTorch's lu_unpack_backward: L's strictly lower and U's upper part, placed in LU."""

    def bw(c, g):
        m, n = c.input_meta[0][0][-2:]
        k = min(m, n)
        if which == "L":
            g = g.tril(-1)
            if n > k:
                g = cat([g, creation.zeros(tuple(g.shape[:-1]) + (n - k,), dtype=g.dtype,
                                           device=g.device)], -1)
        else:
            g = g.triu()
            if m > k:
                g = cat([g, creation.zeros(tuple(g.shape[:-2]) + (m - k, n), dtype=g.dtype,
                                           device=g.device)], -2)
        return g, None

    return bw


_UNPACK = dict(args=("LU_data", "LU_pivots"), params={"unpack_data": True, "unpack_pivots": True},
               dtype_rule=_unpack_rule, node_name="LuUnpackBackward0", method=False,
               function=False, out=False, nondiff=("LU_pivots",))
UNPACK_L = register(OpSpec(name="_lu_unpack_l", forward=_unpack_l_fwd, outputs=("L", "U", "P"),
                           backward=_unpack_bw("L"), doc="L of lu_unpack.", **_UNPACK))
UNPACK_U = register(OpSpec(name="_lu_unpack_u", forward=_unpack_u_fwd, outputs=("U", "L", "P"),
                           backward=_unpack_bw("U"), doc="U of lu_unpack.", **_UNPACK))
LuUnpackResult = _rt("lu_unpack", ["P", "L", "U"])


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``torch.lu_unpack``: (P, L, U) from ``lu_factor``'s result."""
    _no_out(out, "lu_unpack")
    kw = {"unpack_data": unpack_data, "unpack_pivots": unpack_pivots}
    r = dispatch.call(UNPACK_L, (LU_data, LU_pivots), kw)
    if not r.L.requires_grad:
        return LuUnpackResult(r.P, r.L, r.U)
    return LuUnpackResult(r.P, r.L, dispatch.call(UNPACK_U, (LU_data, LU_pivots), kw).U)


# ---- lu_solve ------------------------------------------------------------------------------------

def _lus_rule(spec, ins, params):
    LU, piv, B = ins
    if not (LU._dtype.is_floating_point or LU._dtype.is_complex):
        raise RuntimeError(f"torch.linalg.lu_solve: Expected a floating point or complex tensor "
                           f"as input. Got {LU._dtype.torch_name}")
    if LU._dtype is not B._dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found "
                           f"LU of type {LU._dtype.torch_name} and B of type "
                           f"{B._dtype.torch_name} instead")
    if piv._dtype is not dtypes.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if LU.ndim < 2:
        raise RuntimeError("torch.linalg.lu_solve: The input tensor A must have at least 2 "
                           "dimensions.")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but "
                           f"they are {LU.shape[-2]} by {LU.shape[-1]} matrices")
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    left = params["left"]
    if (B.shape[-2] if left else B.shape[-1]) != LU.shape[-1]:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({_x(LU.shape)} and {_x(B.shape)})")
    if piv.shape[-1:] != LU.shape[-1:]:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if tuple(piv.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the "
                           f"same, but got pivots with shape {list(piv.shape)} instead")
    from .. import layout

    layout.broadcast_shapes(tuple(B.shape[:-2]), tuple(LU.shape[:-2]))
    return LU._dtype


@on_host
def _lus_fwd(xp, lu_, piv, b, out=None, dt=None, left=True, adjoint=False):
    h = backend.to_numpy(lu_).astype(dt.np)
    hp = backend.to_numpy(piv).astype(np.int32) - 1
    hb = backend.to_numpy(b).astype(dt.np)
    batch = np.broadcast_shapes(h.shape[:-2], hb.shape[:-2])
    hb = np.broadcast_to(hb, batch + hb.shape[-2:])
    h = np.broadcast_to(h, batch + h.shape[-2:])
    hp = np.broadcast_to(hp, batch + hp.shape[-1:])
    trans = int(adjoint) if left else int(not adjoint)
    f = _lapack("lapack", "getrs", h.dtype)
    rhs = hb if left else np.swapaxes(hb, -1, -2)
    ma, _ = _matrices(h)
    mb, _ = _matrices(np.ascontiguousarray(rhs))
    mp = list(hp.reshape((-1, hp.shape[-1])))
    with np.errstate(all="ignore"):
        res = [f(m, p, r, trans=trans)[0] for m, p, r in zip(ma, mp, mb)]
    x = np.stack(res).reshape(rhs.shape) if res else np.zeros(rhs.shape, dt.np)
    if not left:
        return xp.ascontiguousarray(xp.asarray(np.swapaxes(x, -1, -2)))
    return _fcontig(xp, xp.asarray(x))


def _lus_bw(c, g):
    """gB: lu_solve with the adjoint flipped; gLU: the gradient at A = P L U, taken to L's
    strictly lower and U's upper triangle."""
    LU, piv, X = c["LU"], c["pivots"], c["result"]
    left, adj = c["left"], c["adjoint"]
    gB = dispatch.call(LU_SOLVE, (LU, piv, g), {"left": left, "adjoint": not adj})
    gLU = None
    if c.needs_input_grad[0]:
        if left:
            gA = -(X.matmul(gB.mH)) if adj else -(gB.matmul(X.mH))
        else:
            gA = -(gB.mH.matmul(X)) if adj else -(X.mH.matmul(gB))
        n = LU.shape[-1]
        L = LU.tril(-1) + creation.eye(n, dtype=LU.dtype, device=LU.device)
        U = LU.triu()
        PtgA = _P_of(LU, piv).mT.matmul(gA)
        gLU = _sum_to(PtgA.matmul(U.mH).tril(-1) + L.mH.matmul(PtgA).triu(), c.input_meta[0][0])
    return gLU, None, (_sum_to(gB, c.input_meta[2][0]) if c.needs_input_grad[2] else None)


LU_SOLVE = register(OpSpec(
    name="linalg_lu_solve", forward=_lus_fwd, backward=_lus_bw, args=("LU", "pivots", "B"),
    params={"left": True, "adjoint": False}, dtype_rule=_lus_rule, saves=("LU", "pivots", "result"),
    nondiff=("pivots",), node_name="LinalgLuSolveBackward0", method=False, function=False,
    out=False, doc="the solution of A X = B from A's LU factorisation (LAPACK getrs)."))


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """``torch.linalg.lu_solve(LU, pivots, B, *, left=True, adjoint=False)``."""
    return with_out("linalg_lu_solve", lambda: dispatch.call(
        LU_SOLVE, (LU, pivots, B), {"left": left, "adjoint": adjoint}), (LU, B), out)


_LU_SOLVE_WARNING = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
    "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
    "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = torch.linalg.lu_solve(LU, pivots, B)")


def lu_solve(input, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve`` (deprecated): ``torch.linalg.lu_solve(LU_data, LU_pivots, input)``."""
    _no_out(out, "lu_solve")
    warn_once("lu_solve", _LU_SOLVE_WARNING)
    return dispatch.call(LU_SOLVE, (LU_data, LU_pivots, input), {})
