"""Reductions, scans and the softmax family vs torch: values, grads, grad_fn names, dtypes,
errors, tie-breaking of gradients, in-place scans, and what each backward saves."""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab.autograd import gradcheck, gradgradcheck
from tests.differential.harness import attempt, compare_torch

pytest.importorskip("torch")

RNG = np.random.default_rng(3)
X34 = RNG.standard_normal((3, 4))
X234 = RNG.standard_normal((2, 3, 4))
POS = RNG.uniform(0.5, 2.0, (3, 4))

# (expression on `x`, input data): each is run with grad, weighted, and backpropagated
CASES = [
    ("x.sum()", X34), ("x.sum(0)", X34), ("x.sum(-1, keepdim=True)", X234), ("x.sum((0, 2))", X234),
    ("x.sum(dtype=T.float32)", X34), ("x.mean()", X34), ("x.mean(1)", X234),
    ("x.mean((0, -1), keepdim=True)", X234), ("x.prod()", POS), ("x.prod(1)", X34),
    ("x.prod(0, keepdim=True)", X234), ("x.max()", X34), ("x.min()", X34),
    ("x.max(0).values", X34), ("x.min(-1, keepdim=True)[0]", X234), ("x.amax()", X34),
    ("x.amax(1)", X234), ("x.amin((0, 2), keepdim=True)", X234),
    ("x.var()", X34), ("x.var(0)", X34), ("x.var(1, unbiased=False, keepdim=True)", X234),
    ("x.var(False)", X34), ("x.var((0, 2), correction=2)", X234), ("x.std()", X34),
    ("x.std(-1)", X234), ("x.std(0, True, True)", X34),
    ("x.norm()", X34), ("x.norm(1)", X34), ("x.norm(float('inf'))", X34), ("x.norm(3, dim=1)", X34),
    ("x.norm(dim=(0, 2), keepdim=True)", X234), ("x.norm(p='fro', dim=0)", X34),
    ("x.norm(float('-inf'), dim=1)", X34),
    ("x.logsumexp(0)", X34), ("x.logsumexp((1, 2), keepdim=True)", X234),
    ("x.cumsum(0)", X34), ("x.cumsum(-1)", X234), ("x.cumprod(1)", X34), ("x.cumprod(0)", X234),
    ("x.softmax(0)", X34), ("x.softmax(-1)", X234), ("x.log_softmax(1)", X34),
    ("T.softmax(x, dim=1)", X234), ("T.log_softmax(x, 0)", X234),
    ("T.sum(x, 1)", X34), ("T.max(x, 1)[0]", X34), ("T.logsumexp(x, dim=1)", X34),
]


@pytest.mark.parametrize("expr,data", CASES, ids=[c[0] for c in CASES])
def test_value_grad_and_grad_fn_match_torch(expr, data):
    def prog(T):
        x = T.tensor(data, requires_grad=True)
        y = eval(expr)
        w = T.tensor(np.arange(1, y.numel() + 1, dtype=np.float64).reshape(tuple(y.shape)))
        (y * w).sum().backward()
        return {"y": y, "fn": y.grad_fn, "g": x.grad}
    compare_torch(prog)


@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (-1, False)])
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_with_dim_return_values_and_indices(op, dim, keepdim):
    def prog(T):
        x = T.tensor(X234, requires_grad=True)
        res = getattr(x, op)(dim, keepdim)
        values, indices = res
        return {"values": values, "indices": indices, "same": res.values is values,
                "idx_field": res.indices, "fn": values.grad_fn, "idx_grad": indices.requires_grad}
    compare_torch(prog)


def test_max_with_a_tensor_is_maximum():
    compare_torch(lambda T: {"y": T.tensor([1.0, 5.0]).max(T.tensor([3.0, 2.0]))})


@pytest.mark.parametrize("expr", ["a.max()", "a.amax(1).sum()", "a.max(1)[0].sum()", "a.min()",
                                  "a.amin().sum()", "a.norm(float('inf'))", "a.prod()",
                                  "a.prod(1).sum()", "a.cumprod(1).sum()"])
