"""Linear algebra vs torch: values, gradients, grad_fn chains, saves, errors, out= and in-place forms.

matmul is checked case by case (1-D, 2-D, batched, broadcast batches, folded batches) on the
whole chain of grad_fn names, since PyTorch composes it from dot/mv/mm/bmm and views.
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab.autograd import gradcheck, gradgradcheck
from tests.differential.harness import attempt, compare_torch

pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def chain(t):
    """grad_fn names from the output down its first non-leaf edge."""
    names, f = [], t.grad_fn
    while f is not None and not f.name().endswith("AccumulateGrad"):
        names.append(f.name())
        nxt = [g for g, _ in f.next_functions if g is not None and not g.name().endswith("AccumulateGrad")]
        f = nxt[0] if nxt else None
    return names


def r(*shape):
    return RNG.standard_normal(shape)


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)),
                 ((5, 2, 3), (3, 4)), ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                 ((1, 2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)), ((5, 2, 3), (1, 3, 4)),
                 ((2, 1, 2, 3), (1, 4, 3, 2))]
GRADS = [(True, True), (True, False), (False, True)]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("ra,rb", GRADS)
def test_matmul_values_and_grads_match_torch(sa, sb, ra, rb):
    A, B = r(*sa), r(*sb)

    def prog(T):
        a, b = T.tensor(A, requires_grad=ra), T.tensor(B, requires_grad=rb)
        y = a @ b
        (y * T.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)))).sum().backward()
        return {"y": y, "ga": a.grad, "gb": b.grad, "fn_y": T.matmul(a, b)}
    compare_torch(prog)


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("ra,rb", GRADS)
def test_matmul_grad_fn_chain_matches_torch(sa, sb, ra, rb):
    A, B = r(*sa), r(*sb)

    def prog(T):
        a, b = T.tensor(A, requires_grad=ra), T.tensor(B, requires_grad=rb)
        return {"chain": chain(a @ b)}
    compare_torch(prog)


def test_matmul_of_a_noncontiguous_batch_matches_torch():
    A, B = r(5, 2, 3), r(3, 4)

    def prog(T):
        a = T.tensor(A).transpose(0, 1)
        b = T.tensor(B, requires_grad=True)
        y = a @ b
        y.sum().backward()
        return {"y": y, "chain": chain(y), "gb": b.grad}
    compare_torch(prog)


@pytest.mark.parametrize("expr", [
    "T.mm(T.ones(2, 3), T.ones(4, 5))", "T.mm(T.ones(2, 3, 1), T.ones(4, 5))",
    "T.mm(T.ones(2, 3), T.ones(4))", "T.mm(T.ones(2, 3), T.ones(3, 4, dtype=T.float64))",
    "T.bmm(T.ones(2, 2, 3), T.ones(2, 4, 5))", "T.bmm(T.ones(2, 3), T.ones(3, 3, 5))",
    "T.bmm(T.ones(2, 2, 3), T.ones(2, 3, 4, dtype=T.float64))",
    "T.dot(T.ones(3), T.ones(4))", "T.dot(T.ones(3, 1), T.ones(3))",
    "T.dot(T.ones(3), T.ones(3, dtype=T.float64))",
    "T.mv(T.ones(2, 3), T.ones(4))", "T.mv(T.ones(3), T.ones(4))",
    "T.mv(T.ones(2, 3), T.ones(3, dtype=T.float64))",
    "T.matmul(T.ones(2, 3), T.ones(4, 5))", "T.matmul(T.ones(3), T.ones(4))",
    "T.matmul(T.ones(5, 2, 3), T.ones(4, 5))", "T.matmul(T.ones(5, 2, 3), T.ones(5, 4, 5))",
    "T.matmul(T.ones(5, 2, 3), T.ones(4, 3, 5))", "T.matmul(T.ones(()), T.ones(3))",
    "T.matmul(T.ones(2, 3, dtype=T.int64), T.ones(3, 4))",
    "T.outer(T.ones(2, 2), T.ones(3))", "T.ones(3).trace()", "T.ones(2, 3, 4).trace()",
    "T.ones(3).tril()", "T.ones(3).triu(1)",
    "T.addmm(T.ones(3), T.ones(2, 3), T.ones(3, 4))", "T.addmm(T.ones(2, 4), T.ones(2, 3, 1), T.ones(3, 4))",
    "T.addmm(T.ones(2, 4), T.ones(2, 3), T.ones(2, 4))",
    "T.addmm(T.ones(2, 4), T.ones(2, 3, dtype=T.float64), T.ones(3, 4, dtype=T.float64))",
    "T.ones(2, 4).addmm_(T.ones(2, 3), T.ones(3, 3))", "T.ones(4).addmm_(T.ones(2, 3), T.ones(3, 4))",
    "T.baddbmm(T.ones(2, 2, 3), T.ones(2, 2, 3), T.ones(2, 4, 3))",
    "T.ones(2, 3, 4).baddbmm_(T.ones(2, 2, 3), T.ones(2, 3, 4))",
])
def test_shape_and_dtype_errors_match_torch(expr):
    compare_torch(lambda T: {"err": attempt(lambda: eval(expr))})


@pytest.mark.parametrize("expr", [
    "T.mm(T.ones(2, 3, dtype=T.int64), T.ones(3, 4, dtype=T.int64))",
    "T.mv(T.ones(2, 3, dtype=T.int64), T.ones(3, dtype=T.int64))",
    "T.ones(2, dtype=T.int64).dot(T.ones(2, dtype=T.int64))",
    "T.ones(3, 4, dtype=T.int32).trace()", "T.ones(4, dtype=T.int64).outer(T.ones(3, dtype=T.float64))",
    "T.addmm(T.ones(4), T.ones(2, 3), T.ones(3, 4), beta=0.5, alpha=2)",
    "T.addmm(T.ones(2, 4, dtype=T.int64), T.ones(2, 3, dtype=T.int64), T.ones(3, 4, dtype=T.int64), alpha=2)",
    "T.baddbmm(T.ones(2, 4), T.ones(2, 2, 3), T.ones(2, 3, 4), beta=0, alpha=2)",
    "T.addmm(T.full((2, 4), float('nan')), T.ones(2, 3), T.ones(3, 4), beta=0)",
    "T.ones(2, 2, 3).tril(-1)", "T.ones(3, 4).triu(2)",
])
def test_values_and_dtypes_match_torch(expr):
    compare_torch(lambda T: {"y": eval(expr)})


@pytest.mark.parametrize("op", ["mm", "dot", "mv", "bmm", "addmm", "baddbmm", "trace", "tril", "triu", "outer"])
def test_grad_fn_names_and_grads_match_torch(op):
    X, W, V, S = r(3, 4), r(4, 5), r(4), r(3, 5)

    def prog(T):
        x = T.tensor(X, requires_grad=True)
        w = T.tensor(W, requires_grad=True)
        v = T.tensor(V, requires_grad=True)
        s = T.tensor(S, requires_grad=True)
        y = {"mm": lambda: x.mm(w), "dot": lambda: x[0].dot(v), "mv": lambda: x.mv(v),
             "bmm": lambda: x.unsqueeze(0).bmm(w.unsqueeze(0)),
             "addmm": lambda: T.addmm(s, x, w, beta=0.5, alpha=3),
             "baddbmm": lambda: T.baddbmm(s[0], x.unsqueeze(0), w.unsqueeze(0), alpha=-2),
             "trace": lambda: x.trace(), "tril": lambda: x.tril(1), "triu": lambda: x.triu(-1),
             "outer": lambda: T.outer(v, x[1])}[op]()
        (y * y).sum().backward()
        return {"y": y, "fn": y.grad_fn, "gx": x.grad, "gw": w.grad, "gv": v.grad, "gs": s.grad}
    compare_torch(prog)


# ---- saves: each operand is kept only when the other one requires grad ---------------------------

@pytest.mark.parametrize("op", ["mm", "mv", "dot", "bmm", "addmm", "matmul"])
@pytest.mark.parametrize("which", ["x", "w"])
@pytest.mark.parametrize("grad_of", ["x", "w", "both"])
def test_matrix_products_save_an_operand_only_when_the_other_needs_grad(op, which, grad_of):
    X, W = r(3, 4), r(4, 4)

    def prog(T):
        x0 = T.tensor(X, requires_grad=grad_of in ("x", "both"))
        w0 = T.tensor(W, requires_grad=grad_of in ("w", "both"))
        x, w = x0 * 1, w0 * 1
        y = {"mm": lambda: x.mm(w), "mv": lambda: x.mv(w[0]), "dot": lambda: x[0].dot(w[0]),
             "bmm": lambda: x.unsqueeze(0).bmm(w.unsqueeze(0)),
             "addmm": lambda: T.addmm(T.zeros(3, 4, dtype=T.float64), x, w),
             "matmul": lambda: x @ w}[op]()
        (x if which == "x" else w).add_(1)
        return {"backward": attempt(lambda: y.sum().backward()), "gx": x0.grad, "gw": w0.grad}
    compare_torch(prog)


# ---- in-place forms and out= ----------------------------------------------------------------------

@pytest.mark.parametrize("op", ["addmm_", "baddbmm_", "tril_", "triu_"])
def test_inplace_forms_match_torch(op):
    S, A, B = r(2, 2, 4), r(2, 2, 3), r(2, 3, 4)

    def prog(T):
        a = T.tensor(A, requires_grad=True)
        b = T.tensor(B, requires_grad=True)
        s0 = T.tensor(S, requires_grad=True)
        s = s0 * 1
        if op == "addmm_":
            s = s[0]
            out = s.addmm_(a[0], b[0], beta=2, alpha=0.5)
        elif op == "baddbmm_":
            out = s.baddbmm_(a, b, beta=0.5)
        else:
            out = getattr(s, op)(1)
        (out * out).sum().backward()
        return {"same": out is s, "v": s._version, "s": s, "fn": s.grad_fn, "gs": s0.grad,
                "ga": a.grad, "gb": b.grad}
    compare_torch(prog)


def test_failed_addmm_inplace_leaves_target_untouched():
    def prog(T):
        s = T.ones(2, 4)
        err = attempt(lambda: s.addmm_(T.ones(2, 3), T.ones(3, 3)))
        return {"err": err, "s": s, "v": s._version}
    compare_torch(prog)


@pytest.mark.parametrize("op", ["mm", "matmul", "bmm", "mv", "dot", "addmm"])
def test_out_writes_into_the_given_tensor_and_bumps_its_version(op):
    def prog(T):
        a, b = T.ones(2, 3) * 2, T.ones(3, 4) * 3
        out = T.empty(0)
        args = {"mm": (a, b), "matmul": (a, b), "bmm": (a.unsqueeze(0), b.unsqueeze(0)),
                "mv": (a, b[:, 0]), "dot": (a[0], b[:, 0]), "addmm": (T.ones(2, 4), a, b)}[op]
        res = getattr(T, op)(*args, out=out)
        return {"same": res is out, "out": out, "v": out._version}
    compare_torch(prog)


def test_matmul_out_refuses_inputs_that_require_grad():
    def prog(T):
        a = T.ones(2, 3, requires_grad=True)
        return {"err": attempt(lambda: T.matmul(a, T.ones(3, 4), out=T.empty(2, 4)))}
    compare_torch(prog)


# ---- gradcheck of every differentiable op here ----------------------------------------------------

def _t(*shape):
    return il.tensor(r(*shape), dtype=il.float64, requires_grad=True)


@pytest.mark.parametrize("name,fn,shapes", [
    ("mm", lambda a, b: a.mm(b), [(2, 3), (3, 4)]),
    ("bmm", lambda a, b: a.bmm(b), [(2, 2, 3), (2, 3, 2)]),
    ("mv", lambda a, b: a.mv(b), [(2, 3), (3,)]),
    ("dot", lambda a, b: a.dot(b), [(3,), (3,)]),
    ("outer", lambda a, b: il.outer(a, b), [(3,), (2,)]),
    ("matmul_batched", lambda a, b: a @ b, [(2, 1, 2, 3), (3, 3, 2)]),
    ("matmul_folded", lambda a, b: a @ b, [(2, 2, 3), (3,)]),
    ("addmm", lambda s, a, b: il.addmm(s, a, b, beta=0.5, alpha=2), [(3,), (2, 3), (3, 3)]),
    ("baddbmm", lambda s, a, b: il.baddbmm(s, a, b, alpha=-1), [(2, 1, 2), (2, 2, 3), (2, 3, 2)]),
    ("trace", lambda a: a.trace(), [(3, 4)]),
    ("tril", lambda a: a.tril(), [(3, 4)]),
    ("triu", lambda a: a.triu(1), [(2, 3, 3)]),
])
def test_gradcheck_and_gradgradcheck_pass(name, fn, shapes):
    inputs = tuple(_t(*s) for s in shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)
