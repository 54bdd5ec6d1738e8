"""Leaf in-place checks (SEMANTICS 4) and saved-tensor version checks (SEMANTICS 5) vs torch.

The saves table is checked op by op: an in-place write to an op's input breaks backward
exactly when the op saved that input, and a write to its result exactly when it saved
the result. Clone-before-overwrite: ``y.sin_()`` still gives cos gradients.
"""
from __future__ import annotations

import pytest

from tests.differential.harness import attempt, compare_torch

pytest.importorskip("torch")


# ---- 4. leaf checks ----------------------------------------------------------------------------

def leaf_inplace_refused_and_untouched(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return {"err": attempt(lambda: x.add_(1)), "x": x, "v": x._version}


def leaf_iadd_refused(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)

    def f():
        nonlocal x
        x += 1
    return {"err": attempt(f), "x": x, "v": x._version}


def leaf_setitem_refused(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def f():
        x[0] = 5.0
    return {"err": attempt(f), "x": x, "v": x._version}


def view_of_leaf_inplace_refused(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = x[1:]
    return {"err": attempt(lambda: v.mul_(2)), "x": x, "v": x._version}


def leaf_inplace_allowed_under_no_grad(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with T.no_grad():
        x.add_(1)
        x[1:].mul_(2)
        x[0] = 0.0
    (x * x).sum().backward()
    return {"x": x, "v": x._version, "grad": x.grad, "leaf": x.is_leaf}


def leaf_not_requiring_grad_is_free(T):
    x = T.tensor([1.0, 2.0])
    x.add_(1)
    x[0] = 7.0
    return {"x": x, "v": x._version, "fn": x.grad_fn}


def pytorch_test_leaf_assignment(T):
    x = T.zeros(5, 5)
    y = T.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    z = T.tensor([5.0, 4.0, 3.0, 2.0, 1.0], requires_grad=True)
    x[0] = y
    x[1] = 2 * z
    rg = x.requires_grad
    fn = x.grad_fn
    x.sum().backward()
    return {"requires_grad": rg, "fn": fn, "y.grad": y.grad, "z.grad": z.grad, "x": x}


def no_grad_assignment_keeps_leaf(T):
    x = T.zeros(5, 5, requires_grad=True)
    y = T.ones(5)
    with T.no_grad():
        x[0] = y
    return {"rg": x.requires_grad, "fn": x.grad_fn, "x": x}


# ---- 5. saved tensors -------------------------------------------------------------------------

def exp_result_modified(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    return {"v": y._version, "backward": attempt(lambda: y.sum().backward())}


def saved_leaf_modified_under_no_grad(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.sin()
    with T.no_grad():
        x.mul_(2)
    return {"backward": attempt(lambda: y.sum().backward())}


def saved_double_tensor_named_in_message(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64, requires_grad=True)
    h = x * 1
    y = h.sigmoid()
    y.mul_(2)
    return {"backward": attempt(lambda: y.sum().backward())}


def mul_saves_operand_only_if_other_requires_grad(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.add_(1)
    y.sum().backward()
    ok = x.grad
    w = T.tensor([1.0, 2.0], requires_grad=True)
    a = T.tensor([3.0, 4.0])
    b = w * 1
    z = a * b
    b.add_(1)  # b is not saved: a does not require grad
    z.sum().backward(retain_graph=True)
    a.add_(1)  # a is saved (for b's gradient)
    return {"x.grad": ok, "w.grad": w.grad, "again": attempt(lambda: z.sum().backward())}


def exp_then_add_fails_at_backward_not_at_the_op(T):
    x = T.tensor([0.5, 1.5], requires_grad=True)
    y = x.exp()
    y.add_(1)
    y2 = y * 3
    return {"fn": y.grad_fn, "v": y._version, "y2": y2,
            "backward": attempt(lambda: y2.sum().backward())}


def _unary(name):
    return lambda t: getattr(t, name)()


SAVES_CASES = {
    # result only
    "exp": _unary("exp"), "expm1": _unary("expm1"), "sqrt": _unary("sqrt"),
    "rsqrt": _unary("rsqrt"), "reciprocal": _unary("reciprocal"), "tanh": _unary("tanh"),
    "tan": _unary("tan"), "sigmoid": _unary("sigmoid"), "relu": _unary("relu"),
    # inputs only
    "mul": lambda t: t * t.detach(), "div": lambda t: t / t.detach(), "log": _unary("log"),
    "log1p": _unary("log1p"), "sin": _unary("sin"), "cos": _unary("cos"),
    "sinh": _unary("sinh"), "erf": _unary("erf"), "abs": _unary("abs"),
    "pow_scalar": lambda t: t.pow(2), "square": _unary("square"),
    "clamp": lambda t: t.clamp(0.1, 5.0), "atan2": lambda t: t.atan2(t.detach() + 1),
    "maximum": lambda t: t.maximum(t.detach() * 0 + 1.2),
    # input and result
    "pow_tensor": lambda t: t.pow(t.detach()),
    # nothing
    "add": lambda t: t + 1, "sub": lambda t: t - 1, "neg": _unary("neg"),
    "clone": _unary("clone"), "sum": lambda t: t.sum(), "mean": lambda t: t.mean(),
    "sign": _unary("sign"),
}


def _saves_program(op, modify):
    def prog(T):
        x = T.tensor([0.5, 1.0, 2.0], requires_grad=True)
        h = x * 1
        out = SAVES_CASES[op](h)
        if modify == "input":
            h.add_(1)
        else:
            out.add_(1)
        return {"backward": attempt(lambda: out.sum().backward()), "grad": x.grad}
    return prog


@pytest.mark.parametrize("modify", ["input", "result"])
@pytest.mark.parametrize("op", sorted(SAVES_CASES))
def test_saves_table_matches_torch(op, modify):
    compare_torch(_saves_program(op, modify))


# ---- clone-before-overwrite --------------------------------------------------------------------

def sin_inplace_gives_cos_gradients(T):
    x = T.tensor([0.1, 0.7, 1.3], requires_grad=True)
    y = x * 1
    y.sin_()
    y.sum().backward()
    return {"grad": x.grad, "fn": y.grad_fn, "v": y._version, "y": y}


def sin_inplace_then_modify_again_is_fine(T):
    x = T.tensor([0.1, 0.7, 1.3], requires_grad=True)
    y = x * 1
    y.sin_()
    y.add_(1)
    y.sum().backward()
    return {"grad": x.grad}


def exp_inplace_then_modify_fails(T):
    x = T.tensor([0.1, 0.7], requires_grad=True)
    y = x * 1
    y.exp_()
    e = attempt(lambda: y.sum().backward(retain_graph=True))
    y.mul_(2)
    return {"first": e, "grad": x.grad, "second": attempt(lambda: y.sum().backward())}


def inplace_mul_by_tensor_saves_a_clone(T):
    w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = T.tensor([4.0, 5.0, 6.0], requires_grad=True)
    y = x * 1
    y.mul_(w)
    y.sum().backward()
    return {"w.grad": w.grad, "x.grad": x.grad, "fn": y.grad_fn}


def saved_tensor_hooks_skip_the_version_check(T):
    graph = getattr(T.autograd, "graph", None)
    hooks = graph.saved_tensors_hooks if graph is not None else T.autograd.saved.saved_tensors_hooks
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with hooks(lambda t: t, lambda t: t):
        h = x * 1
        y = h * h
    h.add_(10)
    y.sum().backward()
    return {"grad_silently_wrong": x.grad}


PROGRAMS = [leaf_inplace_refused_and_untouched, leaf_iadd_refused, leaf_setitem_refused,
            view_of_leaf_inplace_refused, leaf_inplace_allowed_under_no_grad,
            leaf_not_requiring_grad_is_free, pytorch_test_leaf_assignment,
            no_grad_assignment_keeps_leaf, exp_result_modified, saved_leaf_modified_under_no_grad,
            saved_double_tensor_named_in_message, mul_saves_operand_only_if_other_requires_grad,
            exp_then_add_fails_at_backward_not_at_the_op, sin_inplace_gives_cos_gradients,
            sin_inplace_then_modify_again_is_fine, exp_inplace_then_modify_fails,
            inplace_mul_by_tensor_saves_a_clone, saved_tensor_hooks_skip_the_version_check]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_leaf_and_saved_match_torch(prog):
    compare_torch(prog)
