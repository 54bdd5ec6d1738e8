"""addmv/addr/addbmm, vdot, aminmax, logcumsumexp, frexp, matrix_power/exp, pinverse, qr,
cholesky, cov/corrcoef, gradient, histogram, unique_consecutive and the functional samplers,
against PyTorch: values, dtypes, shapes, grad_fn names, gradients, versions, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402

RNG = np.random.default_rng(0)


def pair(*shape, dtype="float64", grad=False, data=None):
    a = RNG.standard_normal(shape).astype(dtype) if data is None else np.asarray(data, dtype)
    return (torch.tensor(a, requires_grad=grad), il.tensor(a, requires_grad=grad))


def spd(n, grad=True):
    m = RNG.standard_normal((n, n))
    a = m @ m.T + n * np.eye(n)
    return pair(data=a, grad=grad)


def same(t, x, rtol=1e-7, atol=1e-9):
    if isinstance(t, (tuple, list)):
        assert len(t) == len(x)
        for a, b in zip(t, x):
            same(a, b, rtol, atol)
        return
    assert tuple(t.shape) == tuple(x.shape)
    assert str(t.dtype).split(".")[-1] == str(x.dtype).split(".")[-1]
    np.testing.assert_allclose(x.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
    tn = t.grad_fn.name() if t.grad_fn is not None else None
    xn = x.grad_fn.name() if x.grad_fn is not None else None
    assert tn == xn


def grads(fn, ins_t, ins_x, rtol=1e-6, atol=1e-8):
    """Run fn on both sides, compare outputs, backprop sum(out * w) and compare gradients."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rt, rx = fn(torch, *ins_t), fn(il, *ins_x)
    same(rt, rx, rtol, atol)
    outs_t = rt if isinstance(rt, (tuple, list)) else (rt,)
    outs_x = rx if isinstance(rx, (tuple, list)) else (rx,)
    lt = sum((o * torch.linspace(0.5, 1.5, o.numel(), dtype=o.dtype).reshape(o.shape)).sum()
             for o in outs_t if o.requires_grad)
    lx = sum((o * il.tensor(np.linspace(0.5, 1.5, o.numel()), dtype=o.dtype).reshape(o.shape)).sum()
             for o in outs_x if o.requires_grad)
    lt.backward()
    lx.backward()
    for a, b in zip(ins_t, ins_x):
        if getattr(a, "requires_grad", False):
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=rtol, atol=atol)


def errors_match(fn, *args):
    with pytest.raises(Exception) as et:
        fn(torch, *[a[0] for a in args])
    with pytest.raises(Exception) as ex:
        fn(il, *[a[1] for a in args])
    assert type(et.value).__name__.lstrip("_") in [c.__name__ for c in type(ex.value).__mro__]
    assert str(ex.value) == str(et.value)


# ---- addmv / addr / addbmm ----------------------------------------------------------------------

def test_addmv_values_grad_fn_and_gradients():
    s, m, v = pair(3, grad=True), pair(3, 4, grad=True), pair(4, grad=True)
    grads(lambda T, a, b, c: T.addmv(a, b, c, beta=0.5, alpha=2.0), *zip(s, m, v))


def test_addmv_broadcast_self_gradient():
    s, m, v = pair(1, grad=True), pair(3, 4, grad=True), pair(4, grad=True)
    grads(lambda T, a, b, c: T.addmv(a, b, c), *zip(s, m, v))


def test_addr_values_grad_fn_and_gradients():
    s, a, b = pair(3, 4, grad=True), pair(3, grad=True), pair(4, grad=True)
    grads(lambda T, x, y, z: T.addr(x, y, z, beta=2, alpha=0.5), *zip(s, a, b))


def test_addr_integer_and_bool():
    for dt in ("int64", "bool"):
        s, a, b = (pair(data=RNG.integers(0, 2, n), dtype=dt) for n in ((2, 3), (2,), (3,)))
        same(torch.addr(s[0], a[0], b[0]), il.addr(s[1], a[1], b[1]))


def test_addbmm_values_grad_fn_and_gradients():
    s, b1, b2 = pair(3, 5, grad=True), pair(2, 3, 4, grad=True), pair(2, 4, 5, grad=True)
    grads(lambda T, x, y, z: T.addbmm(x, y, z, beta=0.5, alpha=3), *zip(s, b1, b2))


@pytest.mark.parametrize("name,shapes", [("addmv", ((3,), (3, 4), (4,))),
                                         ("addr", ((3, 4), (3,), (4,))),
                                         ("addbmm", ((3, 5), (2, 3, 4), (2, 4, 5)))])
