"""``torch.linalg``: the norms and ``svdvals`` of ``inplace_lab.ops.linalg_norm``.

``torch.linalg.norm(A, 'nuc')`` and ``torch.linalg.matrix_norm(A, 'nuc')`` build PyTorch's
graph (SumBackward1 over LinalgSvdBackward0 over PermuteBackward0); the Frobenius and
vector norms are the table's ``norm`` (LinalgVectorNormBackward0).
"""
from __future__ import annotations

from inplace_lab.ops.linalg_norm import linalg_norm as norm  # noqa: F401
from inplace_lab.ops.linalg_norm import matrix_norm, svdvals, vector_norm  # noqa: F401
