"""``torch.linalg``: the norms and ``svdvals`` of ``inplace_lab.ops.linalg_norm``.

``torch.linalg.norm(A, 'nuc')`` and ``torch.linalg.matrix_norm(A, 'nuc')`` build PyTorch's
graph (SumBackward1 over LinalgSvdBackward0 over PermuteBackward0); the Frobenius and
vector norms are the table's ``norm`` (LinalgVectorNormBackward0).
"""
from __future__ import annotations

from inplace_lab.ops.linalg_norm import linalg_norm as norm  # noqa: F401
from inplace_lab.ops.linalg_norm import matrix_norm, svdvals, vector_norm  # noqa: F401
from inplace_lab.ops.linalg_extra import CROSS as _CROSS  # noqa: E402
from inplace_lab.ops.linalg_inverse import LinAlgError  # noqa: E402,F401
from inplace_lab.ops.linalg_inverse import linalg_slogdet as slogdet  # noqa: E402,F401
from inplace_lab.ops.linalg_inverse import linalg_svd as svd  # noqa: E402,F401


def cross(input, other, *, dim=-1, out=None):
    """``torch.linalg.cross``: the cross product of 3-vectors along ``dim`` (LinalgCrossBackward0)."""
    from inplace_lab.ops import dispatch

    return dispatch.call(_CROSS, (input, other), {"dim": dim} if out is None else {"dim": dim, "out": out})


def inv(A, *, out=None):
    """``torch.linalg.inv`` (LinalgInvExBackward0; a singular matrix raises LinAlgError)."""
    from inplace_lab.ops.linalg_inverse import inverse

    return inverse(A, out=out)


def det(A, *, out=None):
    """``torch.linalg.det`` (LinalgDetBackward0)."""
    from inplace_lab.ops.linalg_inverse import det as _det

    if out is not None:
        raise TypeError("det(): out= is not supported here")
    return _det(A)