def test_inplace_forms_bump_version_and_record(name, shapes):
    ins = [pair(*s) for s in shapes]
    leaf = pair(*shapes[0], grad=True)
    for k, T in ((0, torch), (1, il)):
        base = leaf[k] * 1
        v0 = base._version
        r = getattr(base, name + "_")(ins[1][k], ins[2][k], beta=2, alpha=0.5)
        assert r is base and base._version == v0 + 1
    tb, xb = leaf[0] * 1, leaf[1] * 1
    same(getattr(tb, name + "_")(ins[1][0], ins[2][0]), getattr(xb, name + "_")(ins[1][1], ins[2][1]))
    tb.sum().backward()
    xb.sum().backward()
    np.testing.assert_allclose(leaf[1].grad.numpy(), leaf[0].grad.numpy())


def test_inplace_on_leaf_is_refused():
    s, m, v = pair(3, grad=True), pair(3, 4), pair(4)
    errors_match(lambda T, a, b, c: a.addmv_(b, c), s, m, v)


@pytest.mark.parametrize("shapes", [((3,), (3, 4), (5,)), ((3,), (3, 4, 1), (4,))])
def test_addmv_shape_errors(shapes):
    ins = [pair(*s) for s in shapes]
    errors_match(lambda T, a, b, c: T.addmv(a, b, c), *ins)


def test_addr_and_addbmm_shape_errors():
    errors_match(lambda T, a, b, c: T.addr(a, b, c), pair(3, 4), pair(3, 1), pair(4))
    errors_match(lambda T, a, b, c: T.addbmm(a, b, c), pair(3, 5), pair(2, 3, 4), pair(3, 4, 5))


# ---- vdot, aminmax, logcumsumexp, frexp ----------------------------------------------------------

def test_vdot():
    a, b = pair(5, grad=True), pair(5, grad=True)
    grads(lambda T, x, y: T.vdot(x, y), *zip(a, b))


def test_vdot_errors():
    errors_match(lambda T, x, y: T.vdot(x, y), pair(3), pair(4))
    errors_match(lambda T, x, y: T.vdot(x, y), pair(3, 1), pair(3))


@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": 0, "keepdim": True}])
def test_aminmax(kw):
    x = pair(data=[[1., 3., 3.], [2., -1., -1.]], grad=True)
    grads(lambda T, a: T.aminmax(a, **kw), (x[0],), (x[1],))
    r = il.aminmax(x[1], **kw)
    assert type(r).__name__ == "aminmax" and r.min is r[0]


def test_aminmax_empty_error():
    errors_match(lambda T, a: T.aminmax(a), pair(0))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp(dim):
    x = pair(3, 4, grad=True)
    grads(lambda T, a: T.logcumsumexp(a, dim), (x[0],), (x[1],))
    grads(lambda T, a: a.logcumsumexp(dim), (x[0].detach().requires_grad_(),),
          (x[1].detach().requires_grad_(),))


def test_logcumsumexp_large_values_and_float32():
    x = pair(data=[1000., -1000., 1000., 3.], dtype="float32")
    same(torch.logcumsumexp(x[0], 0), il.logcumsumexp(x[1], 0), rtol=1e-5)


def test_frexp():
    x = pair(data=[0., 1., -3.5, 1e-300, 8., float("inf")])
    t, r = torch.frexp(x[0]), il.frexp(x[1])
    same(t.mantissa, r.mantissa)
    same(t.exponent, r.exponent)
    errors_match(lambda T, a: T.frexp(a), pair(data=[1, 2], dtype="int64"))


# ---- matrix functions ----------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6, -1, -2])
def test_matrix_power(n):
    a = pair(3, 3, grad=True)
    grads(lambda T, x: T.matrix_power(x, n), (a[0],), (a[1],))


def test_matrix_power_errors():
    errors_match(lambda T, x: T.matrix_power(x, 2), pair(2, 3))
    errors_match(lambda T, x: T.matrix_power(x, 2), pair(3))


def test_matrix_exp():
    a = pair(2, 3, 3, grad=True)
    grads(lambda T, x: T.matrix_exp(x) if T is torch else x.matrix_exp(), (a[0],), (a[1],))


def test_pinverse():
    for shape in ((3, 5), (5, 3)):
        a = pair(*shape, grad=True)
        grads(lambda T, x: T.pinverse(x), (a[0],), (a[1],))


def test_qr():
    a = pair(5, 3, grad=True)
    grads(lambda T, x: T.qr(x), (a[0],), (a[1],))
    a = pair(4, 3)
    same(torch.qr(a[0], some=False), il.qr(a[1], some=False))


def test_cholesky_and_cholesky_inverse():
    for upper in (False, True):
        a = spd(4)
        grads(lambda T, x: T.cholesky(x, upper=upper), (a[0],), (a[1],))
    low = np.linalg.cholesky(spd(3, grad=False)[1].numpy())
    for upper in (False, True):
        L = pair(data=low.T if upper else low, grad=True)
        grads(lambda T, x: T.cholesky_inverse(x, upper=upper), (L[0],), (L[1],))


def test_cholesky_not_positive_definite_error():
    errors_match(lambda T, x: T.cholesky(x), pair(data=[[1., 2.], [2., 1.]]))


