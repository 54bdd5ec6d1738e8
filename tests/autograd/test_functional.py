"""torch.autograd.functional against torch 2.13: values, tuple shapes, create_graph, strict errors."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as it

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
B = np.array([0.2, -0.4, 0.9])


def _t(T, a, rg=False):
    return T.tensor(a, dtype=T.float64, requires_grad=rg)


def _pairs(T):
    F = T.autograd.functional
    f = lambda x: (x.sin() * x).tanh()
    g = lambda x, y: (x * y.exp(), (x * x).sum(0))
    s = lambda x: (x ** 3).sum() + (x[0] * x[1]).prod()
    x, y, v = _t(T, A), _t(T, B), _t(T, np.ones((2, 3)))
    v2 = _t(T, A[0])
    return {
        "jac": F.jacobian(f, x),
        "jac_tuple": F.jacobian(g, (x, y)),
        "hess": F.hessian(s, x),
        "hess_tuple": F.hessian(lambda a, b: (a * b).sum() * a.sum(), (x[0], y)),
        "vjp": F.vjp(f, x, v),
        "jvp": F.jvp(f, x, v),
        "hvp": F.hvp(s, x, v),
        "vhp": F.vhp(s, x, v),
        "vjp_scalar": F.vjp(lambda a: (a * a).sum(), v2),
        "const": F.jacobian(lambda a: T.ones(2, dtype=T.float64), v2),
    }


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [_flat(e) for e in r]
    return (tuple(r.shape), np.asarray(r.detach().tolist()))


def _close(a, b):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
        return
    assert a[0] == b[0]
    np.testing.assert_allclose(a[1], b[1], rtol=1e-12, atol=1e-14)


def test_values_match_torch():
    ours, theirs = _pairs(it), _pairs(torch)
    for k in theirs:
        _close(_flat(ours[k]), _flat(theirs[k]))


@pytest.mark.parametrize("create_graph", [False, True])
def test_create_graph_flag(create_graph):
    for T in (it, torch):
        x = _t(T, B, rg=True)
        j = T.autograd.functional.jacobian(lambda a: a * a, x, create_graph=create_graph)
        assert j.requires_grad is create_graph
        if create_graph:
            (g,) = T.autograd.grad(j.sum(), x)
            assert g.tolist() == [2.0, 2.0, 2.0]


def _err(fn):
    with pytest.raises(Exception) as e:
        fn()
    return type(e.value), str(e.value)


@pytest.mark.parametrize("case", range(6))
def test_errors_match_torch(case):
    def run(T):
        F = T.autograd.functional
        x = _t(T, B)
        return [
            lambda: F.jacobian(lambda a: T.ones(2), x, strict=True),
            lambda: F.vjp(lambda a: a * 2, x),
            lambda: F.hessian(lambda a: a * 2, x),
            lambda: F.jacobian(lambda a: a, [1.0]),
            lambda: F.vjp(lambda a: a * 2, x, T.ones(2, dtype=T.float64)),
            lambda: F.hessian(lambda a: (a * 2).sum(), x, strict=True),
        ][case]
    ours, theirs = _err(run(it)), _err(run(torch))
    assert ours[0] is theirs[0]
    assert ours[1].replace("inplace_lab.tensor.Tensor", "torch.Tensor") == theirs[1]
