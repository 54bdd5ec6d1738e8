"""Determinants, inverses and the full SVD: ``det``/``linalg.det`` (LinalgDetBackward0),
``slogdet``/``linalg.slogdet`` (LinalgSlogdetBackward0), ``logdet``, ``inverse``/
``linalg.inv`` (LinalgInvExBackward0), ``svd`` (the old API) and ``linalg.svd``.

What each backward saves matters for in-place lessons: det saves A and its result;
inverse saves only its result (``-A⁻ᵀ g A⁻ᵀ`` needs nothing else), so overwriting A after
``A.inverse()`` is harmless, overwriting the inverse is not. Every backward is written
with table ops, so ``create_graph=True`` differentiates it again.

The SVD's U, S and Vh are three nodes here (PyTorch has one node with three outputs; the
table differentiates the first output of an op only): ``_linalg_svd`` gives S (ops/
linalg_norm.py), ``_linalg_svd_u`` U and ``_linalg_svd_vh`` Vh, all named
LinalgSvdBackward0. Each part carries its share of PyTorch's ``svd_backward`` and the
shares add up at A, so the gradients are PyTorch's. They are computed only when A needs
a gradient (three LAPACK calls then, one otherwise).

Known differences: slogdet's ``sign`` has no grad_fn here (PyTorch's is output 0 of the
same node, with a zero gradient), and ``logabsdet`` is output 0, not 1.

>>> import inplace_lab as il
>>> A = il.tensor([[2., 0.], [0., 3.]], requires_grad=True)
>>> float(il.det(A)), il.det(A).grad_fn.name()
(6.0, 'LinalgDetBackward0')
"""
from __future__ import annotations

from collections import namedtuple

from .. import creation
from . import dispatch
from .linalg_norm import SVD, _svd_fwd
from .table import OpSpec, register


class LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a matrix that cannot be inverted (or decomposed)."""


def _square(name):
    """dtype rule: at least 2-D, square, floating (PyTorch's checks, in its order)."""

    def rule(spec, ins, params):
        a = ins[0]
        if a.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
        if a.shape[-1] != a.shape[-2]:
            raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                               f"{a.shape[-2]} by {a.shape[-1]} matrices")
        if not (a._dtype.is_floating_point or a._dtype.is_complex):
            raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                               f"Got {a._dtype.torch_name}")
        return a._dtype

    return rule


def _eye_like(a):
    n = a.shape[-1]
    return creation.eye(n, dtype=a.dtype, device=a.device)


def _mat(t):
    """A batch of scalars as (..., 1, 1), ready to scale a batch of matrices."""
    return t.unsqueeze(-1).unsqueeze(-1)


# ---- inverse -------------------------------------------------------------------------------------

def _singular_message(xp, a):
    """PyTorch's text: the first zero pivot of the LU factorisation (LAPACK's info)."""
    import numpy as np
    import scipy.linalg

    a = np.asarray(a.get() if hasattr(a, "get") else a)
    batch = a.reshape((-1,) + a.shape[-2:])
    for k, m in enumerate(batch):
        info = scipy.linalg.lapack.dgetrf(m.astype(np.float64))[2]
        if info > 0:
            where = f"(Batch element {k}): " if a.ndim > 2 else ""
            return (f"linalg.inv: {where}The diagonal element {info} is zero, the inversion could "
                    "not be completed because the input matrix is singular.")
    return "linalg.inv: the input matrix is singular."


def _inv_fwd(xp, a, out=None, dt=None):
    try:
        r = xp.linalg.inv(a)
    except xp.linalg.LinAlgError:
        raise LinAlgError(_singular_message(xp, a)) from None
    r = r.astype(dt.np, copy=False)
    if out is not None:
        out[...] = r
        return out
    return r


def _inv_bw(c, g):
    inv_t = c["result"].mT
    return (-(inv_t.matmul(g.matmul(inv_t))),)


INV = register(OpSpec(
    name="linalg_inv", forward=_inv_fwd, backward=_inv_bw, dtype_rule=_square("linalg.inv"),
    saves=("result",), node_name="LinalgInvExBackward0", method=False,
    doc="torch.linalg.inv(A): the inverse of each square matrix (saves only the result)."))


def inverse(input, *, out=None):
    """``torch.inverse`` / ``Tensor.inverse``: ``torch.linalg.inv``."""
    return dispatch.call(INV, (input,), {} if out is None else {"out": out})


# ---- det ----------------------------------------------------------------------------------------

def _det_fwd(xp, a, out=None, dt=None):
    r = xp.asarray(xp.linalg.det(a), dtype=dt.np)
    if out is not None:
        out[...] = r
        return out
    return r


