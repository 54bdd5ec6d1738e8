"""Linear solves and factorisations: ``torch.linalg.solve``/``solve_ex``, ``cholesky``/
``cholesky_ex``, ``inv``/``inv_ex``, ``eigh``/``eigvalsh``, and the helpers the family shares
(ops/linalg_triangular.py: triangular systems, qr, Paddle's variants; ops/linalg_lu.py: the
LU family; ops/linalg_lstsq.py: lstsq, pinv, matrix_rank; ops/linalg_compose.py: the
composites; ops/linalg_eig.py: eig, householder_product, ldl).

Each op is a table entry named after PyTorch's node (LinalgSolveExBackward0 ...). An op with
several differentiable results (eigh's eigenvalues and eigenvectors, lu's L and U) is one
entry per result, all carrying PyTorch's node name and each its share of the backward; the
shares add up at the input, as the SVD's parts do in ops/linalg_inverse.py. Each part saves
its siblings' results with their history (``share_output``), so ``create_graph=True``
differentiates through them, and an in-place change of one is reported as PyTorch reports
it ('output 1 of LinalgEigh'). Backwards are written with table ops.

LAPACK does the work as in PyTorch: numpy's solve/cholesky/eigh call gesv/potrf/syevd, the
LU factors and triangular solves call scipy's getrf/trsm, one matrix at a time; on a GPU the
kernels run on host copies (``on_host``). Eigenvector signs are LAPACK's: PyTorch's wheel
links MKL, numpy OpenBLAS, and their syevd signs can differ (always from n = 7). Results of
LAPACK routines are laid out column-major per matrix, as PyTorch's (strides (..., 1, m)).

>>> import inplace_lab as il
>>> from inplace_lab.torch import linalg
>>> linalg.solve(il.tensor([[2., 0.], [0., 4.]]), il.tensor([2., 2.])).tolist()
[1.0, 0.5]
"""
from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np

from .. import backend, creation, dtypes
from ..autograd.saved import SavedTensor, _short
from . import dispatch
from .linalg_inverse import LinAlgError, _inv_bw, _singular_message, _square
from .linalg_more import _chol_bw
from .table import OpSpec, register


def _rt(name, fields):
    """A result type printed as PyTorch's ``torch.return_types.<name>(\nfield=..., ...)``."""
    base = namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{body})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                                "__module__": "torch.return_types"})


_WARNED: set = set()


