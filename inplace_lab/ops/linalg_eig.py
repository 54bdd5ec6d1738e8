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


# ---- ldl_factor, ldl_solve (LAPACK sytrf/sytrs; PyTorch has no derivative: NotImplemented) --------

def _no_derivative(op):
    def backward(c, *grads):  # (PyTorch's NotImplemented node: it raises when backward runs)
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    return backward


_ldl_rule = _square("torch.linalg.ldl_factor_ex")  # (ATen's checks, as inv's)


@on_host
def _ldl_fwd(xp, a, out=None, dt=None, hermitian=False, check_errors=False):
    h = backend.to_numpy(a).astype(dt.np)
    f = _lapack("lapack", "sytrf", h.dtype)
    mats, batch = _matrices(h)
    n = h.shape[-1]
    lds, pivs, infos = [], [], []
    for m in mats:
        if n == 0:
            lds.append(m.copy()), pivs.append(np.zeros(0, np.int32)), infos.append(0)
            continue
        ld, piv, info = f(m, lower=1)
        lds.append(np.tril(ld))
        pivs.append(np.asarray(piv, np.int32))
        infos.append(int(info))
    if check_errors and any(infos):
        k = next(i for i, v in enumerate(infos) if v)
        raise RuntimeError(f'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
                           f'native/BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. '
                           f'torch.linalg.ldl_factor: Unknown error code: {infos[k]}.')
    ld = np.stack(lds).reshape(h.shape) if lds else h.copy()
    piv = np.stack(pivs).reshape(batch + (n,)) if pivs else np.zeros(batch + (n,), np.int32)
    return (_fcontig(np, ld), piv, np.asarray(infos, np.int32).reshape(batch))


LDL = register(OpSpec(
    name="_linalg_ldl_factor_ex", forward=_ldl_fwd,
    backward=_no_derivative("linalg_ldl_factor_ex"), outputs=("LD", "pivots", "info"),
    params={"hermitian": False, "check_errors": False}, dtype_rule=_ldl_rule,
    node_name="torch::autograd::NotImplemented", method=False, function=False, out=False,
    doc="LAPACK sytrf: the compact LDL^T factor (Bunch-Kaufman pivots)."))
LinalgLdlFactorResult = _rt("linalg_ldl_factor", ["LD", "pivots"])
LinalgLdlFactorExResult = _rt("linalg_ldl_factor_ex", ["LD", "pivots", "info"])


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``torch.linalg.ldl_factor_ex``: (LD, pivots, info); no derivative, as PyTorch."""
    _no_out(out, "ldl_factor_ex")
    r = dispatch.call(LDL, (A,), {"hermitian": hermitian, "check_errors": check_errors})
    return LinalgLdlFactorExResult(r.LD, r.pivots, r.info)


def ldl_factor(A, *, hermitian=False, out=None):
    """``torch.linalg.ldl_factor``: (LD, pivots)."""
    _no_out(out, "ldl_factor")
    r = dispatch.call(LDL, (A,), {"hermitian": hermitian, "check_errors": True})
    return LinalgLdlFactorResult(r.LD, r.pivots)


@on_host
def _ldl_solve_fwd(xp, ld, piv, b, out=None, dt=None, hermitian=False):
    h = backend.to_numpy(ld).astype(dt.np)
    hp = backend.to_numpy(piv).astype(np.int32)
    hb = backend.to_numpy(b).astype(dt.np)
    batch = np.broadcast_shapes(h.shape[:-2], hb.shape[:-2])
    h = np.broadcast_to(h, batch + h.shape[-2:])
    hp = np.broadcast_to(hp, batch + hp.shape[-1:])
    hb = np.broadcast_to(hb, batch + hb.shape[-2:])
    f = _lapack("lapack", "sytrs", h.dtype)
    ma, _ = _matrices(np.ascontiguousarray(h))
    mb, _ = _matrices(np.ascontiguousarray(hb))
    mp = list(hp.reshape((len(ma), hp.shape[-1])))
    res = [f(m, p, r, lower=1)[0] for m, p, r in zip(ma, mp, mb)]
    x = np.stack(res).reshape(hb.shape) if res else np.zeros(hb.shape, dt.np)
    return _fcontig(np, x)


def _ldl_solve_rule(spec, ins, params):
    ld, piv, b = ins
    name = "torch.linalg.ldl_solve"
    if ld.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor LD must have at least 2 dimensions.")
    if ld.shape[-1] != ld.shape[-2]:
        raise RuntimeError(f"{name}: LD must be batches of square matrices, but they are "
                           f"{ld.shape[-2]} by {ld.shape[-1]} matrices")
    if b.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if piv._dtype is not dtypes.int32:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {piv._dtype.torch_name}")
    if ld._dtype is not b._dtype:
        raise RuntimeError(f"{name}: LD dtype {ld._dtype.torch_name} does not match b dtype "
                           f"{b._dtype.torch_name}")
    return ld._dtype


LDL_SOLVE = register(OpSpec(
    name="_linalg_ldl_solve", forward=_ldl_solve_fwd, backward=_no_derivative("linalg_ldl_solve"),
    args=("LD", "pivots", "B"), params={"hermitian": False}, dtype_rule=_ldl_solve_rule,
    nondiff=("pivots",), node_name="torch::autograd::NotImplemented", method=False,
    function=False, out=False, doc="LAPACK sytrs: the solution of A X = B from ldl_factor."))


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """``torch.linalg.ldl_solve``: X with A X = B from ``ldl_factor``'s (LD, pivots)."""
    _no_out(out, "ldl_solve")
    return dispatch.call(LDL_SOLVE, (LD, pivots, B), {"hermitian": hermitian})


def orgqr(input, tau):
    """``torch.orgqr`` / ``Tensor.orgqr``: ``torch.linalg.householder_product``."""
    return dispatch.call(HOUSEHOLDER, (input, tau), {})


register(OpSpec(name="orgqr", forward=orgqr, kind="composite", doc=orgqr.__doc__, method=True))