def _det_bw(c, g):
    """g * det(A) * A⁻ᵀ; zero for an exactly singular A, as PyTorch's LU solve gives."""
    A, det = c["self"], c["result"]
    singular = _mat(det == 0)
    safe = A.where(~singular, _eye_like(A))  # no inverse is taken of a singular matrix
    return (_mat(g * det) * dispatch.call(INV, (safe,), {}).mT,)


DET = register(OpSpec(
    name="linalg_det", forward=_det_fwd, backward=_det_bw, dtype_rule=_square("linalg.det"),
    saves=("self", "result"), node_name="LinalgDetBackward0", method=False,
    doc="torch.linalg.det(A): the determinant of each square matrix."))


def det(input):
    """``torch.det`` / ``Tensor.det``: ``torch.linalg.det``."""
    return dispatch.call(DET, (input,), {})


# ---- slogdet and logdet ----------------------------------------------------------------------------

SlogdetResult = namedtuple("slogdet", ["sign", "logabsdet"], module="inplace_lab.return_types")
LinalgSlogdetResult = namedtuple("linalg_slogdet", ["sign", "logabsdet"],
                                 module="inplace_lab.return_types")


def _slogdet_fwd(xp, a, out=None, dt=None):
    sign, logabs = xp.linalg.slogdet(a)
    return xp.asarray(logabs, dtype=dt.np), xp.asarray(sign, dtype=dt.np)


def _inv_t_or_lu(A, logabs):
    """A⁻ᵀ; for a singular matrix LAPACK's getrs answer (infinities), as PyTorch's backward."""
    if not bool((logabs == float("-inf")).any()):
        return dispatch.call(INV, (A,), {}).mT
    import numpy as np
    import scipy.linalg

    a = np.asarray(A.detach().numpy(), dtype=np.float64)
    batch = a.reshape((-1,) + a.shape[-2:])
    eye = np.eye(a.shape[-1])
    with np.errstate(all="ignore"):
        res = [scipy.linalg.lapack.dgetrs(*scipy.linalg.lapack.dgetrf(m)[:2], eye, trans=1)[0]
               for m in batch]
    from .. import creation as cr

    return cr.tensor(np.stack(res).reshape(a.shape) if res else a, dtype=A.dtype)


def _slogdet_bw(c, g):
    return (_mat(g) * _inv_t_or_lu(c["self"], c["result"]),)


SLOGDET = register(OpSpec(
    name="_linalg_slogdet", forward=_slogdet_fwd, backward=_slogdet_bw,
    outputs=("logabsdet", "sign"), dtype_rule=_square("linalg.slogdet"), saves=("self", "result"),
    node_name="LinalgSlogdetBackward0", method=False, function=False, out=False,
    doc="log|det A| (differentiable) and the sign of det A."))


def linalg_slogdet(A, *, out=None):
    """``torch.linalg.slogdet``: (sign, logabsdet) with det = sign * exp(logabsdet)."""
    if out is not None:
        raise TypeError("slogdet(): out= is not supported here")
    r = dispatch.call(SLOGDET, (A,), {})
    return LinalgSlogdetResult(r.sign, r.logabsdet)


def slogdet(input):
    """``torch.slogdet`` / ``Tensor.slogdet``: (sign, logabsdet)."""
    r = dispatch.call(SLOGDET, (input,), {})
    return SlogdetResult(r.sign, r.logabsdet)


def logdet(input):
    """``torch.logdet``: log det A, NaN where det < 0 (PyTorch's ``where`` over slogdet)."""
    _square("logdet")(None, (input,), {})
    r = dispatch.call(SLOGDET, (input,), {})
    return r.logabsdet.where(r.sign != -1, float("nan"))


# ---- svd ------------------------------------------------------------------------------------------

def _skew(x):
    return x - x.mT