def test_gradient_ties_and_zeros_match_torch(expr):
    def prog(T):
        a = T.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], requires_grad=True)
        eval(expr).backward()
        return {"g": a.grad}
    compare_torch(prog)


@pytest.mark.parametrize("expr", [
    "T.ones(3, 4, dtype=T.int64).sum()", "T.ones(3, dtype=T.bool).sum()",
    "T.ones(3, 4, dtype=T.int32).prod()", "T.ones(3, 4, dtype=T.int32).cumsum(0)",
    "T.ones(3, dtype=T.int32).cumprod(0)", "T.ones(3, 4).cumsum(dim=0, dtype=T.float64)",
    "T.ones(3, 4, dtype=T.int64).max()", "T.ones(3, 4, dtype=T.int64).argmax(1)",
    "T.tensor([[1., 5.], [7., 2.]]).argmax(1, keepdim=True)", "T.tensor([[1., 5.], [7., 2.]]).argmin()",
    "T.tensor([[1., 5.], [7., 2.]]).argmax(keepdim=True)",
    "T.ones(3, 4, dtype=T.int64).logsumexp(0)", "T.ones(3, 4, dtype=T.int64).softmax(0, dtype=T.float64)",
    "T.ones(3, 4).log_softmax(0, T.float64)",
    "T.tensor([[1., 0.], [1., 1.]]).all()", "T.ones(3, 4, dtype=T.uint8).all()",
    "T.tensor([[1., 0.], [0., 0.]]).any(0)", "T.tensor([[1., 0.], [0., 3.]]).count_nonzero()",
    "T.tensor([[1., 0.], [0., 3.]]).count_nonzero(0)", "T.tensor([[1., 0.], [0., 3.]]).count_nonzero((0, 1))",
    "T.tensor([[1., 0.], [0., 3.]]).all(1, keepdim=True)",
    "T.ones(0, 3).amax(1)", "T.ones(0, 3).logsumexp(0)", "T.ones(0, 3).prod()", "T.ones(0, 3).sum(0)",
    "T.tensor(2.).sum(0)", "T.tensor(2.).max(0)", "T.tensor(2.).softmax(0)", "T.tensor(2.).cumsum(0)",
    "T.tensor(2.).amax()", "T.tensor(3.).argmax(0)", "T.tensor(-2.).norm()",
    "T.ones(3, 4).max(dim=0, keepdim=True)",
])
def test_dtypes_and_edge_values_match_torch(expr):
    compare_torch(lambda T: {"y": eval(expr)})


@pytest.mark.parametrize("expr", [
    "T.ones(3, 4).sum(2)", "T.ones(3, 4).sum((0, 0))", "T.ones(3, 4).sum(-3)", "T.ones(()).sum(1)",
    "T.ones(3, 4, dtype=T.int64).mean()", "T.ones(3, 4, dtype=T.int64).var()",
    "T.ones(3, 4, dtype=T.int64).std(0)", "T.ones(3, 4, dtype=T.int64).norm()",
    "T.ones(3, 4, dtype=T.int64).softmax(0)", "T.ones(3, 4, dtype=T.int64).log_softmax(0)",
    "T.ones(3, 4).softmax(0, dtype=T.int64)", "T.ones(3, 4).softmax(2)", "T.ones(3, 4).softmax()",
    "T.ones(3, 4).logsumexp()", "T.ones(3, 4).cumsum(2)",
    "T.ones(0, 3).max()", "T.ones(0, 3).max(0)", "T.ones(0, 3).amax()", "T.ones(0, 3).argmax()",
    "T.ones(0, 3).argmin(0)", "T.ones(3, 4).max(5)",
])
def test_errors_match_torch(expr):
    compare_torch(lambda T: {"err": attempt(lambda: eval(expr))})


# ---- in-place scans ---------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
def test_inplace_scans_write_into_self_and_keep_grads(op):
    def prog(T):
        x = T.tensor(X34, requires_grad=True)
        y = x * 1
        out = getattr(y, op)(1)
        (out * T.tensor(X34)).sum().backward()
        return {"same": out is y, "v": y._version, "y": y, "fn": y.grad_fn, "g": x.grad}
    compare_torch(prog)


