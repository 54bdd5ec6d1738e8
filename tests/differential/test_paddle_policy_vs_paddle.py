"""The "paddle" policy against paddle 3.3.1: leaf rules and their exact words, no CopySlices,
Paddle's saved-tensor error, non-scalar backward with ones, clone-before-overwrite.

Programs take the adapter ``P`` (see harness.py) and otherwise use Paddle's method names.
"""
from __future__ import annotations

import math

import pytest

from tests.differential.harness import attempt, compare_paddle

pytest.importorskip("paddle")


def leaf_inplace_unnamed(P):
    x = P.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return {"err": attempt(lambda: x.add_(P.s(1))), "v": P.version(x)}


def leaf_inplace_named(P):
    x = P.tensor([1.0, 2.0, 3.0], requires_grad=True, name="weight")
    return {"err": attempt(lambda: x.exp_()), "v": P.version(x)}


def leaf_setitem_unnamed_and_named(P):
    x = P.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = P.tensor([1.0, 2.0, 3.0], requires_grad=True, name="w")

    def put(t):
        t[0] = 5.0
    return {"unnamed": attempt(lambda: put(x)), "named": attempt(lambda: put(w)), "x": x,
            "v": P.version(x)}


def leaf_inplace_allowed_under_no_grad(P):
    x = P.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with P.no_grad():
        x.multiply_(P.s(2))
        x[0] = 0.0
    (x * x).sum().backward()
    return {"x": x, "v": P.version(x), "grad": x.grad}


def view_of_leaf_inplace_is_silent(P):
    x = P.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = x[1:]
    v.multiply_(P.s(2))
    out = {"x": x, "versions": [P.version(x), P.version(v)]}
    (x * 1).sum().backward()
    out["grad"] = x.grad
    return out


def view_of_leaf_inplace_backprops_through_the_view(P):
    x = P.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = x[1:]
    v.multiply_(P.s(2))
    v.sum().backward()
    return {"grad": x.grad}


def no_copyslices_rebase(P):
    a = P.tensor([[1.0, 1.0], [1.0, 1.0]], requires_grad=True)
    b = a * 1
    b[0].multiply_(P.s(2))
    b.sum().backward()
    return {"grad": a.grad, "b": b, "v": P.version(b)}


def exp_result_modified_fails_at_backward(P):
    x = P.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = x.exp()
    z.add_(P.s(1))
    return {"v": P.version(z), "backward": attempt(lambda: z.sum().backward())}


def saved_named_tensor_is_still_printed_nameless(P):
    w = P.tensor([1.0, 2.0, 3.0], requires_grad=True, name="w")
    h = w * 1
    h.name = "hidden"
    o = h * w
    h.add_(P.s(1))
    return {"backward": attempt(lambda: o.sum().backward())}


def mul_by_constant_then_add_is_fine(P):
    x = P.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.add_(P.s(1))
    y.sum().backward()
    return {"grad": x.grad, "y": y}


def non_scalar_backward_uses_ones(P):
    x = P.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.backward()
    return {"grad": x.grad}


def sin_inplace_gives_cos_gradients(P):
    x = P.tensor([0.1, 0.7, 1.3], requires_grad=True)
    y = x * 1
    y.sin_()
    y.sum().backward()
    return {"grad": x.grad, "y": y, "v": P.version(y),
            "expected": [math.cos(0.1), math.cos(0.7), math.cos(1.3)]}


def versions_shared_by_views_and_detach(P):
    x = P.tensor([[1.0, 2.0], [3.0, 4.0]])
    v = x[0]
    d = x.detach()
    v.add_(P.s(1))
    d.multiply_(P.s(2))
    c = x.clone()
    return {"versions": [P.version(x), P.version(v), P.version(d), P.version(c)], "x": x}


def setitem_on_non_leaf_bumps_and_keeps_grads(P):
    x = P.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 3
    y[0] = 0.0
    y.sum().backward()
    return {"grad": x.grad, "y": y, "v": P.version(y)}


PROGRAMS = [leaf_inplace_unnamed, leaf_inplace_named, leaf_setitem_unnamed_and_named,
            leaf_inplace_allowed_under_no_grad, view_of_leaf_inplace_is_silent,
            view_of_leaf_inplace_backprops_through_the_view, no_copyslices_rebase,
            exp_result_modified_fails_at_backward, saved_named_tensor_is_still_printed_nameless,
            mul_by_constant_then_add_is_fine, non_scalar_backward_uses_ones,
            sin_inplace_gives_cos_gradients, versions_shared_by_views_and_detach,
            setitem_on_non_leaf_bumps_and_keeps_grads]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_paddle_policy_matches_paddle(prog):
    compare_paddle(prog)


def test_failed_leaf_inplace_leaves_data_untouched_unlike_paddle():
    """A pinned, deliberate difference: Paddle 3.3.1 writes ``x.add_(1)`` into the leaf and
    only then raises (version not bumped); inplace_lab raises before writing anything."""
    from tests.differential.harness import IlPaddleAdapter, PaddleAdapter, run_paddle_program, to_numpy

    def prog(P):
        x = P.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return {"err": attempt(lambda: x.add_(P.s(1))), "x": to_numpy(x).tolist(),
                "v": P.version(x)}

    ref = run_paddle_program(prog, PaddleAdapter())
    got = run_paddle_program(prog, IlPaddleAdapter("paddle"))
    assert ref["x"] == [2.0, 3.0, 4.0] and ref["v"] == 0
    assert got["x"] == [1.0, 2.0, 3.0] and got["v"] == 0
    assert got["err"].message == ref["err"].message