def svd_grad(U, S, Vh, gU, gVh, m, n):
    """PyTorch's ``svd_backward`` (real case, reduced U and Vh) for the gradients of U and/or
    Vh; the S part is ``_linalg_svd``'s own backward."""
    k = S.shape[-1]
    eye = creation.eye(k, dtype=S.dtype, device=S.device)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye  # 1 on the diagonal: nothing divides by 0
    if gU is not None:
        gA = _skew(U.mT.matmul(gU)) * S.unsqueeze(-2) / E
    else:
        gA = S.unsqueeze(-1) * _skew(Vh.matmul(gVh.mT)) / E
    if m > n and gU is not None:
        gA = U.matmul(gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U.matmul(U.mT.matmul(gUSinv))
        return gA.matmul(Vh)
    if m < n and gVh is not None:
        gA = gA.matmul(Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - SinvgVh.matmul(Vh.mT).matmul(Vh)
        return U.matmul(gA)
    return U.matmul(gA.matmul(Vh)) if m >= n else U.matmul(gA).matmul(Vh)


def _svd_full_fwd(xp, a, out=None, dt=None, full_matrices=False):
    if not full_matrices or 0 in a.shape:
        s, u, vh = _svd_fwd(xp, a, dt=dt)
        if full_matrices:  # empty: identity bases of the full sizes
            batch = a.shape[:-2]
            u = xp.broadcast_to(xp.eye(a.shape[-2], dtype=dt.np), batch + (a.shape[-2],) * 2).copy()
            vh = xp.broadcast_to(xp.eye(a.shape[-1], dtype=dt.np), batch + (a.shape[-1],) * 2).copy()
        return u, s, vh
    u, s, vh = xp.linalg.svd(a, full_matrices=True)
    return u.astype(dt.np, copy=False), s.astype(dt.np, copy=False), vh.astype(dt.np, copy=False)


def _part_bw(which):
    def bw(c, g):
        U, S, Vh = c["result" if which == "U" else "U"], c["S"], c["result" if which == "Vh" else "Vh"]
        m, n = c.input_meta[0][0][-2:]
        k = S.shape[-1]
        if c["full_matrices"]:  # PyTorch narrows the full bases to the reduced ones
            U, Vh = U[..., :, :k], Vh[..., :k, :]
            g = g[..., :, :k] if which == "U" else g[..., :k, :]
        return (svd_grad(U, S, Vh, g if which == "U" else None, g if which == "Vh" else None, m, n),)

    return bw


def _vh_first(xp, a, out=None, dt=None, full_matrices=False):
    u, s, vh = _svd_full_fwd(xp, a, dt=dt, full_matrices=full_matrices)
    return vh, u, s


_svd_rule = SVD.dtype_rule
SVD_U = register(OpSpec(
    name="_linalg_svd_u", forward=_svd_full_fwd, backward=_part_bw("U"), outputs=("U", "S", "Vh"),
    params={"full_matrices": False}, saves=("result", "S", "Vh"), dtype_rule=_svd_rule,
    node_name="LinalgSvdBackward0", method=False, function=False, out=False,
    doc="U of the SVD, with U's share of the SVD's backward."))
SVD_VH = register(OpSpec(
    name="_linalg_svd_vh", forward=_vh_first, backward=_part_bw("Vh"), outputs=("Vh", "U", "S"),
    params={"full_matrices": False}, saves=("result", "U", "S"), dtype_rule=_svd_rule,
    node_name="LinalgSvdBackward0", method=False, function=False, out=False,
    doc="Vh of the SVD, with Vh's share of the SVD's backward."))

LinalgSvdResult = namedtuple("linalg_svd", ["U", "S", "Vh"], module="inplace_lab.return_types")
SvdResult = namedtuple("svd", ["U", "S", "V"], module="inplace_lab.return_types")


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """``torch.linalg.svd``: A = U diag(S) Vh, S descending; gradients through all three."""
    if out is not None:
        raise TypeError("svd(): out= is not supported here")
    s = dispatch.call(SVD, (A,), {}).S
    if not s.requires_grad:
        r = dispatch.call(SVD_U, (A,), {"full_matrices": full_matrices})
        return LinalgSvdResult(r.U, s, r.Vh)
    u = dispatch.call(SVD_U, (A,), {"full_matrices": full_matrices}).U
    vh = dispatch.call(SVD_VH, (A,), {"full_matrices": full_matrices}).Vh
    return LinalgSvdResult(u, s, vh)


def svd(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd`` (the old API): (U, S, V) with V = Vh.mT; ``some=False`` gives the full
    bases; ``compute_uv=False`` gives zero U and V of the full sizes."""
    if out is not None:
        raise TypeError("svd(): out= is not supported here")
    if input.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.ndim} dimensions instead")
    if not compute_uv:
        s = dispatch.call(SVD, (input,), {}).S
        batch, (m, n) = tuple(input.shape[:-2]), input.shape[-2:]
        return SvdResult(creation.zeros(batch + (m, m), dtype=s.dtype, device=s.device), s,
                         creation.zeros(batch + (n, n), dtype=s.dtype, device=s.device))
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    return SvdResult(U, S, Vh.mT)


for _fn, _method in ((inverse, True), (det, True), (slogdet, True), (logdet, True), (svd, True),
                     (linalg_svd, False), (linalg_slogdet, False)):
    register(OpSpec(name=_fn.__name__, forward=_fn, kind="composite", doc=_fn.__doc__,
                    method=_method))