def warn_once(key, message):
    """PyTorch's TORCH_WARN_ONCE: one UserWarning per process for each deprecated name (the
    function and the Tensor method share it)."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=4)


# ---- helpers ---------------------------------------------------------------------------------------

def _fcontig(xp, r):
    """``r`` with each matrix (the last two dims) laid out column-major, as LAPACK writes it."""
    if r.ndim < 2:
        return r
    return xp.swapaxes(xp.ascontiguousarray(xp.swapaxes(r, -1, -2)), -1, -2)


def share_output(out, name, other, nr):
    """Save ``other`` (a result of a sibling part, with its history) in ``out``'s node under
    ``name``: the part's backward then differentiates through it again (create_graph), as
    PyTorch's one node differentiates through all its outputs. An in-place change of it is
    reported as PyTorch reports it: 'output ``nr`` of <the node>'."""
    node = out.grad_fn
    if node is not None and other.grad_fn is not None and name in node.saved:
        st = SavedTensor(other, node.name(), is_output=False, policy=other._pol, name=name)
        st._producer, st.output_nr = _short(node.name()), nr
        node.saved[name] = st


def output_nr(out, nr):
    """The result of a part is output ``nr`` of PyTorch's node (eigh's eigenvectors: 1), as
    the saved-tensor error names it; create_graph still sees it as output 0 of its part."""
    node = out.grad_fn
    if node is not None and "result" in node.saved:
        node.saved["result"] = _renumbered(node.saved["result"], nr)


class _RenumberedSaved(SavedTensor):
    """A saved output whose error message says 'output ``nr``' of PyTorch's node (its part's
    own number, ``real_nr``, is kept for the gradient that flows through it again)."""

    __slots__ = ("real_nr",)

    def unpack(self, node=None):
        t = SavedTensor.unpack(self, node)
        if t is not self._tensor and t._grad_fn is node:
            t._output_nr = self.real_nr
        return t


def _renumbered(saved, nr):
    r = object.__new__(_RenumberedSaved)
    for k in SavedTensor.__slots__:
        setattr(r, k, getattr(saved, k))
    r.real_nr, r.output_nr = saved.output_nr, nr
    return r


def on_host(kernel):
    """The kernel run by numpy on host copies where the device is a GPU: LAPACK's answers,
    infos and errors as on the CPU (cupy's solvers neither raise nor report per matrix
    without a synchronisation), moved back to the device."""

    def run(xp, *arrays, **kw):
        if xp is np:
            return kernel(xp, *arrays, **kw)
        res = kernel(np, *[backend.to_numpy(a) if hasattr(a, "shape") else a for a in arrays],
                     **kw)
        if isinstance(res, tuple):
            return tuple(xp.asarray(r) for r in res)
        return xp.asarray(res)

    run.__name__ = run.__qualname__ = kernel.__name__
    run.__module__ = kernel.__module__
    run.__doc__ = kernel.__doc__
    return run


def _x(shape):
    return f"{shape[-2]}x{shape[-1]}"


def _matrices(h):
    """A host array (..., m, n) as a list of its matrices (and the batch shape)."""
    n = int(np.prod(h.shape[:-2], dtype=np.int64))  # (not -1: a batch of empty matrices)
    return list(h.reshape((n,) + h.shape[-2:])), h.shape[:-2]


def _lapack(kind, name, dt):
    import scipy.linalg

    mod = scipy.linalg.lapack if kind == "lapack" else scipy.linalg.blas
    return getattr(mod, ("s" if dt == np.float32 else "d") + name)


def _batch_where(k, ndim):
    return f"(Batch element {k}): " if ndim > 2 else ""


def _is_vector_rhs(a_shape, b_shape):
    """PyTorch's linalg_solve_is_vector_rhs: B is a vector, or a batch of vectors A.shape[:-1]."""
    return len(b_shape) == 1 or (len(a_shape) - 1 == len(b_shape) and
                                 tuple(b_shape) == tuple(a_shape[:-1]))


def _broadcast_batch(xp, a, b):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return (xp.broadcast_to(a, batch + a.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:]))


def _sum_to(g, shape):
    return g if tuple(g.shape) == tuple(shape) else g.sum_to_size(tuple(shape))


def _float_rule(kernel):
    """PyTorch's dispatch error for a non-floating dtype (``"lu_cpu" not implemented ...``)."""

    def check(a):
        if not (a._dtype.is_floating_point or a._dtype.is_complex):
            raise NotImplementedError(f'"{kernel}" not implemented for \'{a._dtype.torch_name}\'')

    return check


def _same_dtype(name, a, b, an="A", bn="B"):
    if a._dtype is not b._dtype:
        raise RuntimeError(f"{name}: Expected {an} and {bn} to have the same dtype, but found "
                           f"{an} of type {a._dtype.torch_name} and {bn} of type "
                           f"{b._dtype.torch_name} instead")


def _info_array(xp, infos, batch):
    return xp.asarray(np.asarray(infos, dtype=np.int32).reshape(batch))


# ---- solve, solve_ex ---------------------------------------------------------------------------------

def _solve_rule(spec, ins, params):
    a, b = ins
    _square("linalg.solve")(spec, (a,), params)
    _same_dtype("linalg.solve", a, b)
    left = params["left"]
    vec = _is_vector_rhs(a.shape, b.shape)
    bm = tuple(b.shape) + (1,) if vec else tuple(b.shape)
    n = a.shape[-1]
    if (bm[-2] if left else bm[-1]) != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({_x(a.shape)} and {_x(bm)})")
    from .. import layout

    layout.broadcast_shapes(bm[:-2], tuple(a.shape[:-2]))
    return a._dtype


