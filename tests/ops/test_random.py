"""In-place random fills: distributions, dtypes, strided targets, versions, seeds, autograd.

The values cannot match PyTorch's (different generators), so the distributions are checked
by their moments on large samples; everything else (node names, errors, versions) is
compared with PyTorch directly.
"""
import math

import numpy as np
import pytest

import inplace_lab as il

torch = pytest.importorskip("torch")

N = 200_000

# name: (call, expected mean, expected variance or None) for float32 targets
MOMENTS = {
    "uniform_": (lambda t: t.uniform_(2.0, 5.0), 3.5, 9 / 12),
    "normal_": (lambda t: t.normal_(1.0, 2.0), 1.0, 4.0),
    "exponential_": (lambda t: t.exponential_(4.0), 0.25, 1 / 16),
    "geometric_": (lambda t: t.geometric_(0.25), 4.0, 0.75 / 0.25 ** 2),
    "log_normal_": (lambda t: t.log_normal_(0.0, 0.5), math.exp(0.125),
                    (math.exp(0.25) - 1) * math.exp(0.25)),
    "bernoulli_": (lambda t: t.bernoulli_(0.3), 0.3, 0.21),
    "bernoulli_tensor": (lambda t: t.bernoulli_(il.full((N,), 0.8)), 0.8, 0.16),
    "random_": (lambda t: t.random_(3, 9), 5.5, (6 ** 2 - 1) / 12),
}


@pytest.mark.parametrize("name", sorted(MOMENTS))
def test_distribution_moments(name):
    call, mean, var = MOMENTS[name]
    il.manual_seed(0)
    t = call(il.empty(N))
    a = t.numpy().astype(np.float64)
    se = math.sqrt(var / N)
    assert abs(a.mean() - mean) < 6 * se
    assert abs(a.var() - var) < 0.05 * var


def test_cauchy_median_and_quartiles():
    il.manual_seed(0)
    a = il.empty(N).cauchy_(1.0, 2.0).numpy()
    q1, med, q3 = np.quantile(a, [0.25, 0.5, 0.75])
    assert abs(med - 1.0) < 0.05 and abs(q1 + 1.0) < 0.05 and abs(q3 - 3.0) < 0.05


def test_random_ranges_and_integer_draws():
    il.manual_seed(1)
    assert set(il.empty(1000, dtype=il.int64).random_(4).tolist()) == {0, 1, 2, 3}
    assert set(il.empty(1000).random_(-2, 1).tolist()) == {-2.0, -1.0, 0.0}
    big = il.empty(1000).random_().numpy()
    assert big.min() >= 0 and big.max() <= 2 ** 24 and big.max() > 2 ** 20
    assert set(il.empty(200, dtype=il.bool).random_().tolist()) == {False, True}
    assert set(il.empty(500, dtype=il.int32).geometric_(0.5).tolist()) <= set(range(1, 64))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fill_writes_the_target_dtype(dtype):
    t = il.empty(1000, dtype=getattr(il, dtype))
    ptr = t.data_ptr()
    t.uniform_()
    assert t.dtype.name == dtype and t.data_ptr() == ptr
    a = t.numpy()
    assert ((a >= 0) & (a < 1)).all()


def test_float32_uniform_allocates_no_float64_temporary():
    import tracemalloc

    t = il.empty(256, 1024)
    t.uniform_()
    tracemalloc.start()
    t.uniform_(-1.0, 1.0)
    t.normal_()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < t.nbytes // 4


@pytest.mark.parametrize("call", [lambda t: t.uniform_(), lambda t: t.normal_(),
                                  lambda t: t.bernoulli_(0.5), lambda t: t.exponential_(),
                                  lambda t: t.random_(1, 5), lambda t: t.cauchy_()],
                         ids=["uniform_", "normal_", "bernoulli_", "exponential_", "random_",
                              "cauchy_"])
def test_strided_target_written_through_the_view(call):
    base = il.zeros(6, 4)
    col = base.t()[1]  # a column: stride 4
    out = call(col)
    a = base.numpy()
    assert out is col and base._version == 1 and col._version == 1
    assert (a[:, [0, 2, 3]] == 0).all()
    assert (a[:, 1] != 0).sum() >= 3


