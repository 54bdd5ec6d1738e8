"""``torch.linalg``: PyTorch 2.13's names over the table's linear algebra.

The norms and ``svdvals`` are ``inplace_lab.ops.linalg_norm``'s (``norm(A, 'nuc')`` builds
PyTorch's SumBackward1 over LinalgSvdBackward0); det, slogdet and svd are ops/
linalg_inverse.py's; the solves and factorisations are ops/linalg_solve.py's, ops/
linalg_lu.py's and ops/linalg_lstsq.py's; multi_dot, cond, vecdot, vander, tensorinv and
tensorsolve are ops/linalg_compose.py's composites. Results come as
``torch.return_types.linalg_*`` named tuples.
"""
from __future__ import annotations

from inplace_lab.ops.linalg_norm import linalg_norm as norm  # noqa: F401
from inplace_lab.ops.linalg_norm import matrix_norm, svdvals, vector_norm  # noqa: F401
from inplace_lab.ops.linalg_extra import CROSS as _CROSS
from inplace_lab.ops.linalg_inverse import LinAlgError  # noqa: F401
from inplace_lab.ops.linalg_inverse import linalg_slogdet as slogdet  # noqa: F401
from inplace_lab.ops.linalg_inverse import linalg_svd as svd  # noqa: F401
from inplace_lab.ops.linalg_solve import (  # noqa: F401
    linalg_cholesky as cholesky, linalg_cholesky_ex as cholesky_ex, linalg_eigh as eigh,
    linalg_eigvalsh as eigvalsh, linalg_inv as inv, linalg_inv_ex as inv_ex,
    linalg_qr as qr, linalg_solve as solve, linalg_solve_ex as solve_ex,
    linalg_solve_triangular as solve_triangular)
from inplace_lab.ops.linalg_lu import (  # noqa: F401
    linalg_lu as lu, linalg_lu_factor as lu_factor, linalg_lu_factor_ex as lu_factor_ex,
    linalg_lu_solve as lu_solve)
from inplace_lab.ops.linalg_lstsq import (  # noqa: F401
    linalg_lstsq as lstsq, linalg_matrix_rank as matrix_rank, linalg_pinv as pinv)
from inplace_lab.ops.linalg_compose import (  # noqa: F401
    cond, multi_dot, tensorinv, tensorsolve, vander, vecdot)
from inplace_lab.ops.linalg_eig import (  # noqa: F401
    eig, eigvals, householder_product, ldl_factor, ldl_factor_ex, ldl_solve)


def cross(input, other, *, dim=-1, out=None):
    """``torch.linalg.cross``: the cross product of 3-vectors along ``dim`` (LinalgCrossBackward0)."""
    from inplace_lab.ops import dispatch

    return dispatch.call(_CROSS, (input, other), {"dim": dim} if out is None else {"dim": dim, "out": out})


def det(A, *, out=None):
    """``torch.linalg.det`` (LinalgDetBackward0)."""
    from inplace_lab.ops.linalg_inverse import det as _det

    if out is not None:
        raise TypeError("det(): out= is not supported here")
    return _det(A)


def matrix_power(A, n, *, out=None):
    """``torch.linalg.matrix_power`` (matmuls by repeated squaring; an inverse for n < 0)."""
    from inplace_lab.ops.linalg_more import matrix_power as _mp

    if out is not None:
        raise TypeError("matrix_power(): out= is not supported here")
    return _mp(A, n)


def matrix_exp(A):
    """``torch.linalg.matrix_exp`` (LinalgMatrixExpBackward0)."""
    import inplace_lab as il

    return il.matrix_exp(A)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.linalg.diagonal``: ``torch.diagonal`` with dims defaulting to the last two."""
    return A.diagonal(offset=offset, dim1=dim1, dim2=dim2)


def matmul(input, other, *, out=None):
    """``torch.linalg.matmul``: ``torch.matmul``."""
    import inplace_lab as il

    return il.matmul(input, other) if out is None else il.matmul(input, other, out=out)