def test_inplace_cumsum_on_int32_keeps_its_dtype():
    def prog(T):
        t = T.ones(4, dtype=T.int32)
        t.cumsum_(0)
        return {"t": t, "v": t._version}
    compare_torch(prog)


# ---- saves (SEMANTICS.md section 5) -------------------------------------------------------------

SAVES = ["x.sum()", "x.sum(0)", "x.mean(1)", "x.cumsum(0)", "x.softmax(0)", "x.log_softmax(1)",
         "x.var()", "x.std(0)", "x.max()", "x.amax(0)", "x.max(1)[0]", "x.norm()", "x.prod(1)",
         "x.cumprod(0)", "x.logsumexp(1)", "x.min(0).values"]


@pytest.mark.parametrize("expr", SAVES)
@pytest.mark.parametrize("modified", ["input", "result"])
def test_inplace_after_a_reduction_breaks_backward_exactly_when_torch_does(expr, modified):
    def prog(T):
        x0 = T.tensor(POS, requires_grad=True)
        x = x0 * 1
        y = eval(expr)
        (x if modified == "input" else y).mul_(2)
        return {"backward": attempt(lambda: y.sum().backward()), "g": x0.grad}
    compare_torch(prog)


def test_modified_max_indices_break_backward_with_torch_text():
    def prog(T):
        x = T.tensor(X34, requires_grad=True) * 1
        values, indices = x.max(0)
        indices.add_(1)
        return {"backward": attempt(lambda: values.sum().backward())}
    compare_torch(prog)


def test_softmax_saved_result_error_names_softmax():
    x = il.tensor(X34, requires_grad=True)
    y = x.softmax(0)
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.DoubleTensor \[3, 4\]\], which is output 0 of "
                                           r"Softmax, is at version 1; expected version 0"):
        y.sum().backward()


def test_sum_saves_nothing_so_its_result_may_change():
    x = il.tensor(X34, requires_grad=True)
    y = x.sum(0)
    y.add_(1)
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), np.ones((3, 4)))
    assert y.grad_fn.name() == "AddBackward0" and y._version == 1


# ---- gradcheck of every differentiable reduction --------------------------------------------------

GRADCHECK = ["x.sum(1)", "x.mean((0, 2))", "x.prod()", "x.prod(1, keepdim=True)", "x.max()",
             "x.min(1)[0]", "x.amax(-1)", "x.amin((0, 1))", "x.var(1)", "x.std(correction=0)",
             "x.norm()", "x.norm(1, dim=2)", "x.norm(3, dim=0)", "x.norm(float('inf'), dim=1)",
             "x.logsumexp(2)", "x.cumsum(1)", "x.cumprod(2)", "x.softmax(1)", "x.log_softmax(0)"]


@pytest.mark.parametrize("expr", GRADCHECK)
def test_gradcheck_passes(expr):
    x = il.tensor(RNG.uniform(0.5, 1.5, (2, 3, 3)) * RNG.choice([-1, 1], (2, 3, 3)),
                  dtype=il.float64, requires_grad=True)
    assert gradcheck(lambda x: eval(expr), (x,))


@pytest.mark.parametrize("expr", ["x.sum(1)", "x.mean()", "x.prod(0)", "x.var(1)", "x.std()",
                                  "x.norm()", "x.logsumexp(1)", "x.cumsum(0)", "x.cumprod(1)",
                                  "x.softmax(1)", "x.log_softmax(0)", "x.amax(0)"])
def test_gradgradcheck_passes(expr):
    x = il.tensor(RNG.uniform(0.5, 1.5, (3, 3)), dtype=il.float64, requires_grad=True)
    assert gradgradcheck(lambda x: eval(expr), (x,))


def test_cumprod_and_prod_gradients_are_exact_with_zeros():
    x = il.tensor([[0.5, 0.0, 2.0, 1.5], [0.0, 0.0, 3.0, 1.0]], dtype=il.float64, requires_grad=True)
    assert gradcheck(lambda x: x.cumprod(1), (x,))
    assert gradcheck(lambda x: x.prod(1), (x,))
    assert gradcheck(lambda x: x.prod(), (x,))
