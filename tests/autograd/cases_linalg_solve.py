"""Gradcheck cases for the solves and factorisations of ops/linalg_solve.py, linalg_lu.py,
linalg_lstsq.py and linalg_eig.py (read by test_gradcheck_all.py).

Each case calls its spec through the dispatcher and checks the first (differentiable)
result. Inputs are made well-conditioned inside ``fn`` (a diagonal shift), and
symmetric ones symmetrised there (eigh reads one triangle: finite differences of the raw
entries would see only that triangle), so the check runs where the op is smooth.
"""
from __future__ import annotations

import inplace_lab as il
from inplace_lab.ops import dispatch
from inplace_lab.ops.table import OPS

SKIP: dict = {
    "_linalg_ldl_factor_ex": "no derivative: PyTorch's NotImplemented node, whose backward "
                             "raises (tests/ops/test_linalg_solve.py)",
    "_linalg_ldl_solve": "no derivative: PyTorch's NotImplemented node, whose backward raises "
                         "(tests/ops/test_linalg_solve.py)",
}


def _first(name, kw=None, prep=None):
    def fn(*a):
        if prep is not None:
            a = prep(*a)
        return dispatch.call(OPS[name], a, kw or {})[0]

    return fn


def _shift(a, k=3.0):
    return a + k * il.eye(a.shape[-1], dtype=il.float64)


def _spd(a):
    return a.matmul(a.mT) + 3 * il.eye(a.shape[-1], dtype=il.float64)


def _sym(a):
    return a + a.mT


def _lu(a):
    """LU factors and pivots of a shifted matrix (no history: the case's inputs)."""
    from inplace_lab.ops.linalg_lu import linalg_lu_factor

    r = linalg_lu_factor(_shift(a.detach()))
    return r.LU.detach().requires_grad_(True), r.pivots


def cases(C, R, idx):
    """name -> builder(r) -> case, as test_gradcheck_all.CASES."""
    def lu_solve_case(r):
        LU, piv = _lu(r(2, 3, 3, grad=False))
        return C([LU, piv, r(2, 3, 2)], fn=lambda l, p, b: dispatch.call(
            OPS["linalg_lu_solve"], (l, p, b), {"adjoint": True}))

    def lu_unpack_case(name):
        def build(r):
            LU, piv = _lu(r(3, 3, grad=False))
            return C([LU, piv], fn=lambda l, p: dispatch.call(OPS[name], (l, p), {})[0])

        return build

    return {
        # solve with broadcast batches (A's batch 1, B's 2): both gradients summed back
        "_linalg_solve_ex": lambda r: C([r(1, 3, 3), r(2, 3, 2)],
                                        fn=_first("_linalg_solve_ex", prep=lambda a, b: (
                                            _shift(a), b))),
        "_linalg_cholesky_ex": lambda r: C([r(2, 3, 3)], fn=_first(
            "_linalg_cholesky_ex", {"upper": True}, prep=lambda a: (_spd(a),))),
        "_linalg_inv_ex": lambda r: C([r(2, 3, 3)], fn=_first(
            "_linalg_inv_ex", prep=lambda a: (_shift(a),))),
        # eigh: the eigenvalues, and V * V (free of LAPACK's signs), of a symmetric matrix
        "_linalg_eigh_w": lambda r: C([r(2, 3, 3)], fn=_first(
            "_linalg_eigh_w", prep=lambda a: (_sym(a),))),
        "_linalg_eigh_v": lambda r: C([r(3, 3)], fn=lambda a: _first(
            "_linalg_eigh_v", {"UPLO": "U"}, prep=lambda x: (_sym(x),))(a) ** 2),
        "linalg_solve_triangular": lambda r: C([r(2, 3, 3), r(2, 2, 3)], fn=lambda a, b: (
            dispatch.call(OPS["linalg_solve_triangular"], (_shift(a), b),
                          {"upper": False, "left": False}))),
        "_triangular_solve": lambda r: C([r(3, 2), r(2, 3, 3)], fn=_first(
            "_triangular_solve", {"transpose": True}, prep=lambda b, a: (b, _shift(a)))),
        "_triangular_solve_clone": lambda r: C([r(3, 2), r(3, 3)], fn=_first(
            "_triangular_solve_clone")),
        "cholesky_solve": lambda r: C([r(2, 3, 2), r(3, 3)], fn=lambda b, l: dispatch.call(
            OPS["cholesky_solve"], (b, _shift(l.tril())), {})),
        # LU: square, wide and tall
        "_linalg_lu_factor_ex": lambda r: C([r(2, 3, 4)], fn=_first(
            "_linalg_lu_factor_ex", prep=lambda a: (a + il.eye(3, 4, dtype=il.float64) * 3,))),
        "_linalg_lu_l": lambda r: C([r(4, 3)], fn=_first(
            "_linalg_lu_l", prep=lambda a: (a + il.eye(4, 3, dtype=il.float64) * 3,))),
        "_linalg_lu_u": lambda r: C([r(3, 3)], fn=_first(
            "_linalg_lu_u", prep=lambda a: (_shift(a),))),
        "_lu_unpack_l": lu_unpack_case("_lu_unpack_l"),
        "_lu_unpack_u": lu_unpack_case("_lu_unpack_u"),
        "linalg_lu_solve": lu_solve_case,
        "_linalg_lstsq": lambda r: C([r(5, 3), r(5, 2)], fn=_first("_linalg_lstsq")),
        "_linalg_lstsq_residuals": lambda r: C([r(5, 3), r(5, 2)], fn=_first(
            "_linalg_lstsq_residuals", {"driver": "gelsd"})),
        "_linalg_pinv_tol": lambda r: C([r(2, 4, 3)]),
        "_paddle_matrix_power": lambda r: C([r(2, 3, 3)], fn=lambda a: dispatch.call(
            OPS["_paddle_matrix_power"], (_shift(a),), {"n": -2})),
        "_paddle_eigvalsh": lambda r: C([r(2, 3, 3)], fn=_first(
            "_paddle_eigvalsh", prep=lambda a: (_sym(a),))),
        "_paddle_cholesky_solve": lambda r: C([r(3, 2), r(3, 3)], fn=lambda b, l: (
            dispatch.call(OPS["_paddle_cholesky_solve"], (b, _shift(l.triu())),
                          {"upper": True}))),
        "_linalg_qr_q_colmajor": lambda r: C([r(2, 4, 3)], fn=_first("_linalg_qr_q_colmajor")),
        "_linalg_qr_r_colmajor": lambda r: C([r(3, 3)], fn=_first("_linalg_qr_r_colmajor")),
        "linalg_householder_product": lambda r: C([r(4, 3), r(2)]),
    }
