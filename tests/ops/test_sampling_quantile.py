"""multinomial, the functional normal overloads, quantile and nanquantile vs torch 2.13.

The random draws come from inplace_lab's own seeded generator, so their values cannot
equal torch's: the tests check shapes, dtypes, ranges, statistics, reproducibility under
``manual_seed``, grad_fn names, zero gradients and torch's error texts. quantile is
deterministic and is compared value for value, gradient for gradient, graph for graph.
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
import inplace_lab.torch as iltorch
from inplace_lab.autograd import gradcheck
from tests.differential.harness import compare_torch

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)


def chain(t):
    names, f = [], t.grad_fn
    while f is not None and not f.name().endswith("AccumulateGrad"):
        names.append(f.name())
        nxt = [g for g, _ in f.next_functions if g is not None and not g.name().endswith("AccumulateGrad")]
        f = nxt[0] if nxt else None
    return names


# ---- multinomial ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,n,repl", [((3,), 2, False), ((3,), 5, True), ((2, 3), 2, False), ((2, 3), 1, True),
                                          ((0, 3), 2, False), ((4,), 4, False)])
def test_multinomial_shape_dtype_and_range_match_torch(shape, n, repl):
    P = RNG.random(shape) + 0.1

    def prog(T):
        s = T.multinomial(T.tensor(P, dtype=T.float32), n, replacement=repl)
        return {"shape": list(s.shape), "dtype": str(s.dtype).split(".")[-1],
                "in_range": bool(((s >= 0) & (s < shape[-1])).all()), "grad": s.requires_grad,
                "method": list(T.tensor(P).multinomial(n, repl).shape)}
    compare_torch(prog)


def test_multinomial_without_replacement_never_repeats_a_category():
    il.manual_seed(0)
    s = il.multinomial(il.ones(50, 6), 6)
    assert all(sorted(row) == list(range(6)) for row in s.tolist())


def test_multinomial_frequencies_follow_the_probabilities():
    il.manual_seed(1)
    p = np.array([0.1, 0.2, 0.7])
    with_r = il.multinomial(il.tensor(p), 20000, replacement=True).numpy()
    assert np.allclose(np.bincount(with_r, minlength=3) / 20000, p, atol=0.02)
    first = il.multinomial(il.tensor(p).expand(20000, 3), 1).numpy()[:, 0]
    assert np.allclose(np.bincount(first, minlength=3) / 20000, p, atol=0.02)
    assert il.multinomial(il.tensor([0., 0., 3.]), 4, True).tolist() == [2, 2, 2, 2]


def test_multinomial_is_reproducible_under_manual_seed():
    il.manual_seed(3)
    a = il.multinomial(il.ones(4, 10), 5)
    il.manual_seed(3)
    b = il.multinomial(il.ones(4, 10), 5)
    assert a.tolist() == b.tolist()


@pytest.mark.parametrize("make", [
    lambda T: T.multinomial(T.tensor([.2, .3, .5]), 5),
    lambda T: T.multinomial(T.tensor([1, 2]), 1),
    lambda T: T.multinomial(T.tensor([-1., 2]), 1),
    lambda T: T.multinomial(T.tensor([0., 0]), 1),
    lambda T: T.multinomial(T.ones(2, 2, 2), 1),
    lambda T: T.multinomial(T.tensor(1.), 1),
    lambda T: T.multinomial(T.tensor([.2, .3, .5]), 0),
    lambda T: T.multinomial(T.tensor([float("nan"), 1.]), 1),
    lambda T: T.multinomial(T.tensor([float("inf"), 1.]), 1),
    lambda T: T.multinomial(T.ones(0), 1),
    lambda T: T.multinomial(T.tensor([-1., 2]), 2, True),
    lambda T: T.multinomial(T.tensor([float("nan"), 2]), 2, True),
    lambda T: T.multinomial(T.tensor([0., 0]), 2, True),
    lambda T: T.multinomial(T.tensor([[0., 0], [1, 1]]), 1),
    lambda T: T.multinomial(T.ones(2, 0), 2, True)])
def test_multinomial_errors_match_torch(make):
    compare_torch(lambda T: list(make(T).shape))


# ---- normal ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda T: T.normal(T.zeros(3), 1.), lambda T: T.normal(0., T.ones(3)),
    lambda T: T.normal(T.zeros(3), T.ones(2, 3)), lambda T: T.normal(0., 1., (2, 3)),
    lambda T: T.normal(0., 1., size=(2,)), lambda T: T.normal(0, 1, (2,), dtype=T.float64),
    lambda T: T.normal(T.zeros(3, dtype=T.float64), T.ones(3)),
    lambda T: T.normal(T.zeros(3), T.ones(3, dtype=T.float64)), lambda T: T.normal(mean=T.zeros(3)),
    lambda T: T.normal(T.zeros(3), std=2), lambda T: T.normal(T.zeros(3), T.ones(3, dtype=T.long))])
def test_normal_shapes_and_dtypes_match_torch(make):
    compare_torch(lambda T: {"shape": list(make(T).shape), "dtype": str(make(T).dtype).split(".")[-1]})


@pytest.mark.parametrize("make", [
    lambda T: T.normal(T.zeros(3), -1.), lambda T: T.normal(T.zeros(3), -T.ones(3)),
    lambda T: T.normal(T.zeros(3, dtype=T.long), 1.), lambda T: T.normal(T.zeros(3), T.ones(2)),
    lambda T: T.normal(0., 1.), lambda T: T.normal(0., -1., (2,)),
    lambda T: T.normal(0., T.ones(3, dtype=T.long)), lambda T: T.normal(T.zeros(4), T.ones(2, 2))])
def test_normal_errors_match_torch(make):
    compare_torch(lambda T: list(make(T).shape), prefix=60)


def test_normal_nodes_and_zero_gradients_match_torch():
    def prog(T):
        m, s = T.zeros(3, requires_grad=True), T.ones(2, 3, requires_grad=True)
        y = T.normal(m, s)
        y.sum().backward()
        return {"fn3": y.grad_fn, "fn1": T.normal(m, 1.).grad_fn, "fn2": T.normal(0., s).grad_fn,
                "gm": m.grad, "gs": s.grad, "size_grad": T.normal(0., 1., (2,), requires_grad=True).requires_grad}
    compare_torch(prog)


def test_normal_statistics_and_seed():
    il.manual_seed(7)
    x = il.normal(il.full((40000,), 2.0), il.full((40000,), 3.0))
    assert abs(x.mean().item() - 2.0) < 0.1 and abs(x.std().item() - 3.0) < 0.1
    y = il.normal(-1.0, 0.5, (40000,))
    assert abs(y.mean().item() + 1.0) < 0.02 and abs(y.std().item() - 0.5) < 0.02
    il.manual_seed(7)
    assert il.normal(il.full((40000,), 2.0), il.full((40000,), 3.0)).tolist() == x.tolist()
    assert iltorch.normal(iltorch.zeros(2), 1.0).shape == (2,)


# ---- quantile, nanquantile -------------------------------------------------------------------------------

QUANTILE_CASES = [{}, {"dim": 0}, {"dim": 1, "keepdim": True}, {"dim": -1}, {"keepdim": True}]
MODES = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("kw", QUANTILE_CASES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("q", [0.3, [0.1, 0.5, 1.0], 0.0])
def test_quantile_values_grads_and_graph_match_torch(kw, mode, q):
    X = RNG.standard_normal((5, 4))
    X[1, 2] = X[3, 2]  # a tie: over dim 0 (a row of 5) both sorts keep it in index order
    if "dim" not in kw:  # over all 20 elements torch's unstable sort may swap a tie
        X[1, 2] += 0.5

    def prog(T):
        x = T.tensor(X, requires_grad=True)
        qq = T.tensor(q, dtype=T.float64) if isinstance(q, list) else q
        y = T.quantile(x, qq, interpolation=mode, **kw)
        (y * T.tensor(np.linspace(-1, 2, y.numel()).reshape(tuple(y.shape)))).sum().backward()
        return {"y": y, "g": x.grad, "chain": chain(y), "method": x.detach().quantile(qq, interpolation=mode, **kw)}
    compare_torch(prog)


@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": 1}])
def test_nanquantile_and_nan_handling_match_torch(kw):
    X = RNG.standard_normal((4, 5))
    X[0, 1] = X[2, 3] = np.nan
    X[3, :] = np.nan

    def prog(T):
        x = T.tensor(X, requires_grad=True)
        y = T.nanquantile(x, 0.4, **kw)
        T.where(y.isnan(), 0., y).sum().backward()
        return {"nan": y, "g": x.grad, "chain": chain(y), "plain": T.quantile(x.detach(), 0.4, **kw),
                "multi": T.nanquantile(x.detach(), T.tensor([0.2, 0.9], dtype=T.float64), **kw)}
    compare_torch(prog)


def test_quantile_zero_dim_input_matches_torch():
    def prog(T):
        x = T.tensor(3.)
        return [T.quantile(x, 0.5), T.quantile(x, 0.5, dim=0, keepdim=True), T.quantile(x, T.tensor([0.5]), dim=0)]
    compare_torch(prog)


@pytest.mark.parametrize("make", [
    lambda T, x: T.quantile(x, 1.5), lambda T, x: T.quantile(x, T.tensor([[0.5]])),
    lambda T, x: T.quantile(x, 0.5, interpolation="foo"), lambda T, x: T.quantile(x.long(), 0.5),
    lambda T, x: T.quantile(x, T.tensor([0.5], dtype=T.float64)), lambda T, x: T.quantile(x, T.tensor([-0.5])),
    lambda T, x: T.quantile(T.ones(0), 0.5), lambda T, x: T.quantile(x, 0.5, dim=3),
    lambda T, x: T.nanquantile(x, 2.0), lambda T, x: T.nanquantile(x.long(), 0.5),
    lambda T, x: T.quantile(T.ones(0, 3), 0.5, dim=0)])
def test_quantile_errors_match_torch(make):
    compare_torch(lambda T: make(T, T.ones(5, 4)))


def test_quantile_gradcheck():
    x = il.tensor(RNG.standard_normal((4, 5)), requires_grad=True)
    assert gradcheck(lambda x: il.quantile(x, il.tensor([0.25, 0.6], dtype=il.float64), dim=1), (x,))
    assert gradcheck(lambda x: il.nanquantile(x, 0.3), (x,))
