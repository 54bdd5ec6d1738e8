"""``torch.nn.utils.parametrizations``: ``orthogonal``, ``weight_norm`` and ``spectral_norm``
as parametrizations (see ``parametrize``), PyTorch 2.13's way.

* ``orthogonal``: the weight is ``Q(X)``, an orthogonal (or semi-orthogonal) matrix made from
  an unconstrained ``original`` by the matrix exponential or Cayley map of its skew part, or
  by Householder reflectors; with ``use_trivialization`` a ``base`` buffer is left-multiplied.
* ``weight_norm``: ``original0`` = g (the norms), ``original1`` = v (the direction).
* ``spectral_norm``: ``weight / sigma``; the power iteration runs on the buffers ``_u`` and
  ``_v`` of the parametrization each time the weight is read in training mode.
"""
from __future__ import annotations

import warnings
from enum import Enum, auto

import numpy as np

from ... import creation
from ...autograd import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from . import parametrize
from .spectral_norm import _is_conv_transpose
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _il():
    import inplace_lab as il

    return il


def _eye(n, like):
    e = creation.eye(n, dtype=like.dtype, device=like.device)
    e._policy = like._policy
    return e


def _is_orthogonal(Q, eps=None):
    n, k = Q.size(-2), Q.size(-1)
    Id = _eye(k, Q)
    eps = 10.0 * n * float(np.finfo(Q.dtype.np).eps)  # (dtype metadata, not array work)
    return _il().allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A's QR decomposition whose R has a positive diagonal (torch: geqrf, then
    householder_product, times the signs of R's diagonal; LAPACK's reduced QR is the same Q)."""
    with warnings.catch_warnings():  # (torch.qr's deprecation is not the user's business)
        warnings.simplefilter("ignore")
        Q, R = _il().qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _householder_product(A, tau):
    """``H_0 H_1 ... H_{k-1}`` (first k columns), ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` the
    i-th column of A below the diagonal and 1 on it: LAPACK's orgqr, composed of table ops."""
    il = _il()
    n, k = A.size(-2), A.size(-1)
    Q = _eye(n, A)[:, :k].expand(*A.shape[:-2], n, k)
    unit = _eye(n, A)
    for i in range(k - 1, -1, -1):
        v = A[..., :, i]
        mask = il.arange(n, device=A.device) > i
        v = v * mask.to(A.dtype) + unit[:, i]
        vhq = v.unsqueeze(-2) @ Q  # [..., 1, k] (real only: householder refuses complex)
        Q = Q - tau[..., i, None, None] * v.unsqueeze(-1) * vhq
    return Q


def _geqrf(A):
    """LAPACK's geqrf on real matrices, in table ops (no gradient: torch's has none): R on and
    above the diagonal, below it the Householder vectors ``v_j`` (their leading 1 implied),
    and ``tau``, with dlarfg's conventions (``beta = -sign(alpha) * ||(alpha, x)||``; a column
    already zero below the diagonal gets ``tau = 0``)."""
    il = _il()
    A = A.clone()
    m, n = A.size(-2), A.size(-1)
    taus = []
    for j in range(min(m, n)):
        alpha = A[..., j, j].clone()
        x = A[..., j + 1:, j]
        xnorm = (x * x).sum(-1).sqrt()
        norm = (alpha * alpha + xnorm * xnorm).sqrt()
        beta = il.where(alpha >= 0, -norm, norm)
        zero = xnorm == 0
        tau = il.where(zero, il.zeros_like(beta), (beta - alpha) / il.where(zero, 1.0, beta))
        v_tail = x * il.where(zero, il.zeros_like(beta), 1.0 / il.where(zero, 1.0, alpha - beta)
                              ).unsqueeze(-1)
        A[..., j + 1:, j] = v_tail
        A[..., j, j] = il.where(zero, alpha, beta)
        if j + 1 < n:  # the rest of the columns: H_j = I - tau v v^T from the left
            v = il.cat([il.ones_like(alpha).unsqueeze(-1), v_tail], -1).unsqueeze(-1)
            sub = A[..., j:, j + 1:]
            w = (v * sub).sum(-2, keepdim=True)
            A[..., j:, j + 1:] = sub - tau[..., None, None] * v * w
        taus.append(tau)
    return A, il.stack(taus, -1)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        il = _il()
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = il.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = il.matrix_exp(A)
            else:
                Id = _eye(n, A)
                Q = il.inverse(il.add(Id, A, alpha=-0.5)) @ il.add(Id, A, alpha=0.5)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            # (an int tensor carries no gradient in torch; detach() says so here too)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).detach().int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        il = _il()
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            A, tau = _geqrf(Q)
            # the diagonal's signs, with -1 where the reflector is the identity: the
            # householder map's forward then gives back Q's orthogonal factor
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            N = il.randn(tuple(Q.size()[:-2]) + (n, n - k), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(il.cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = il.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name: str = "weight", orthogonal_map=None, *,
               use_trivialization: bool = True):
    """Constrain ``module.<name>`` to (semi-)orthogonal matrices."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1)
                          or weight.is_complex() else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim=0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name: str = "weight", dim: int = 0):
    """``module.<name>`` as ``original0 * original1 / ||original1||`` (magnitude, direction)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        il = _il()
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(il.mv(weight_mat, self._v), dim=0, eps=self.eps,
                                      out=self._u)
                self._v = F.normalize(il.mv(weight_mat.H, self._u), dim=0, eps=self.eps,
                                      out=self._v)

    def forward(self, weight):
        il = _il()
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = il.vdot(u, il.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim=None):
    """Divide ``module.<name>`` by its spectral norm each time it is read."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
