"""``paddle.linalg``: the linear-algebra names whose core op answers as Paddle 3.3.1 does.

``slogdet`` is one stacked tensor ``[sign, log|det|]`` (PyTorch returns a pair),
``svd`` is ``(U, S, VH)`` with ``full_matrices=False`` by default. The solves and
factorisations (ops/linalg_solve.py, linalg_lu.py) answer with Paddle's argument names,
plain tuples, Paddle's grad node names (SolveGradNode, EighGradNode, LuGradNode ...) and
Paddle's errors for a bad dtype, a non-square, singular or not positive-definite input.
Names Paddle has that are not mapped here raise AttributeError saying so, rather than
answering with another framework's semantics.
"""
from __future__ import annotations

import inplace_lab as _il

from .numeric import cross  # noqa: F401  (paddle.linalg.cross(x, y, axis=9))

_NOT_MAPPED = frozenset((
    "norm", "vector_norm", "matrix_norm", "eig",
    "cond", "cov", "corrcoef", "householder_product", "matrix_exp",
    "svdvals", "svd_lowrank", "pca_lowrank", "ormqr", "cholesky_inverse",
    "fp8_fp8_half_gemm_fused",
))


def det(x, name=None):
    return _il.linalg_det(x)


def inv(x, name=None):
    return _il.linalg_inv(x)


def slogdet(x, name=None):
    """Paddle: one tensor stacking the sign and log|det| along a new first axis."""
    sign, logabs = _il.linalg_slogdet(x)
    return _il.stack([sign, logabs], 0)


def svd(x, full_matrices=False, name=None):
    """Paddle: ``(U, S, VH)``; ``full_matrices=False`` (the default) gives the reduced bases."""
    return tuple(_il.linalg_svd(x, full_matrices=full_matrices))


from .linalg_solve import (cholesky, cholesky_solve, eigh, eigvals, eigvalsh, lstsq,  # noqa: E402,F401
                           lu, lu_solve, lu_unpack, matrix_power, matrix_rank, multi_dot,
                           pinv, qr, solve, triangular_solve, vecdot)


def __getattr__(name):
    if name in _NOT_MAPPED:
        raise AttributeError(f"module 'paddle.linalg' attribute '{name}' is not implemented in "
                             "inplace_lab's paddle facade (Paddle 3.3.1's semantics are not "
                             "reproduced yet)")
    raise AttributeError(f"module 'paddle.linalg' has no attribute '{name}'")