def test_manual_seed_reproduces_every_fill():
    def draw():
        il.manual_seed(42)
        t = il.empty(5)
        return [list(t.uniform_().tolist()), list(t.normal_().tolist()),
                list(t.bernoulli_(0.5).tolist()), list(t.random_(100).tolist()),
                list(t.exponential_().tolist()), list(t.geometric_(0.3).tolist())]

    assert draw() == draw()


def test_version_bumps_once_and_object_is_kept():
    t = il.zeros(3)
    for i, call in enumerate([lambda: t.uniform_(), lambda: t.normal_(), lambda: t.random_(4),
                              lambda: t.bernoulli_(), lambda: t.log_normal_(),
                              lambda: t.cauchy_(), lambda: t.geometric_(0.5),
                              lambda: t.exponential_()], start=1):
        assert call() is t
        assert t._version == i


CALLS = {
    "uniform_": lambda t: t.uniform_(), "normal_": lambda t: t.normal_(),
    "bernoulli_": lambda t: t.bernoulli_(0.5),
    "bernoulli_tensor": lambda t: t.bernoulli_(t.detach() * 0 + 0.5),
    "exponential_": lambda t: t.exponential_(), "geometric_": lambda t: t.geometric_(0.5),
    "cauchy_": lambda t: t.cauchy_(), "log_normal_": lambda t: t.log_normal_(),
    "random_": lambda t: t.random_(), "random_to": lambda t: t.random_(5),
    "random_from_to": lambda t: t.random_(1, 5),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_leaf_that_requires_grad_is_refused_like_torch(name):
    with pytest.raises(RuntimeError) as te:
        CALLS[name](torch.zeros(3, requires_grad=True))
    x = il.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError) as ie:
        CALLS[name](x)
    assert str(ie.value) == str(te.value)
    assert x._version == 0 and x.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_graph_node_name_and_zero_gradient_match_torch(name):
    tx = torch.tensor([0.2, 0.4, 0.6], requires_grad=True)
    ty = tx * 2
    CALLS[name](ty)
    ix = il.tensor([0.2, 0.4, 0.6], requires_grad=True)
    iy = ix * 2
    CALLS[name](iy)
    assert iy.grad_fn.name() == ty.grad_fn.name()
    (ty * 1).sum().backward()
    (iy * 1).sum().backward()
    assert ix.grad.tolist() == tx.grad.tolist() == [0.0, 0.0, 0.0]


BAD = {
    "uniform_ from > to": lambda m, t: t.uniform_(1.0, 0.0),
    "normal_ negative std": lambda m, t: t.normal_(0.0, -1.0),
    "bernoulli_ p > 1": lambda m, t: t.bernoulli_(1.5),
    "bernoulli_ tensor p out of range": lambda m, t: t.bernoulli_(m.tensor([2.0, 0.0, 0.0])),
    "bernoulli_ p does not expand": lambda m, t: t.bernoulli_(m.zeros(2, 3)),
    "exponential_ lambda <= 0": lambda m, t: t.exponential_(-1.0),
    "geometric_ p = 0": lambda m, t: t.geometric_(0.0),
    "cauchy_ sigma <= 0": lambda m, t: t.cauchy_(0.0, -1.0),
    "log_normal_ std <= 0": lambda m, t: t.log_normal_(0.0, -1.0),
    "random_ from >= to": lambda m, t: t.random_(5, 2),
    "uniform_ on long": lambda m, t: t.long().uniform_(),
    "normal_ on long": lambda m, t: t.long().normal_(),
    "exponential_ on long": lambda m, t: t.long().exponential_(),
    "cauchy_ on long": lambda m, t: t.long().cauchy_(),
    "log_normal_ on long": lambda m, t: t.long().log_normal_(),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_argument_errors_match_torch_and_write_nothing(case):
    with pytest.raises(Exception) as te:
        BAD[case](torch, torch.zeros(3))
    t = il.zeros(3)
    with pytest.raises(type(te.value)) as ie:
        BAD[case](il, t)
    assert str(ie.value) == str(te.value)
    assert t._version == 0 and t.tolist() == [0.0, 0.0, 0.0]


def test_in_place_fill_under_no_grad_on_leaf_is_allowed_and_not_recorded():
    w = il.zeros(4, requires_grad=True)
    with il.no_grad():
        w.uniform_(-1, 1)
    assert w.is_leaf and w.grad_fn is None and w._version == 1
