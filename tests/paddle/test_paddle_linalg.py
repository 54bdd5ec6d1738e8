"""paddle.linalg's solves and factorisations against paddle 3.3.1: result structure (Tensor or
plain tuple), dtypes, shapes, values, stop_gradient, grad node names, gradients of
sum(out * w), and errors (type and message)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
warnings.filterwarnings("ignore")

import inplace_lab.paddle as lab  # noqa: E402

rng = np.random.default_rng(3)


def sq(*shape):
    return rng.standard_normal(shape) + 3 * np.eye(shape[-1])


def spd(*shape):
    m = rng.standard_normal(shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def tri(*shape, upper=True):
    m = sq(*shape)
    return np.triu(m) if upper else np.tril(m)


def _node(t):
    f = getattr(t, "grad_fn", None)
    return f.name() if f is not None else None


def run(fn, *arrays, grad=True, signs=False, rtol=1e-7, atol=1e-9):
    outs = []
    for L in (paddle, lab):
        ins = [L.to_tensor(a, stop_gradient=not (grad and np.asarray(a).dtype.kind == "f"))
               if isinstance(a, np.ndarray) else a for a in arrays]
        r = fn(L, *ins)
        rs = list(r) if isinstance(r, (tuple, list)) else [r]
        desc = (type(r).__name__ if isinstance(r, (tuple, list)) else "Tensor",
                [(list(x.shape), str(x.dtype).split(".")[-1], bool(x.stop_gradient), _node(x))
                 for x in rs])
        vals = [x.numpy() for x in rs]
        grads = []
        diff = [x for x in rs if not x.stop_gradient and x.dtype in (L.float32, L.float64)]
        if diff:
            loss = sum(((x * x if signs else x) * L.to_tensor(
                np.linspace(0.5, 1.5, int(np.prod(x.shape))).reshape(x.shape).astype(
                    x.numpy().dtype))).sum() for x in diff)
            loss.backward()
            grads = [t.grad.numpy() for t in ins if hasattr(t, "stop_gradient") and
                     not t.stop_gradient]
        outs.append((desc, vals, grads))
    assert outs[0][0] == outs[1][0]
    for a, b in zip(outs[0][1], outs[1][1]):
        if signs:
            a, b = np.abs(a), np.abs(b)
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)
    assert len(outs[0][2]) == len(outs[1][2])
    for a, b in zip(outs[0][2], outs[1][2]):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-8)


def errors_match(fn, *arrays):
    errs = []
    for L in (paddle, lab):
        ins = [L.to_tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
        with pytest.raises(Exception) as e:
            fn(L, *ins)
        errs.append(e.value)
    assert type(errs[1]).__name__ == type(errs[0]).__name__
    assert str(errs[1]) == str(errs[0])


@pytest.mark.parametrize("ashape,bshape,left", [((3, 3), (3, 2), True), ((2, 3, 3), (2, 3, 2), True),
                                                ((3, 3), (3,), True), ((3, 3), (2, 3), False)])
def test_solve(ashape, bshape, left):
    run(lambda L, a, b: L.linalg.solve(a, b, left=left), sq(*ashape), rng.standard_normal(bshape))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(upper):
    run(lambda L, a: L.linalg.cholesky(a, upper=upper), spd(2, 3, 3))


def test_eigh_and_eigvalsh():
    """(Unbatched: Paddle 3.3.1's batched eigh/eigvalsh gradients mix up the batches'
    diagonals, which is not reproduced here.)"""
    a = spd(3, 3)
    run(lambda L, x: L.linalg.eigh(x), a, signs=True)
    run(lambda L, x: L.linalg.eigh(x, UPLO="U"), a, signs=True)
    run(lambda L, x: L.linalg.eigvalsh(x), spd(3, 3))
    run(lambda L, x: L.linalg.eigvalsh(x), spd(2, 3, 3), grad=False)


def test_lu_family():
    """(Paddle's pivots and infos carry LuGradNode and stop_gradient=False; here they are
    integer results without history: compared through the LU factor only.)"""
    a = sq(2, 3, 3)
    run(lambda L, x: L.linalg.lu(x)[0], a)
    run(lambda L, x: L.linalg.lu(x, get_infos=True)[0], a)
    run(lambda L, x: L.linalg.lu(x)[0], rng.standard_normal((3, 4)))
    run(lambda L, x: tuple(t.detach() for t in L.linalg.lu(x, get_infos=True)), a)
    # (Paddle's P carries LuUnpackGradNode too; here P has no history: L and U compared)
    run(lambda L, x: L.linalg.lu_unpack(*L.linalg.lu(x))[1:], a)
    run(lambda L, x: L.linalg.lu_unpack(*L.linalg.lu(x))[0].detach(), a)
    run(lambda L, x, b: L.linalg.lu_solve(b, *L.linalg.lu(x)), a, rng.standard_normal((2, 3, 2)))
    # (forward only: Paddle 3.3.1's gradient for trans='T' disagrees with finite differences;
    # the one here is PyTorch's adjoint=True gradient, checked against torch and gradcheck)
    run(lambda L, x, b: L.linalg.lu_solve(b, *L.linalg.lu(x), trans="T"), a,
        rng.standard_normal((2, 3, 2)), grad=False)


@pytest.mark.parametrize("upper,transpose,unit", [(True, False, False), (False, True, False),
                                                  (True, False, True)])
def test_triangular_solve(upper, transpose, unit):
    run(lambda L, a, b: L.linalg.triangular_solve(a, b, upper=upper, transpose=transpose,
                                                  unitriangular=unit),
        tri(2, 3, 3, upper=upper), rng.standard_normal((2, 3, 2)))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve(upper):
    run(lambda L, b, l: L.linalg.cholesky_solve(b, l, upper=upper), rng.standard_normal((3, 2)),
        tri(3, 3, upper=upper))


def test_qr_matrix_rank_vecdot_eigvals():
    run(lambda L, x: L.linalg.qr(x), rng.standard_normal((4, 3)), signs=True)
    run(lambda L, x: L.linalg.qr(x, mode="r"), rng.standard_normal((4, 3)), grad=False,
        signs=True)
    d = np.diag([3.0, 1.0, 1e-3, 0.0])
    for kw in ({}, {"tol": 0.5}, {"hermitian": True}, {"atol": 0.5}, {"rtol": 0.1}):
        run(lambda L, x: L.linalg.matrix_rank(x, **kw), d)
    run(lambda L, x: L.linalg.matrix_rank(x), rng.standard_normal((2, 3, 4)))
    run(lambda L, x, y: L.linalg.vecdot(x, y), rng.standard_normal((2, 3)),
        rng.standard_normal((2, 3)))
    run(lambda L, x, y: L.linalg.vecdot(x, y, axis=0), rng.standard_normal((2, 3)),
        rng.standard_normal((2, 3)))
    run(lambda L, x: L.linalg.eigvals(x), np.array([[0., 1.], [-1., 0.]]), grad=False)


@pytest.mark.parametrize("kw", [{}, {"rcond": 0.3}, {"hermitian": True}])
def test_pinv(kw):
    """(2-D: a batched matmul is the facade's composite here, ReshapeGradNode on top, where
    Paddle has one MatmulGradNode; values and gradients agree either way.)"""
    a = spd(3, 3) if kw.get("hermitian") else rng.standard_normal((4, 3))
    run(lambda L, x: L.linalg.pinv(x, **kw), a, rtol=1e-6, atol=1e-8)
    b = spd(2, 3, 3) if kw.get("hermitian") else rng.standard_normal((2, 4, 3))
    run(lambda L, x: L.linalg.pinv(x, **kw).detach(), b, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shapes", [[(3, 4), (4, 2)], [(3,), (3, 4), (4, 2), (2,)],
                                    [(2, 3), (3, 5), (5, 4), (4,)]])
def test_multi_dot(shapes):
    run(lambda L, *ms: L.linalg.multi_dot(list(ms)), *[rng.standard_normal(s) for s in shapes])


@pytest.mark.parametrize("n", [0, 1, 3, -1, -2])
def test_matrix_power(n):
    run(lambda L, x: L.linalg.matrix_power(x, n), sq(2, 3, 3), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("driver", [None, "gels", "gelsd", "gelss", "gelsy"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (3, 5), (2, 5, 3)])
def test_lstsq(driver, shape):
    run(lambda L, a, b: L.linalg.lstsq(a, b, driver=driver), rng.standard_normal(shape),
        rng.standard_normal(shape[:-1] + (2,)), rtol=1e-6, atol=1e-8)


def test_lstsq_rank_deficient_default_rcond():
    run(lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd"), np.ones((5, 3)),
        rng.standard_normal((5, 2)), grad=False, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn,arrays", [
    (lambda L, a, b: L.linalg.lstsq(a, b), (np.ones((3, 3), np.int64), np.ones((3, 2), np.int64))),
    (lambda L, a, b: L.linalg.lstsq(a, b), (np.ones((3, 3)), np.ones((4, 2)))),
    (lambda L, a, b: L.linalg.lstsq(a, b, driver="foo"), (np.ones((3, 3)), np.ones((3, 2)))),
    (lambda L, a, b: L.linalg.lstsq(a, b), (np.ones(3), np.ones((3, 2)))),
    (lambda L, a, b: L.linalg.lstsq(a, b), (np.ones((3, 3)), np.ones(3))),
    (lambda L, a, b: L.linalg.lstsq(a, b), (np.ones((3, 3)), np.ones((3, 2), np.float32))),
    (lambda L, a, b: L.linalg.lstsq(a, b), (np.ones((2, 3, 3)), np.ones((3, 2)))),
    (lambda L, a, b: L.linalg.solve(a, b), (np.zeros((3, 3)), np.ones((3, 2)))),
    (lambda L, a, b: L.linalg.solve(a, b), (np.ones((3, 3), np.int64), np.ones((3, 2), np.int64))),
    (lambda L, a, b: L.linalg.solve(a, b), (np.ones((2, 3)), np.ones((3, 2)))),
    (lambda L, a, b: L.linalg.solve(a, b), (np.eye(3), np.ones((4, 1)))),
    (lambda L, a: L.linalg.cholesky(a), (np.stack([np.eye(2), -np.eye(2)]),)),
    (lambda L, a: L.linalg.cholesky(a), (np.ones((2, 3)),)),
    (lambda L, a: L.linalg.cholesky(a), (np.ones((3, 3), np.int64),)),
    (lambda L, a: L.linalg.eigh(a), (np.ones((2, 3)),)),
    (lambda L, a: L.linalg.eigh(a), (np.ones(3),)),
    (lambda L, a: L.linalg.eigh(a, UPLO="X"), (np.eye(3),)),
    (lambda L, a: L.linalg.eigh(a), (np.ones((3, 3), np.int64),)),
    (lambda L, a: L.linalg.eigvalsh(a), (np.ones((2, 3)),)),
    (lambda L, a: L.linalg.eigvalsh(a), (np.ones(3),)),
    (lambda L, a: L.linalg.lu(a), (np.ones(3),)),
    (lambda L, a: L.linalg.lu(a), (np.ones((3, 3), np.int64),)),
    (lambda L, a: L.linalg.lu(a, pivot=False), (np.eye(3),)),
    (lambda L, a, b: L.linalg.triangular_solve(a, b), (np.eye(3), np.ones(3))),
    (lambda L, a, b: L.linalg.triangular_solve(a, b), (np.ones(3), np.ones((3, 2)))),
    (lambda L, a, b: L.linalg.triangular_solve(a, b), (np.ones((2, 3)), np.ones((3, 2)))),
    (lambda L, a, b: L.linalg.cholesky_solve(a, b), (np.ones((3, 2)), np.ones((3, 2)))),
    (lambda L, a, b: L.linalg.cholesky_solve(a, b), (np.ones((3, 2)), np.ones(3))),
    (lambda L, a, b: L.linalg.cholesky_solve(a, b), (np.ones(3), np.ones(3))),
    (lambda L, a: L.linalg.qr(a), (np.ones(3),)),
    (lambda L, a: L.linalg.matrix_rank(a), (np.ones(3),)),
    (lambda L, a: L.linalg.eigvals(a), (np.ones((2, 3)),)),
    (lambda L, a: L.linalg.matrix_power(a, 2), (np.ones((3, 3), np.int64),)),
    (lambda L, a: L.linalg.multi_dot([a]), (np.ones((3, 4)),)),
    (lambda L, a: L.linalg.multi_dot([a, a]), (np.ones((3, 4)),)),
    (lambda L, a: L.linalg.multi_dot([a.unsqueeze(0), a.T]), (np.ones((3, 4)),)),
    (lambda L, a: L.linalg.multi_dot([a, a.T]), (np.ones((3, 4), np.int64),)),
    (lambda L, a: L.linalg.matrix_power(a, 2), (np.ones((2, 3)),)),
    (lambda L, a: L.linalg.matrix_power(a, 2), (np.ones(3),)),
    (lambda L, a: L.linalg.matrix_power(a, -1), (np.zeros((3, 3)),)),
])
def test_errors(fn, arrays):
    errors_match(fn, *arrays)