# ---- statistics ---------------------------------------------------------------------------------

def test_cov_and_corrcoef():
    x = pair(3, 6, grad=True)
    grads(lambda T, a: T.cov(a), (x[0],), (x[1],))
    x = pair(3, 6, grad=True)
    grads(lambda T, a: T.corrcoef(a), (x[0],), (x[1],))
    x = pair(6, grad=True)
    grads(lambda T, a: T.cov(a, correction=0), (x[0],), (x[1],))


def test_cov_weights():
    x = pair(2, 5, grad=True)
    fw = pair(data=[1, 2, 1, 3, 1], dtype="int64")
    aw = pair(data=[0.5, 1., 2., 1., 0.2])
    grads(lambda T, a, f, w: T.cov(a, fweights=f, aweights=w), *zip(x, fw, aw))


def test_cov_errors():
    errors_match(lambda T, a: T.cov(a), pair(2, 2, 2))
    errors_match(lambda T, a, f: T.cov(a, fweights=f), pair(2, 3), pair(3))


@pytest.mark.parametrize("kw", [{}, {"spacing": 2.0}, {"dim": 1}, {"edge_order": 2},
                                {"spacing": [0.5, 2.0]}])
def test_gradient(kw):
    x = pair(4, 5, grad=True)
    grads(lambda T, a: T.gradient(a, **kw), (x[0],), (x[1],))


def test_gradient_errors():
    errors_match(lambda T, a: T.gradient(a, edge_order=3), pair(4))
    errors_match(lambda T, a: T.gradient(a, edge_order=2), pair(2))


@pytest.mark.parametrize("kw", [{"bins": 4}, {"bins": 3, "range": (-1., 1.)},
                                {"bins": 5, "density": True}])
def test_histogram(kw):
    x = pair(50)
    t, r = torch.histogram(x[0], **kw), il.histogram(x[1], **kw)
    same(t.hist, r.hist)
    same(t.bin_edges, r.bin_edges)


def test_histogram_edges_tensor_and_weights():
    x, w = pair(30), pair(data=RNG.uniform(0, 1, 30))
    e = pair(data=[-2., -0.5, 0., 1., 2.])
    t = torch.histogram(x[0], e[0], weight=w[0])
    r = il.histogram(x[1], e[1], weight=w[1])
    same(t.hist, r.hist)


@pytest.mark.parametrize("kw", [{}, {"return_inverse": True, "return_counts": True},
                                {"return_counts": True}])
def test_unique_consecutive(kw):
    x = pair(data=[1, 1, 2, 2, 3, 1, 1, 2], dtype="int64")
    same(torch.unique_consecutive(x[0], **kw), il.unique_consecutive(x[1], **kw))


def test_unique_consecutive_dim():
    x = pair(data=[[1, 1, 2, 2], [3, 3, 4, 5]], dtype="int64")
    kw = {"return_inverse": True, "return_counts": True, "dim": 1}
    same(torch.unique_consecutive(x[0], **kw), il.unique_consecutive(x[1], **kw))


# ---- samplers ------------------------------------------------------------------------------------

def test_bernoulli_poisson_binomial_shapes_dtypes_and_grad_fns():
    p = pair(data=[[0.0, 1.0, 0.3]], grad=True)
    for T, x in ((torch, p[0]), (il, p[1])):
        r = T.bernoulli(x)
        assert r.shape == (1, 3) and str(r.dtype).endswith("float64")
        assert r.grad_fn.name() == "BernoulliBackward0"
        assert r[0, 0].item() == 0 and r[0, 1].item() == 1
    rate = pair(data=[0., 2., 5.])
    for T, x in ((torch, rate[0]), (il, rate[1])):
        r = T.poisson(x)
        assert r.shape == (3,) and r[0].item() == 0 and str(r.dtype).endswith("float64")
    c, q = pair(data=[5., 10.]), pair(data=[0., 1.])
    same(torch.binomial(c[0], q[0]), il.binomial(c[1], q[1]))


# ---- legacy Tensor methods ----------------------------------------------------------------------

def test_get_device_is_cpu_and_new():
    for T in (torch, il):
        x = T.ones(2, 3, dtype=T.float64)
        assert x.get_device() == -1 and x.is_cpu
        assert tuple(x.new(2, 4).shape) == (2, 4) and str(x.new(2).dtype).endswith("float64")
        assert tuple(x.new().shape) == (0,)
        assert x.new([1, 2]).tolist() == [1.0, 2.0]


def test_resize_and_resize_as_warn_and_record():
    t, x = pair(2, 3, grad=True)
    for a, T in ((t, torch), (x, il)):
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            r = a.resize(6)
        assert r.grad_fn.name() == "ResizeBackward" and tuple(r.shape) == (6,)
        r.sum().backward()
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            assert tuple(a.resize_as(T.ones(3, 2)).shape) == (3, 2)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        errors_match(lambda T, a: a.resize(5), (t, x))