def _getrf_infos(h):
    """LAPACK getrf's info per matrix of a host batch (0, or the 1-based index of a zero pivot)."""
    mats, _ = _matrices(h)
    f = _lapack("lapack", "getrf", h.dtype)
    return [int(f(m)[2]) for m in mats]


def _lu_solve_host(h, b, trans=0):
    """Per-matrix getrf + getrs on the host (what LAPACK gives, infinities included)."""
    getrf, getrs = _lapack("lapack", "getrf", h.dtype), _lapack("lapack", "getrs", h.dtype)
    ma, _ = _matrices(h)
    mb, _ = _matrices(b)
    with np.errstate(all="ignore"):
        out = [getrs(*getrf(m)[:2], rhs, trans=trans)[0] for m, rhs in zip(ma, mb)]
    return np.stack(out).reshape(b.shape) if out else np.zeros(b.shape, h.dtype)


@on_host
def _solve_fwd(xp, a, b, out=None, dt=None, left=True, check_errors=False):
    vec = _is_vector_rhs(a.shape, b.shape)
    if vec:
        b = b[..., None]
    if not left:
        a, b = xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2)
    a, b = _broadcast_batch(xp, a, b)
    a, b = a.astype(dt.np, copy=False), b.astype(dt.np, copy=False)
    batch = a.shape[:-2]
    try:
        x = xp.linalg.solve(a, b) if a.size and b.size else xp.zeros(b.shape, dt.np)
        infos = [0] * int(np.prod(batch, dtype=np.int64))
    except xp.linalg.LinAlgError:
        h = backend.to_numpy(a)
        infos = _getrf_infos(h)
        if check_errors:
            k = next(i for i, v in enumerate(infos) if v)
            raise LinAlgError(f"torch.linalg.solve{'_ex' if check_errors == 'ex' else ''}: "
                              f"{_batch_where(k, a.ndim)}The solver failed because the input "
                              "matrix is singular.") from None
        x = xp.asarray(_lu_solve_host(h, backend.to_numpy(b)))
    if not left:
        x = xp.swapaxes(x, -1, -2)
    if vec:
        x = x[..., 0]
    return _fcontig(xp, x) if left else xp.ascontiguousarray(x), _info_array(xp, infos, batch)


def _solve_bw(c, g):
    """PyTorch's linalg_solve_backward: gB = A^{-H} gX (left) or gX A^{-H}; gA = -gB X^H."""
    A, X, left = c["A"], c["result"], c["left"]
    vec = _is_vector_rhs(c.input_meta[0][0], c.input_meta[1][0])
    gB = dispatch.call(SOLVE_EX, (A.mH, g), {"left": left}).result
    gA = None
    if c.needs_input_grad[0]:
        if vec:
            gA = -(gB.unsqueeze(-1).matmul(X.unsqueeze(-1).mH))
        else:
            gA = -(gB.matmul(X.mH)) if left else -(X.mH.matmul(gB))
        gA = _sum_to(gA, c.input_meta[0][0])
    gB = _sum_to(gB, c.input_meta[1][0]) if c.needs_input_grad[1] else None
    return gA, gB


SOLVE_EX = register(OpSpec(
    name="_linalg_solve_ex", forward=_solve_fwd, backward=_solve_bw, args=("A", "B"),
    outputs=("result", "info"), params={"left": True, "check_errors": False},
    dtype_rule=_solve_rule, saves=("A", "result"), node_name="LinalgSolveExBackward0",
    method=False, function=False, out=False,
    doc="the solution X of AX = B (or XA = B) and LAPACK's info per matrix."))
