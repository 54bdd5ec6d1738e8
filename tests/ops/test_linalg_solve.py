"""torch.linalg's solves and factorisations (and the old top-level names) against PyTorch:
values, dtypes, shapes, strides, result types, grad_fn names, gradients, warnings, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402

RNG = np.random.default_rng(7)


def pair(*shape, dtype="float64", grad=False, data=None):
    a = RNG.standard_normal(shape).astype(dtype) if data is None else np.asarray(data, dtype)
    return (torch.tensor(a, requires_grad=grad), il.tensor(a, requires_grad=grad))


def spd(*shape, grad=True):
    m = RNG.standard_normal(shape)
    n = shape[-1]
    return pair(data=m @ np.swapaxes(m, -1, -2) + n * np.eye(n), grad=grad)


def well(*shape, grad=True):
    """A well-conditioned square matrix (batch)."""
    return pair(data=RNG.standard_normal(shape) + 3 * np.eye(shape[-1]), grad=grad)


def tri(*shape, upper=True, grad=True):
    m = RNG.standard_normal(shape) + 3 * np.eye(shape[-1])
    return pair(data=np.triu(m) if upper else np.tril(m), grad=grad)


def same(t, x, rtol=1e-7, atol=1e-9, strides=True, values=True):
    if isinstance(t, (tuple, list)):
        assert type(t).__name__ == type(x).__name__
        if hasattr(t, "n_fields"):  # (a structseq: its field names are in its repr)
            assert [f.split("=")[0] for f in repr(t).split("\n") if "=tensor" in f] == \
                list(x._fields)
        assert len(t) == len(x)
        for a, b in zip(t, x):
            same(a, b, rtol, atol, strides, values)
        return
    assert tuple(t.shape) == tuple(x.shape)
    assert str(t.dtype).split(".")[-1] == str(x.dtype).split(".")[-1]
    if strides and t.numel() > 1:  # (the strides of size-1 dims address nothing)
        st = [s for s, n in zip(t.stride(), t.shape) if n > 1]
        sx = [s for s, n in zip(x.stride(), x.shape) if n > 1]
        assert st == sx, (t.stride(), x.stride())
    if values:
        np.testing.assert_allclose(x.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
    tn = t.grad_fn.name() if t.grad_fn is not None else None
    xn = x.grad_fn.name() if x.grad_fn is not None else None
    assert tn == xn


def run(fn, ins, rtol=1e-7, atol=1e-9, strides=True, weight=None, values=True):
    """fn on both sides; outputs compared; sum(out * w) backpropagated, gradients compared."""
    ins_t, ins_x = [a[0] if isinstance(a, tuple) else a for a in ins], \
        [a[1] if isinstance(a, tuple) else a for a in ins]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rt, rx = fn(torch, *ins_t), fn(il, *ins_x)
    same(rt, rx, rtol, atol, strides, values)
    outs_t = rt if isinstance(rt, (tuple, list)) else (rt,)
    outs_x = rx if isinstance(rx, (tuple, list)) else (rx,)
    pick = weight or (lambda T, o: o)
    lt = [(pick(torch, o) * torch.linspace(0.5, 1.5, o.numel(), dtype=o.dtype).reshape(o.shape)).sum()
          for o in outs_t if o.requires_grad]
    lx = [(pick(il, o) * il.tensor(np.linspace(0.5, 1.5, o.numel()), dtype=o.dtype).reshape(
        o.shape)).sum() for o in outs_x if o.requires_grad]
    if not lt:
        return rt, rx
    sum(lt).backward()
    sum(lx).backward()
    for a, b in zip(ins_t, ins_x):
        if getattr(a, "requires_grad", False):
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=max(rtol, 1e-6),
                                       atol=max(atol, 1e-8))
    return rt, rx


def errors_match(fn, *args):
    with pytest.raises(Exception) as et:
        fn(torch, *[a[0] if isinstance(a, tuple) else a for a in args])
    with pytest.raises(Exception) as ex:
        fn(il, *[a[1] if isinstance(a, tuple) else a for a in args])
    assert type(et.value).__name__.lstrip("_") in [c.__name__ for c in type(ex.value).__mro__]
    assert str(ex.value) == str(et.value)


# ---- solve, solve_ex --------------------------------------------------------------------------------

@pytest.mark.parametrize("ashape,bshape,left", [
    ((3, 3), (3, 2), True), ((2, 3, 3), (2, 3, 2), True), ((2, 3, 3), (3, 2), True),
    ((2, 1, 3, 3), (4, 3, 2), True), ((3, 3), (3,), True), ((2, 3, 3), (2, 3), True),
    ((2, 3, 3), (3,), True), ((3, 3), (2, 3), False), ((2, 3, 3), (2, 4, 3), False)])
def test_solve_values_strides_and_gradients(ashape, bshape, left):
    run(lambda T, a, b: T.linalg.solve(a, b, left=left), [well(*ashape), pair(*bshape, grad=True)])


def test_solve_ex_returns_info_and_solve_node():
    run(lambda T, a, b: T.linalg.solve_ex(a, b), [well(2, 3, 3), pair(2, 3, 2, grad=True)])


def test_solve_ex_singular_gives_info_without_error():
    s = np.zeros((2, 3, 3))
    s[0] = np.eye(3)
    rt, rx = (torch.linalg.solve_ex(torch.tensor(s), torch.ones(3, 1, dtype=torch.float64)),
              il.linalg.solve_ex(il.tensor(s), il.ones(3, 1, dtype=il.float64)))
    assert rt.info.tolist() == rx.info.tolist()
    np.testing.assert_array_equal(rx.result.numpy()[0], rt.result.numpy()[0])


@pytest.mark.parametrize("fn,args", [
    (lambda T, a, b: T.linalg.solve(a, b), [pair(data=np.zeros((3, 3))), pair(3, 2)]),
    (lambda T, a, b: T.linalg.solve(a, b), [pair(data=np.stack([np.eye(3), np.zeros((3, 3))])),
                                            pair(3, 2)]),
    (lambda T, a, b: T.linalg.solve_ex(a, b, check_errors=True),
     [pair(data=np.stack([np.eye(3), np.zeros((3, 3))])), pair(3, 2)]),
    (lambda T, a, b: T.linalg.solve(a, b), [pair(2, 3), pair(3, 2)]),
    (lambda T, a, b: T.linalg.solve(a, b), [pair(3), pair(3, 2)]),
    (lambda T, a, b: T.linalg.solve(a, b), [pair(3, 3, dtype="int64"), pair(3, 2, dtype="int64")]),
    (lambda T, a, b: T.linalg.solve(a, b), [pair(3, 3), pair(3, 2, dtype="float32")]),
    (lambda T, a, b: T.linalg.solve(a, b), [pair(3, 3), pair(4, 2)]),
    (lambda T, a, b: T.linalg.solve(a, b), [pair(3, 3), pair(4)]),
    (lambda T, a, b: T.linalg.solve(a, b, left=False), [pair(3, 3), pair(2, 4)]),
    (lambda T, a, b: T.linalg.solve(a, b, left=False), [pair(3, 3), pair(3)]),
    (lambda T, a, b: T.linalg.solve(a, b), [pair(2, 3, 3), pair(4, 3, 2)]),
])
def test_solve_errors(fn, args):
    errors_match(fn, *args)


# ---- cholesky, cholesky_ex, inv_ex ----------------------------------------------------------------------

@pytest.mark.parametrize("upper", [False, True])
def test_linalg_cholesky(upper):
    run(lambda T, a: T.linalg.cholesky(a, upper=upper), [spd(2, 3, 3)])


def test_cholesky_ex_partial_factor_and_info():
    bad = np.array([[4., 2, 1], [2, 1, 3], [1, 3, 2]])
    run(lambda T, a: T.linalg.cholesky_ex(a), [pair(data=bad)])
    run(lambda T, a: T.linalg.cholesky_ex(a), [spd(2, 3, 3)])


@pytest.mark.parametrize("fn,args", [
    (lambda T, a: T.linalg.cholesky(a), [pair(data=-np.eye(3))]),
    (lambda T, a: T.linalg.cholesky(a), [pair(data=np.stack([np.eye(3), -np.eye(3)]))]),
    (lambda T, a: T.linalg.cholesky_ex(a, check_errors=True), [pair(data=-np.eye(2))]),
    (lambda T, a: T.linalg.cholesky(a), [pair(2, 3)]),
    (lambda T, a: T.linalg.cholesky(a), [pair(3, 3, dtype="int64")]),
    (lambda T, a: T.linalg.cholesky(a), [pair(3)]),
    (lambda T, a: T.linalg.inv(a), [pair(data=np.zeros((3, 3)))]),
    (lambda T, a: T.linalg.inv_ex(a, check_errors=True), [pair(data=np.zeros((3, 3)))]),
])
def test_cholesky_and_inverse_errors(fn, args):
    errors_match(fn, *args)


def test_inv_and_inv_ex():
    run(lambda T, a: T.linalg.inv(a), [well(2, 3, 3)])
    run(lambda T, a: T.linalg.inv_ex(a), [well(3, 3)])


def test_inv_ex_singular_info():
    s = np.stack([np.eye(3), np.zeros((3, 3))])
    assert il.linalg.inv_ex(il.tensor(s)).info.tolist() == \
        torch.linalg.inv_ex(torch.tensor(s)).info.tolist()


# ---- eigh, eigvalsh ----------------------------------------------------------------------------------

def _column_signs_aligned(vt, vx):
    """vx with each column's sign flipped to agree with vt's (LAPACK builds differ there)."""
    vt, vx = vt.detach().numpy(), vx.detach().numpy()
    k = np.argmax(np.abs(vt), axis=-2)[..., None, :]
    flip = np.sign(np.take_along_axis(vt, k, -2)) * np.sign(np.take_along_axis(vx, k, -2))
    return vx * flip


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("n", [3, 8])
def test_eigh_values_vectors_and_sign_free_gradients(uplo, n):
    """Eigenvector signs are LAPACK's in both, but PyTorch's wheel links MKL and numpy
    OpenBLAS, whose syevd signs differ (always from n = 7): columns are compared up to sign,
    gradients through sign-free functions (V * V)."""
    a = pair(2, n, n, grad=True)
    rt, rx = run(lambda T, x: T.linalg.eigh(x, UPLO=uplo), [a], weight=lambda T, o: o * o,
                 rtol=1e-6, atol=1e-8, values=False)
    np.testing.assert_allclose(rx.eigenvalues.detach().numpy(), rt.eigenvalues.detach().numpy(),
                               rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(_column_signs_aligned(rt.eigenvectors, rx.eigenvectors),
                               rt.eigenvectors.detach().numpy(), rtol=1e-6, atol=1e-8)


def test_eigh_small_matrix_signs_match_torch():
    run(lambda T, x: T.linalg.eigh(x), [pair(data=[[2., 1.], [1., 3.]], grad=True)])


def test_eigh_sign_free_gradient_of_symmetric_input():
    a = pair(3, 3, grad=True)
    rt, rx = run(lambda T, x: T.linalg.eigh(x + x.mT), [a], weight=lambda T, o: o * o,
                 values=False)


def test_eigvalsh():
    run(lambda T, x: T.linalg.eigvalsh(x), [spd(2, 3, 3)])


@pytest.mark.parametrize("fn,args", [
    (lambda T, a: T.linalg.eigh(a), [pair(3, 3, dtype="int64")]),
    (lambda T, a: T.linalg.eigvalsh(a), [pair(3, 3, dtype="int64")]),
    (lambda T, a: T.linalg.eigh(a), [pair(2, 3)]),
    (lambda T, a: T.linalg.eigh(a), [pair(3)]),
    (lambda T, a: T.linalg.eigh(a, UPLO="X"), [pair(3, 3)]),
])
def test_eigh_errors(fn, args):
    errors_match(fn, *args)


# ---- solve_triangular, triangular_solve, cholesky_solve --------------------------------------------------

@pytest.mark.parametrize("upper,left,unit", [(True, True, False), (False, True, False),
                                             (True, False, False), (False, True, True),
                                             (True, False, True)])
def test_solve_triangular(upper, left, unit):
    b = pair(2, 3, 2, grad=True) if left else pair(2, 2, 3, grad=True)
    run(lambda T, a, x: T.linalg.solve_triangular(a, x, upper=upper, left=left,
                                                  unitriangular=unit),
        [tri(2, 3, 3, upper=upper), b])


def test_solve_triangular_broadcasts_batches():
    run(lambda T, a, x: T.linalg.solve_triangular(a, x, upper=True),
        [tri(3, 3), pair(2, 3, 2, grad=True)])


def test_solve_triangular_zero_diagonal_gives_inf_not_error():
    a = np.triu(np.ones((3, 3)))
    a[1, 1] = 0
    rt = torch.linalg.solve_triangular(torch.tensor(a), torch.ones(3, 1, dtype=torch.float64),
                                       upper=True)
    rx = il.linalg.solve_triangular(il.tensor(a), il.ones(3, 1, dtype=il.float64), upper=True)
    np.testing.assert_array_equal(rx.numpy(), rt.numpy())


@pytest.mark.parametrize("fn,args", [
    (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True), [pair(3, 3), pair(3)]),
    (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True), [pair(3, 3), pair(4, 2)]),
    (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True, left=False),
     [pair(3, 3), pair(2, 4)]),
    (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True),
     [pair(3, 3, dtype="int64"), pair(3, 3, dtype="int64")]),
    (lambda T, a, b: T.triangular_solve(b, a), [pair(3, 3), pair(3)]),
    (lambda T, a, b: T.cholesky_solve(b, a), [pair(3, 3, dtype="int64"),
                                              pair(3, 3, dtype="int64")]),
    (lambda T, a, b: T.cholesky_solve(b, a), [pair(3, 3), pair(2, 3)]),
])
def test_triangular_errors(fn, args):
    errors_match(fn, *args)


@pytest.mark.parametrize("upper,transpose,unit", [(True, False, False), (False, True, False),
                                                  (True, True, True)])
def test_triangular_solve_solution_and_cloned_coefficient(upper, transpose, unit):
    run(lambda T, b, a: T.triangular_solve(b, a, upper=upper, transpose=transpose,
                                           unitriangular=unit),
        [pair(2, 3, 2, grad=True), tri(2, 3, 3, upper=upper)])


def test_triangular_solve_warns_like_torch():
    import inplace_lab.ops.linalg_solve as ls

    ls._WARNED.discard("triangular_solve")
    a = il.eye(2, dtype=il.float64)
    with pytest.warns(UserWarning, match="torch.triangular_solve is deprecated"):
        il.triangular_solve(a, a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a.triangular_solve(a)  # (TORCH_WARN_ONCE: once per process)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve(upper):
    t, x = spd(2, 3, 3)
    L = (torch.linalg.cholesky(t.detach(), upper=upper).requires_grad_(),
         il.linalg.cholesky(x.detach(), upper=upper).requires_grad_())
    run(lambda T, b, l: T.cholesky_solve(b, l, upper=upper), [pair(2, 3, 2, grad=True), L])
    run(lambda T, b, l: b.cholesky_solve(l, upper), [pair(3, 2, grad=True), L])


# ---- lu_factor, lu, lu_solve, lu_unpack ---------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (3, 5), (5, 3)])
def test_lu_factor_pivots_as_lapack_and_gradient(shape):
    run(lambda T, a: T.linalg.lu_factor(a), [pair(*shape, grad=True)])
    run(lambda T, a: T.linalg.lu_factor_ex(a), [pair(*shape, grad=True)])


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (3, 5), (5, 3)])
def test_linalg_lu(shape):
    run(lambda T, a: T.linalg.lu(a), [pair(*shape, grad=True)])


def test_lu_singular_and_errors():
    s = np.stack([np.eye(3), np.zeros((3, 3))])
    run(lambda T, a: T.linalg.lu_factor_ex(a), [pair(data=s)])
    run(lambda T, a: T.linalg.lu(a), [pair(data=np.zeros((3, 3)))])
    errors_match(lambda T, a: T.linalg.lu_factor(a), pair(data=s))
    errors_match(lambda T, a: T.linalg.lu_factor(a), pair(data=np.zeros((3, 3))))
    errors_match(lambda T, a: T.linalg.lu_factor_ex(a, check_errors=True),
                 pair(data=np.zeros((3, 3))))
    errors_match(lambda T, a: T.linalg.lu_factor(a), pair(3, 3, dtype="int64"))
    errors_match(lambda T, a: T.linalg.lu_factor(a), pair(3))
    errors_match(lambda T, a: T.linalg.lu_factor(a, pivot=False), pair(3, 3))
    errors_match(lambda T, a: T.linalg.lu(a), pair(3, 3, dtype="int64"))


@pytest.mark.parametrize("left,adjoint", [(True, False), (True, True), (False, False),
                                          (False, True)])
def test_lu_solve_all_forms_and_gradients(left, adjoint):
    a = well(2, 3, 3, grad=False)
    LU = tuple(T.linalg.lu_factor(x) for T, x in zip((torch, il), a))
    lu_ = (LU[0].LU.requires_grad_(), LU[1].LU.requires_grad_())
    piv = (LU[0].pivots, LU[1].pivots)
    b = pair(2, 3, 2, grad=True) if left else pair(2, 2, 3, grad=True)
    run(lambda T, l, p, x: T.linalg.lu_solve(l, p, x, left=left, adjoint=adjoint), [lu_, piv, b])


def test_lu_solve_errors():
    LU = tuple(T.linalg.lu_factor(x) for T, x in zip((torch, il), pair(3, 3)))
    lu_, piv = (LU[0].LU, LU[1].LU), (LU[0].pivots, LU[1].pivots)
    errors_match(lambda T, l, p, b: T.linalg.lu_solve(l, p, b), lu_, piv, pair(4, 2))
    errors_match(lambda T, l, p, b: T.linalg.lu_solve(l, p, b), lu_, piv, pair(3))
    errors_match(lambda T, l, p, b: T.linalg.lu_solve(l, p, b), lu_, piv,
                 pair(3, 2, dtype="float32"))
    errors_match(lambda T, l, p, b: T.linalg.lu_solve(l, p.long(), b), lu_, piv, pair(3, 2))


def test_old_lu_lu_unpack_lu_solve():
    a = well(2, 3, 3)
    run(lambda T, x: T.lu(x), [a])
    run(lambda T, x: T.lu(x, get_infos=True), [a])
    run(lambda T, x: x.lu(), [a])
    run(lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x)), [pair(2, 4, 3, grad=True)])
    run(lambda T, x: T.lu_unpack(*T.linalg.lu_factor(x)), [pair(3, 4, grad=True)])
    run(lambda T, x, b: T.lu_solve(b, *T.linalg.lu_factor(x)), [a, pair(2, 3, 1, grad=True)])
    run(lambda T, x, b: b.lu_solve(*T.linalg.lu_factor(x)), [a, pair(2, 3, 1, grad=True)])


def test_lu_unpack_errors():
    LU = tuple(T.linalg.lu_factor(x) for T, x in zip((torch, il), pair(3, 3)))
    lu_, piv = (LU[0].LU, LU[1].LU), (LU[0].pivots, LU[1].pivots)
    errors_match(lambda T, l, p: T.lu_unpack(l, p.long()), lu_, piv)
    errors_match(lambda T, l, p: T.lu_unpack(l, p + 5), lu_, piv)


# ---- lstsq, pinv, matrix_rank -------------------------------------------------------------------------

@pytest.mark.parametrize("driver", [None, "gelsd", "gelss", "gels"])
@pytest.mark.parametrize("ashape,bshape", [((5, 3), (5, 2)), ((2, 5, 3), (2, 5, 2)),
                                           ((3, 3), (3,)), ((4, 3), (4,))])
def test_lstsq(driver, ashape, bshape):
    """(A tall system's solution: PyTorch's is a view of an m-row buffer, strides not compared.)"""
    run(lambda T, a, b: T.linalg.lstsq(a, b, driver=driver),
        [pair(*ashape, grad=True), pair(*bshape, grad=True)], rtol=1e-6, atol=1e-8,
        strides=ashape[-2] <= ashape[-1])


def test_lstsq_broadcasts_and_vector_batches():
    run(lambda T, a, b: T.linalg.lstsq(a, b), [pair(2, 5, 3, grad=True), pair(1, 5, 2, grad=True)],
        rtol=1e-6, atol=1e-8, strides=False)
    errors_match(lambda T, a, b: T.linalg.lstsq(a, b), pair(5, 3), pair(2, 5, 2))
    run(lambda T, a, b: T.linalg.lstsq(a, b), [pair(2, 3, 3, grad=True), pair(2, 3, grad=True)],
        rtol=1e-6, atol=1e-8)
    run(lambda T, a, b: T.linalg.lstsq(a, b), [pair(2, 3, 5, grad=True), pair(2, 3, grad=True)],
        rtol=1e-6, atol=1e-8)
    errors_match(lambda T, a, b: T.linalg.lstsq(a, b), pair(2, 5, 3), pair(5, 2))


def test_orgqr_is_householder_product():
    tau = pair(data=RNG.uniform(0.5, 1.5, 3), grad=True)
    run(lambda T, a, t: T.orgqr(a, t), [pair(4, 3, grad=True), tau])
    run(lambda T, a, t: a.orgqr(t), [pair(4, 3, grad=True), tau])


def test_lstsq_wide_and_rank_deficient():
    run(lambda T, a, b: T.linalg.lstsq(a, b, driver="gelsd"), [pair(3, 5, grad=True),
                                                                pair(3, 2, grad=True)])
    run(lambda T, a, b: T.linalg.lstsq(a, b, driver="gelsd"), [pair(data=np.ones((5, 3))),
                                                                pair(5, 2)], rtol=1e-6, atol=1e-8,
        strides=False)


@pytest.mark.parametrize("fn,args", [
    (lambda T, a, b: T.linalg.lstsq(a, b), [pair(3, 3, dtype="int64"), pair(3, 3, dtype="int64")]),
    (lambda T, a, b: T.linalg.lstsq(a, b), [pair(3), pair(3, 3)]),
    (lambda T, a, b: T.linalg.lstsq(a, b), [pair(3, 3), pair(4, 2)]),
    (lambda T, a, b: T.linalg.lstsq(a, b, driver="foo"), [pair(3, 3), pair(3, 2)]),
])
def test_lstsq_errors(fn, args):
    errors_match(fn, *args)


@pytest.mark.parametrize("kw", [{}, {"hermitian": True}, {"atol": 0.5}, {"rtol": 0.3},
                                {"atol": 0.1, "rtol": 0.2}])
def test_pinv_tolerances(kw):
    a = spd(2, 4, 4) if kw.get("hermitian") else pair(2, 4, 3, grad=True)
    run(lambda T, x: T.linalg.pinv(x, **kw), [a], rtol=1e-6, atol=1e-8)


def test_pinv_rcond_and_matrix_rank():
    run(lambda T, x: T.linalg.pinv(x, 0.3), [pair(3, 3, grad=True)], rtol=1e-6, atol=1e-8)
    a = pair(data=np.diag([3.0, 1.0, 1e-3, 0.0]))
    for kw in ({}, {"atol": 0.5}, {"rtol": 0.1}, {"hermitian": True}):
        run(lambda T, x: T.linalg.matrix_rank(x, **kw), [a])
    run(lambda T, x: T.linalg.matrix_rank(x, 0.5), [a])
    run(lambda T, x: T.linalg.matrix_rank(x), [pair(2, 3, 4)])
    errors_match(lambda T, x: T.linalg.matrix_rank(x), pair(3))
    errors_match(lambda T, x: T.linalg.matrix_rank(x), pair(3, 3, dtype="int64"))
    errors_match(lambda T, x: T.linalg.pinv(x), pair(3, 3, dtype="int64"))


# ---- composites ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [[(3, 4), (4, 2)], [(4,), (4, 2), (2, 5)],
                                    [(2, 3), (3, 6), (6, 1)], [(5, 2), (2, 6), (6, 3), (3, 4)],
                                    [(3,), (3, 5), (5, 2), (2, 4), (4,)]])
def test_multi_dot_order_and_graph(shapes):
    run(lambda T, *ms: T.linalg.multi_dot(list(ms)), [pair(*s, grad=True) for s in shapes])


def test_chain_matmul_and_multi_dot_errors():
    run(lambda T, a, b, c: T.chain_matmul(a, b, c), [pair(2, 3, grad=True), pair(3, 4, grad=True),
                                                     pair(4, 2, grad=True)])
    a = pair(3, 3)
    errors_match(lambda T, x: T.linalg.multi_dot([x]), a)
    errors_match(lambda T, x: T.linalg.multi_dot([x, x.unsqueeze(0)]), a)
    errors_match(lambda T, x: T.linalg.multi_dot([x, x[:2]]), a)
    errors_match(lambda T, x: T.linalg.multi_dot([x, x.float()]), a)


@pytest.mark.parametrize("p", [None, 2, -2, "nuc"])
def test_cond_through_singular_values(p):
    run(lambda T, x: T.linalg.cond(x, p), [well(2, 3, 3)], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("p", [1, -1, float("inf"), float("-inf"), "fro"])
def test_cond_through_the_inverse_fails_backward_as_torch(p):
    """ATen's masked_fill_ on the inverse that inv_ex saved: PyTorch's own backward fails."""
    a = well(2, 3, 3)
    run(lambda T, x: T.linalg.cond(x, p).detach(), [a], rtol=1e-6, atol=1e-8)
    errors_match(lambda T, x: T.linalg.cond(x, p).sum().backward(), a)


def test_cond_singular_and_errors():
    for p in (None, 1):
        rt, rx = torch.linalg.cond(torch.zeros(3, 3), p), il.linalg.cond(il.zeros(3, 3), p)
        assert str(rt.item()) == str(rx.item())
    errors_match(lambda T, x: T.linalg.cond(x, 3), pair(3, 3))
    errors_match(lambda T, x: T.linalg.cond(x, 1), pair(2, 3))


def test_vecdot_vander_diagonal_matmul():
    run(lambda T, x, y: T.linalg.vecdot(x, y), [pair(2, 3, grad=True), pair(3, grad=True)])
    run(lambda T, x, y: T.linalg.vecdot(x, y, dim=0), [pair(2, 3, grad=True), pair(2, 3, grad=True)])
    run(lambda T, x: T.linalg.vander(x), [pair(2, 3, grad=True)])
    run(lambda T, x: T.linalg.vander(x, N=5), [pair(3, grad=True)])
    run(lambda T, x: T.linalg.vander(x), [pair(data=[1, 2, 3], dtype="int64")])
    run(lambda T, x: T.linalg.diagonal(x, offset=1), [pair(2, 3, 4, grad=True)])
    run(lambda T, x, y: T.linalg.matmul(x, y), [pair(2, 3, grad=True), pair(3, 4, grad=True)])
    errors_match(lambda T, x: T.linalg.vecdot(x, x), pair(3, dtype="int64"))
    errors_match(lambda T, x: T.linalg.vecdot(x, x.float()), pair(3))
    errors_match(lambda T, x: T.linalg.vander(x), pair(data=1.0))


def test_tensorinv_tensorsolve_matrix_power_exp_qr():
    run(lambda T, x: T.linalg.tensorinv(x.reshape(4, 6, 8, 3), ind=2),
        [pair(data=RNG.standard_normal((24, 24)) + 5 * np.eye(24), grad=True)])
    run(lambda T, a, b: T.linalg.tensorsolve(a.reshape(2, 3, 6), b),
        [pair(data=RNG.standard_normal((6, 6)) + 4 * np.eye(6), grad=True), pair(2, 3, grad=True)])
    run(lambda T, a, b: T.linalg.tensorsolve(a.reshape(6, 2, 3), b, dims=(0,)),
        [pair(data=RNG.standard_normal((6, 6)) + 4 * np.eye(6), grad=True), pair(2, 3, grad=True)])
    errors_match(lambda T, x: T.linalg.tensorinv(x, ind=0), pair(3, 3))
    errors_match(lambda T, x: T.linalg.tensorinv(x.reshape(3, 3, 1), ind=2), pair(3, 3))
    run(lambda T, x: T.linalg.matrix_power(x, 3), [pair(3, 3, grad=True)])
    run(lambda T, x: T.linalg.matrix_power(x, -2), [well(3, 3)])
    run(lambda T, x: T.linalg.matrix_exp(x), [pair(2, 3, 3, grad=True)], rtol=1e-6, atol=1e-8)
    run(lambda T, x: T.linalg.qr(x), [pair(4, 3, grad=True)])
    run(lambda T, x: T.linalg.qr(x), [pair(2, 2, 4)])
    run(lambda T, x: T.linalg.qr(x, mode="complete"), [pair(4, 3)])
    run(lambda T, x: T.linalg.qr(x, mode="r"), [pair(4, 3)])
    errors_match(lambda T, x: T.linalg.qr(x, mode="r").R.sum().backward(), pair(4, 3, grad=True))
    errors_match(lambda T, x: T.linalg.qr(x, mode="complete").Q.sum().backward(),
                 pair(4, 3, grad=True))
    errors_match(lambda T, x: T.linalg.qr(x, mode="x"), pair(3, 3))


def test_householder_product():
    a = pair(2, 5, 3, grad=True)
    tau = pair(data=RNG.uniform(0.5, 1.5, (2, 2)), grad=True)
    run(lambda T, x, t: T.linalg.householder_product(x, t), [a, tau])
    errors_match(lambda T, x: T.linalg.householder_product(x, x[:, 0]), pair(3, 3)) \
        if False else None
    errors_match(lambda T, x, t: T.linalg.householder_product(x, t), pair(3, 3), pair(4))


# ---- eig, eigvals (complex, forward only) ----------------------------------------------------------------

def test_eig_and_eigvals_values_as_lapack_geev():
    a = pair(data=[[0., 1., 2.], [-1., 0., 1.], [3., 1., 1.]])
    rt, rx = torch.linalg.eig(a[0]), il.linalg.eig(a[1])
    assert type(rx).__name__ == "linalg_eig" and rx._fields == ("eigenvalues", "eigenvectors")
    for t, x in zip(rt, rx):
        assert str(t.dtype).split(".")[-1] == str(x.dtype).split(".")[-1]
        np.testing.assert_allclose(x.numpy(), t.numpy(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(il.linalg.eigvals(a[1]).numpy(), torch.linalg.eigvals(a[0]).numpy())


def test_eig_refuses_a_gradient_it_cannot_give():
    with pytest.raises(NotImplementedError, match="complex autograd"):
        il.linalg.eig(il.eye(2, dtype=il.float64, requires_grad=True))


def test_result_types_print_as_torch():
    a = torch.eye(2, dtype=torch.float64), il.eye(2, dtype=il.float64)
    assert repr(il.linalg.eigh(a[1])) == repr(torch.linalg.eigh(a[0]))
    assert repr(il.linalg.lu_factor(a[1])) == repr(torch.linalg.lu_factor(a[0]))


def test_gradients_of_a_tensor_and_its_transposed_view_accumulate():
    """The engine adds a gradient that is a view of the one it holds out of place."""
    a = pair(3, 3, grad=True)
    run(lambda T, x: (x + x.mT).exp(), [a])


@pytest.mark.parametrize("fn", [
    lambda T, x: T.linalg.eigvalsh(x + x.mT),
    lambda T, x: T.linalg.eigh(x + x.mT).eigenvectors ** 2,
    lambda T, x: T.linalg.lu(x).L,
    lambda T, x: T.linalg.lu_factor(x).LU,
    lambda T, x: T.linalg.solve(x, x.sum(0)),
    lambda T, x: T.linalg.cholesky(x @ x.mT),
    lambda T, x: T.linalg.pinv(x),
])
def test_double_backward(fn):
    """create_graph=True: the backwards are table ops (and the parts of one node see each
    other's results with their history), so second derivatives are PyTorch's."""
    a = well(3, 3)
    out = []
    for T, x in zip((torch, il), a):
        y = fn(T, x)
        (g,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), x)
        out.append(gg.detach().numpy())
    np.testing.assert_allclose(out[1], out[0], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("out_shape,out_dtype", [((3, 2), "float64"), ((0,), "float64"),
                                                 ((2, 2), "float64"), ((3, 2), "float32")])
def test_solve_out(out_shape, out_dtype):
    a, b = well(3, 3, grad=False), pair(3, 2)
    res = []
    for T, x, y in zip((torch, il), a, b):
        o = T.empty(out_shape, dtype=getattr(T, out_dtype))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = T.linalg.solve(x, y, out=o)
            except RuntimeError as e:
                res.append(("error", str(e)))
                continue
        res.append((r is o, tuple(o.shape), tuple(o.stride()), o._version,
                    np.round(o.numpy(), 10).tolist(), [str(m.message)[:40] for m in w]))
    assert res[0] == res[1]


@pytest.mark.parametrize("fn", [
    lambda T, a, o: T.linalg.cholesky(a @ a.mT, out=o),
    lambda T, a, o: T.linalg.inv(a, out=o),
    lambda T, a, o: T.linalg.solve_triangular(a, a, upper=True, out=o),
    lambda T, a, o: T.linalg.lu_solve(*T.linalg.lu_factor(a), a, out=o),
    lambda T, a, o: T.linalg.pinv(a, out=o),
])
def test_out_forms(fn):
    a = well(3, 3, grad=False)
    res = []
    for T, x in zip((torch, il), a):
        o = T.empty(0, dtype=T.float64)
        r = fn(T, x, o)
        res.append((r is o, tuple(o.stride()), o._version, np.round(o.numpy(), 8).tolist()))
    assert res[0] == res[1]
    errors_match(lambda T, x: fn(T, x, T.empty(3, 3, dtype=T.float64)), well(3, 3))


GPU_PROGRAMS = {
    "solve": lambda T, a, b: T.linalg.solve(a, b),
    "solve_ex": lambda T, a, b: T.linalg.solve_ex(a, b),
    "cholesky": lambda T, a, b: T.linalg.cholesky(a @ a.mT),
    "inv_ex": lambda T, a, b: T.linalg.inv_ex(a),
    "eigh": lambda T, a, b: T.linalg.eigh(a + a.mT),
    "solve_triangular": lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True),
    "lu_factor": lambda T, a, b: T.linalg.lu_factor(a),
    "lu": lambda T, a, b: T.linalg.lu(a),
    "lu_solve": lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b),
    "lstsq": lambda T, a, b: T.linalg.lstsq(a, b, driver="gelsd"),
    "pinv": lambda T, a, b: T.linalg.pinv(a, hermitian=False),
    "matrix_rank": lambda T, a, b: T.linalg.matrix_rank(a),
    "qr": lambda T, a, b: T.linalg.qr(a),
    "cholesky_solve": lambda T, a, b: T.cholesky_solve(b, a.tril()),
    "householder": lambda T, a, b: T.linalg.householder_product(a, b[..., 0, :]),
}


@pytest.mark.parametrize("name", sorted(GPU_PROGRAMS))
def test_gpu_runs_as_the_cpu(name):
    """On ``cuda`` (cupy, or the simulated GPU): LAPACK on host copies, the same values,
    strides and gradients as on the CPU."""
    from tests.differential.cupy_like import any_gpu

    data_a = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    data_b = RNG.standard_normal((2, 3, 2))
    got = []
    with any_gpu():
        for dev in ("cpu", "cuda"):
            a = il.tensor(data_a, device=dev, requires_grad=True)
            b = il.tensor(data_b, device=dev)
            r = GPU_PROGRAMS[name](il, a, b)
            rs = r if isinstance(r, tuple) else (r,)
            assert all(t.device.type == dev for t in rs)
            diff = [t for t in rs if t.requires_grad]
            if diff:
                sum((t * t).sum() for t in diff).backward()
            got.append(([(tuple(t.shape), t.stride(), np.round(t.detach().cpu().numpy(), 8).tolist())
                         for t in rs], None if a.grad is None else a.grad.cpu().numpy()))
    assert got[0][0] == got[1][0]
    if got[0][1] is not None:
        np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-9, atol=1e-12)


def test_ldl_factor_and_solve_as_lapack_sytrf():
    m = RNG.standard_normal((2, 4, 4))
    a = pair(data=m + np.swapaxes(m, -1, -2))
    run(lambda T, x: T.linalg.ldl_factor(x), [a])
    run(lambda T, x: T.linalg.ldl_factor_ex(x), [a])
    b = pair(2, 4, 2)
    run(lambda T, x, y: T.linalg.ldl_solve(*T.linalg.ldl_factor(x), y), [a, b])
    a = pair(data=m + np.swapaxes(m, -1, -2), grad=True)
    assert il.linalg.ldl_factor(a[1]).LD.grad_fn.name() == \
        torch.linalg.ldl_factor(a[0]).LD.grad_fn.name()
    errors_match(lambda T, x: T.linalg.ldl_factor(x), pair(3, 3, dtype="int64"))
    errors_match(lambda T, x: T.linalg.ldl_factor(x), pair(data=np.zeros((3, 3))))
    errors_match(lambda T, x: T.linalg.ldl_factor(x).LD.sum().backward(), a)


def _modify_after(T, A, B, prog):
    """A program that changes a saved tensor in place before backward."""
    if prog == "solve A":
        A2 = A * 1
        X = T.linalg.solve(A2, B)
        A2.add_(1)
        X.sum().backward()
    elif prog == "solve B (not saved)":
        B2 = B * 1
        X = T.linalg.solve(A * 1, B2)
        B2.add_(1)
        X.sum().backward()
        return A.grad
    elif prog == "cholesky L":
        L = T.linalg.cholesky(A @ A.mT)
        L.add_(1)
        L.sum().backward()
    elif prog == "eigh V":
        w, V = T.linalg.eigh(A + A.mT)
        V.mul_(2)
        w.sum().backward()
    elif prog == "eigh w":
        w, V = T.linalg.eigh(A + A.mT)
        w.mul_(2)
        (V * V).sum().backward()
    elif prog == "lu_factor LU":
        LU, _ = T.linalg.lu_factor(A * 1)
        LU.add_(1)
        LU.sum().backward()
    elif prog == "lu U":
        _, L, U = T.linalg.lu(A * 1)
        U.add_(1)
        L.sum().backward()
    elif prog == "lu L":
        _, L, U = T.linalg.lu(A * 1)
        L.add_(1)
        U.sum().backward()
    elif prog == "qr R":
        Q, R = T.linalg.qr(A * 1)
        R.add_(1)
        Q.sum().backward()
    elif prog == "solve_triangular X":
        X = T.linalg.solve_triangular(A * 1, B, upper=True)
        X.add_(1)
        X.sum().backward()
    elif prog == "lstsq solution":
        r = T.linalg.lstsq(T.cat([A, A]) * 1, T.cat([B, B]), driver="gelsd")
        r.solution.add_(1)
        r.residuals.sum().backward()
    elif prog == "triangular_solve copy (not saved)":
        r = T.triangular_solve(B * 1, A * 1)
        r.cloned_coefficient.add_(1)
        r.solution.sum().backward()
        return A.grad
    return None


@pytest.mark.parametrize("prog", ["solve A", "solve B (not saved)", "cholesky L", "eigh V",
                                  "eigh w", "lu_factor LU", "lu U", "lu L", "qr R",
                                  "solve_triangular X", "lstsq solution",
                                  "triangular_solve copy (not saved)"])
def test_in_place_change_of_a_saved_tensor_is_reported_as_torch(prog):
    """What each node saves (inputs, its outputs) and how the error names it ('output 1 of
    LinalgEigh'): the parts of one PyTorch node answer as that node."""
    a0, b0 = RNG.standard_normal((3, 3)) + 3 * np.eye(3), RNG.standard_normal((3, 2))
    out = []
    for T in (torch, il):
        A, B = T.tensor(a0, requires_grad=True), T.tensor(b0, requires_grad=True)
        try:
            g = _modify_after(T, A, B, prog)
            out.append(None if g is None else np.round(g.numpy(), 8).tolist())
        except RuntimeError as e:
            out.append(str(e))
    assert out[0] == out[1]


def test_cholesky_solve_out():
    res = []
    for T in (torch, il):
        L, b = T.eye(3, dtype=T.float64) * 2, T.ones(3, 2, dtype=T.float64)
        for o in (T.empty(0, dtype=T.float64), T.empty(2, 2, dtype=T.float64), T.empty(3, 2)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                r = T.cholesky_solve(b, L, out=o)
            res.append((r is o, o.stride(), o._version, o.tolist(), len(w)))
    assert res[:3] == res[3:]
