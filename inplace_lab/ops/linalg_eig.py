"""``torch.linalg.eig``/``eigvals`` (complex results, LAPACK geev's normalisation: unit
eigenvectors whose largest component is real, as PyTorch's) and
``torch.linalg.householder_product`` (LAPACK orgqr; LinalgHouseholderProductBackward0).

eig and eigvals have no backward here: PyTorch's LinalgEigBackward0 works in complex
arithmetic that the autograd formulas of this library do not cover yet, so an input that
requires grad is refused with an error that says so rather than given no gradient.
householder_product's backward differentiates the product of the reflectors
H_i = I - tau_i v_i v_i^H, rebuilt with table ops.

>>> import inplace_lab as il
>>> from inplace_lab.torch import linalg
>>> linalg.eigvals(il.tensor([[2., 0.], [0., 3.]])).tolist()
[(2+0j), (3+0j)]
"""
from __future__ import annotations

import numpy as np

from .. import backend, creation, dtypes
from . import dispatch
from .linalg_inverse import _square
from .linalg_solve import _fcontig, _lapack, _matrices, _no_out, _rt, on_host  # noqa: F401
from .table import OpSpec, register

LinalgEigResult = _rt("linalg_eig", ["eigenvalues", "eigenvectors"])


def _complex_of(dt):
    return dtypes.complex128 if dt in (dtypes.float64, dtypes.complex128) else dtypes.complex64


def _eig_arrays(A, name):
    _square(name)(None, (A,), {})
    if A.requires_grad:
        raise NotImplementedError(
            f"{name}: the gradient of the eigendecomposition of a general matrix "
            "(LinalgEigBackward0) needs complex autograd, which inplace_lab does not have; "
            "call it on A.detach(), or use torch.linalg.eigh for a symmetric matrix")
    xp = backend.xp_of(A.device)
    cdt = _complex_of(A.dtype)
    a = A.detach()._a
    if a.size == 0:
        return xp, cdt, xp.zeros(a.shape[:-1], cdt.np), xp.zeros(a.shape, cdt.np)
    h = backend.to_numpy(a)
    w, v = np.linalg.eig(h)
    return xp, cdt, xp.asarray(w.astype(cdt.np)), xp.asarray(v.astype(cdt.np))


def _wrap(xp, arr, A):
    from ..tensor import Tensor

    return Tensor._wrap(arr, A.device, A._pol)


def eig(A, *, out=None):
    """``torch.linalg.eig``: complex (eigenvalues, eigenvectors) of a square matrix."""
    _no_out(out, "eig")
    xp, cdt, w, v = _eig_arrays(A, "linalg.eig")
    return LinalgEigResult(_wrap(xp, xp.ascontiguousarray(w), A), _wrap(xp, _fcontig(xp, v), A))


def eigvals(A, *, out=None):
    """``torch.linalg.eigvals``: the complex eigenvalues of a square matrix."""
    _no_out(out, "eigvals")
    xp, cdt, w, v = _eig_arrays(A, "linalg.eigvals")
    return _wrap(xp, xp.ascontiguousarray(w), A)


# ---- householder_product -------------------------------------------------------------------------

def _hh_rule(spec, ins, params):
    A, tau = ins
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 "
                           "dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(f"torch.linalg.householder_product: Expected tau to have one "
                           f"dimension less than input, but got tau.ndim equal to {tau.ndim} and "
                           f"input.ndim is equal to {A.ndim}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"torch.linalg.householder_product: Expected batch dimensions of tau "
                           f"to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau._dtype is not A._dtype:
        raise RuntimeError(f"torch.linalg.householder_product: tau dtype {tau._dtype.torch_name} "
                           f"does not match input dtype {A._dtype.torch_name}")
    if not (A._dtype.is_floating_point or A._dtype.is_complex):
        raise NotImplementedError(f'"orgqr_cpu" not implemented for \'{A._dtype.torch_name}\'')
    return A._dtype


@on_host
def _hh_fwd(xp, a, tau, out=None, dt=None):
    h = backend.to_numpy(a).astype(dt.np)
    ht = backend.to_numpy(tau).astype(dt.np)
    f = _lapack("lapack", "orgqr", h.dtype)
    mats, _ = _matrices(h)
    taus = list(ht.reshape((len(mats), ht.shape[-1])))
    res = []
    for m, t in zip(mats, taus):
        if 0 in m.shape:
            res.append(m.copy())
            continue
        k = t.shape[0]
        if k == 0:
            res.append(np.eye(*m.shape, dtype=dt.np))
            continue
        q, _, _ = f(m, t, lwork=max(1, 64 * m.shape[1]))
        res.append(q)
    r = np.stack(res).reshape(h.shape) if res else h.copy()
    return _fcontig(xp, xp.asarray(r))


def _hh_product(A, tau):
    """The product H_1 ... H_k applied to the first n columns of I, in table ops."""
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    Q = creation.eye(m, n, dtype=A.dtype, device=A.device)
    eye = creation.eye(m, dtype=A.dtype, device=A.device)
    rows = creation.arange(m, device=A.device).unsqueeze(-1)
    for i in reversed(range(k)):
        col = A[..., :, i:i + 1]
        v = col.where(rows > i, (rows == i).to(A.dtype)) if m else col
        H = eye - tau[..., i:i + 1].unsqueeze(-1) * v.matmul(v.mH)
        Q = H.matmul(Q)
    return Q


def _hh_bw(c, g):
    from ..autograd import grad, grad_mode

    A, tau = c["self"], c["tau"]
    with grad_mode.enable_grad():
        a = A.detach().requires_grad_(True)
        t = tau.detach().requires_grad_(True)
        Q = _hh_product(a, t)
        ga, gt = grad((Q,), (a, t), (g.detach(),), allow_unused=True)
    return ga, gt


HOUSEHOLDER = register(OpSpec(
    name="linalg_householder_product", forward=_hh_fwd, backward=_hh_bw, args=("self", "tau"),
    dtype_rule=_hh_rule, saves=("self", "tau"), node_name="LinalgHouseholderProductBackward0",
    method=False, function=False, out=False,
    doc="the first n columns of H_1 ... H_k from geqrf's reflectors (LAPACK orgqr)."))


def householder_product(A, tau, *, out=None):
    """``torch.linalg.householder_product`` (``torch.orgqr``)."""
    _no_out(out, "householder_product")
    return dispatch.call(HOUSEHOLDER, (A, tau), {})