LinalgSolveExResult = _rt("linalg_solve_ex", ["result", "info"])


def linalg_solve(A, B, *, left=True, out=None):
    """``torch.linalg.solve``: X with AX = B (``left=False``: XA = B); batches broadcast."""
    return with_out("_linalg_solve_ex", lambda: dispatch.call(
        SOLVE_EX, (A, B), {"left": left, "check_errors": True}).result, (A, B), out)


def linalg_solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``torch.linalg.solve_ex``: (result, info); info is 0 or the index of a zero pivot."""
    _no_out(out, "solve_ex")
    r = dispatch.call(SOLVE_EX, (A, B), {"left": left, "check_errors": "ex" if check_errors
                                         else False})
    return LinalgSolveExResult(r.result, r.info)


def _no_out(out, name):
    if out is not None:
        raise TypeError(f"{name}(): out= is not supported here")


def with_out(aten_name, compute, ins, out):
    """``compute()``'s result, or written into ``out`` as PyTorch's linalg out= overloads do:
    refused when an input requires grad, dtype checked, resized (column-major, with the
    deprecation warning when it had elements) where its shape differs, one version bump."""
    if out is None:
        return compute()
    from ..autograd import grad_mode
    from ..tensor import Tensor

    if grad_mode.state.enabled and any(isinstance(x, Tensor) and x.requires_grad for x in ins):
        raise RuntimeError(f"{aten_name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    with grad_mode.no_grad():
        r = compute()
    if out._dtype is not r._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {dtypes.cpp_name(r._dtype)}, but "
                           f"got {dtypes.cpp_name(out._dtype)} instead")
    if tuple(out.shape) != tuple(r.shape):
        dispatch.resize_out(out, tuple(r.shape), stacklevel=4, strides=tuple(r.stride()))
    out._a[...] = r._a
    out._vc.bump()
    return out


# ---- cholesky_ex, inv_ex ----------------------------------------------------------------------------

def _potrf_host(h, upper):
    """Per-matrix potrf (LAPACK's partial factor where it fails) and its infos."""
    f = _lapack("lapack", "potrf", h.dtype)
    mats, _ = _matrices(h)
    outs, infos = [], []
    for m in mats:
        c, info = f(m, lower=not upper, clean=True)
        outs.append(np.triu(c) if upper else np.tril(c))
        infos.append(int(info))
    return (np.stack(outs).reshape(h.shape) if outs else h.copy()), infos


@on_host
def _chol_ex_fwd(xp, a, out=None, dt=None, upper=False, check_errors=False):
    batch = a.shape[:-2]
    try:
        L = xp.linalg.cholesky(a).astype(dt.np, copy=False)
        if upper:
            L = xp.swapaxes(L, -1, -2)
        infos = [0] * int(np.prod(batch, dtype=np.int64))
    except xp.linalg.LinAlgError:
        h, infos = _potrf_host(backend.to_numpy(a), upper)
        if check_errors:
            k = next(i for i, v in enumerate(infos) if v)
            raise LinAlgError(f"linalg.{check_errors}: {_batch_where(k, a.ndim)}The factorization "
                              "could not be completed because the input is not positive-definite "
                              f"(the leading minor of order {infos[k]} is not positive-definite)."
                              ) from None
        L = xp.asarray(h.astype(dt.np, copy=False))
    return _fcontig(xp, L), _info_array(xp, infos, batch)


CHOLESKY_EX = register(OpSpec(
    name="_linalg_cholesky_ex", forward=_chol_ex_fwd, backward=lambda c, g: (_chol_bw(c, g),),
    outputs=("L", "info"), params={"upper": False, "check_errors": False},
    dtype_rule=_square("linalg.cholesky"), saves=("result",),
    node_name="LinalgCholeskyExBackward0", method=False, function=False, out=False,
    doc="the Cholesky factor (lower, or upper) and LAPACK's info per matrix."))
LinalgCholeskyExResult = _rt("linalg_cholesky_ex", ["L", "info"])


def linalg_cholesky(A, *, upper=False, out=None):
    """``torch.linalg.cholesky``: L with A = L L^H (LinAlgError where A is not positive-definite)."""
    return with_out("linalg_cholesky_ex", lambda: dispatch.call(
        CHOLESKY_EX, (A,), {"upper": upper, "check_errors": "cholesky"}).L, (A,), out)


def linalg_cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``torch.linalg.cholesky_ex``: (L, info); info is the order of the first failing minor."""
    _no_out(out, "cholesky_ex")
    r = dispatch.call(CHOLESKY_EX, (A,), {"upper": upper,
                                          "check_errors": "cholesky_ex" if check_errors else False})
    return LinalgCholeskyExResult(r.L, r.info)


@on_host
def _inv_ex_fwd(xp, a, out=None, dt=None, check_errors=False):
    batch = a.shape[:-2]
    try:
        r = xp.linalg.inv(a).astype(dt.np, copy=False)
        infos = [0] * int(np.prod(batch, dtype=np.int64))
    except xp.linalg.LinAlgError:
        h = backend.to_numpy(a)
        if check_errors:
            raise LinAlgError(_singular_message(xp, a).replace("linalg.inv:", check_errors + ":",
                                                               1)) from None
        infos = _getrf_infos(h)
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=h.dtype), h.shape)
        r = xp.asarray(_lu_solve_host(h, np.ascontiguousarray(eye)))
    return _fcontig(xp, r), _info_array(xp, infos, batch)


INV_EX = register(OpSpec(
    name="_linalg_inv_ex", forward=_inv_ex_fwd, backward=lambda c, g: _inv_bw(c, g),
    outputs=("inverse", "info"), params={"check_errors": False},
    dtype_rule=_square("linalg.inv"), saves=("result",), node_name="LinalgInvExBackward0",
    method=False, function=False, out=False, doc="the inverse and LAPACK's info per matrix."))
LinalgInvExResult = _rt("linalg_inv_ex", ["inverse", "info"])


def linalg_inv(A, *, out=None):
    """``torch.linalg.inv`` (LinalgInvExBackward0; a singular matrix raises LinAlgError)."""
    return with_out("linalg_inv_ex", lambda: dispatch.call(
        INV_EX, (A,), {"check_errors": "linalg.inv"}).inverse, (A,), out)


def linalg_inv_ex(A, *, check_errors=False, out=None):
    """``torch.linalg.inv_ex``: (inverse, info)."""
    _no_out(out, "inv_ex")
    r = dispatch.call(INV_EX, (A,), {"check_errors": "linalg.inv_ex" if check_errors else False})
    return LinalgInvExResult(r.inverse, r.info)


# ---- eigh, eigvalsh ----------------------------------------------------------------------------------

def _eigh_rule(spec, ins, params):
    a = ins[0]
    if params["UPLO"] not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {params['UPLO']}")
    if a.ndim < 2:
        raise RuntimeError("linalg.eigh: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.eigh: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    _float_rule("linalg_eigh_cpu")(a)
    return a._dtype


def _eigh_arrays(xp, a, dt, UPLO):
    if a.size == 0:
        return xp.zeros(a.shape[:-1], dt.np), xp.zeros(a.shape, dt.np)
    w, v = xp.linalg.eigh(a, UPLO=UPLO)
    return w.astype(dt.np, copy=False), _fcontig(xp, v.astype(dt.np, copy=False))


def _eigh_grad(L, V, gL, gV):
    """PyTorch's linalg_eig_backward for a Hermitian A (real case):
    V (diag(gL) + skew(V^H gV) / E) V^H, E_ij = L_j - L_i (1 on the diagonal)."""
    n = L.shape[-1]
    eye = creation.eye(n, dtype=L.dtype, device=L.device)
    if gV is not None:
        VhgV = V.mH.matmul(gV)
        VhgV = (VhgV - VhgV.mH) * 0.5
        E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye
        ret = VhgV / E * (1 - eye)
        if gL is not None:
            ret = ret + gL.unsqueeze(-1) * eye
    else:
        ret = gL.unsqueeze(-1) * eye
    return (V.matmul(ret).matmul(V.mH),)


@on_host
def _eigh_w_fwd(xp, a, out=None, dt=None, UPLO="L"):
    return _eigh_arrays(xp, a, dt, UPLO)


@on_host
def _eigh_v_fwd(xp, a, out=None, dt=None, UPLO="L"):
    w, v = _eigh_arrays(xp, a, dt, UPLO)
    return v, w


EIGH_W = register(OpSpec(
    name="_linalg_eigh_w", forward=_eigh_w_fwd, outputs=("eigenvalues", "eigenvectors"),
    params={"UPLO": "L"}, dtype_rule=_eigh_rule, saves=("result", "eigenvectors"),
    backward=lambda c, g: _eigh_grad(c["result"], c["eigenvectors"], g, None),
    node_name="LinalgEighBackward0", method=False, function=False, out=False,
    doc="the eigenvalues of a symmetric matrix (ascending), with their share of the backward."))
EIGH_V = register(OpSpec(
    name="_linalg_eigh_v", forward=_eigh_v_fwd, outputs=("eigenvectors", "eigenvalues"),
    params={"UPLO": "L"}, dtype_rule=_eigh_rule, saves=("result", "eigenvalues"),
    backward=lambda c, g: _eigh_grad(c["eigenvalues"], c["result"], None, g),
    node_name="LinalgEighBackward0", method=False, function=False, out=False,
    doc="the eigenvectors of a symmetric matrix (LAPACK's signs), with their share."))
LinalgEighResult = _rt("linalg_eigh", ["eigenvalues", "eigenvectors"])


def linalg_eigh(A, UPLO="L", *, out=None):
    """``torch.linalg.eigh``: (eigenvalues ascending, eigenvectors) from one triangle of A."""
    _no_out(out, "eigh")
    w, v = _eigh_parts(A, UPLO)
    return LinalgEighResult(w, v)


def _eigh_parts(A, UPLO):
    r = dispatch.call(EIGH_W, (A,), {"UPLO": UPLO})
    if not r.eigenvalues.requires_grad:
        return r.eigenvalues, r.eigenvectors
    v = dispatch.call(EIGH_V, (A,), {"UPLO": UPLO}).eigenvectors
    share_output(r.eigenvalues, "eigenvectors", v, 1)
    share_output(v, "eigenvalues", r.eigenvalues, 0)
    output_nr(v, 1)
    return r.eigenvalues, v


def linalg_eigvalsh(A, UPLO="L", *, out=None):
    """``torch.linalg.eigvalsh``: the eigenvalues (LinalgEighBackward0 when A requires grad)."""
    _no_out(out, "eigvalsh")
    return _eigh_parts(A, UPLO)[0]


from . import linalg_triangular  # noqa: E402  (triangular systems, qr, Paddle's variants)
from . import linalg_compose, linalg_eig, linalg_lstsq, linalg_lu  # noqa: E402  (the rest)
from .linalg_triangular import (CHOLESKY_SOLVE, EIGVALSH, LQR_Q, LQR_R,  # noqa: E402,F401
                                PADDLE_CHOLESKY_SOLVE, PADDLE_MATRIX_POWER, SOLVE_TRI, TS_SOL,
                                linalg_qr, linalg_solve_triangular, triangular_solve)

for _fn, _method in ((triangular_solve, True), (linalg_lu.lu, True), (linalg_lu.lu_solve, True),
                     (linalg_lu.lu_unpack, False), (linalg_compose.chain_matmul, False)):
    register(OpSpec(name=_fn.__name__, forward=_fn, kind="composite", doc=_fn.__doc__,
                    method=_method))
