"""gradcheck and gradgradcheck: they accept right backward formulas and catch wrong ones.

The wrong ops are OpSpecs built here and called through the dispatcher directly: they are
never registered, so the op table the rest of the suite sees is untouched.
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab.autograd import gradcheck, gradgradcheck
from inplace_lab.autograd.gradcheck import GradcheckError
from inplace_lab.ops import dispatch
from inplace_lab.ops.table import OpSpec


def _square_fwd(xp, a, out=None, dt=None):
    return xp.multiply(a, a)


# d(x^2)/dx is 2x; this one says 3x
WRONG_SQUARE = OpSpec(name="wrong_square", forward=_square_fwd, saves=("self",),
                      backward=lambda c, g: g * 3 * c["self"], node_name="WrongSquareBackward0")
# right first derivative, but computed from a detached copy: its own derivative is lost
DETACHED_SQUARE = OpSpec(name="detached_square", forward=_square_fwd, saves=("self",),
                         backward=lambda c, g: g * 2 * c["self"].detach(),
                         node_name="DetachedSquareBackward0")
# right first derivative for the second argument only; the first gets nothing
WRONG_MUL = OpSpec(name="wrong_mul", args=("self", "other"), saves=("self", "other"),
                   forward=lambda xp, a, b, out=None, dt=None: xp.multiply(a, b),
                   backward=lambda c, g: (g * 0, g * c["self"]), node_name="WrongMulBackward0")


def _x(*shape, seed=0):
    return il.tensor(np.random.default_rng(seed).uniform(0.5, 1.5, shape), dtype=il.float64,
                     requires_grad=True)


def test_gradcheck_accepts_correct_backward_formulas():
    x, w = _x(3, 4), _x(4, 2, seed=1)
    assert gradcheck(lambda x, w: (x.exp() @ w).softmax(1), (x, w))
    assert gradcheck(lambda x: (x.sin(), x.sum(0)), (x,))


def test_gradcheck_catches_a_wrong_backward_and_names_input_and_worst_element():
    x = _x(2, 3)
    with pytest.raises(GradcheckError) as err:
        gradcheck(lambda x: dispatch.call(WRONG_SQUARE, (x,), {}), (x,))
    msg = str(err.value)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,")
    # the worst element is the largest x (difference x there); report it by its index
    i, j = np.unravel_index(np.argmax(x.detach().numpy()), (2, 3))
    assert f"d input 0[{i}, {j}]" in msg
    assert "numerical" in msg and "analytical" in msg


def test_gradcheck_names_the_input_whose_gradient_is_wrong():
    a, b = _x(3), _x(3, seed=1)
    with pytest.raises(GradcheckError, match="with respect to input 0,"):
        gradcheck(lambda a, b: dispatch.call(WRONG_MUL, (a, b), {}), (a, b))
    b_only = il.tensor([1.0, 2.0, 3.0], dtype=il.float64)
    assert gradcheck(lambda a, b: dispatch.call(WRONG_MUL, (b, a), {}), (a, b_only))


def test_gradcheck_returns_false_without_raise_exception():
    x = _x(3)
    assert gradcheck(lambda x: dispatch.call(WRONG_SQUARE, (x,), {}), (x,),
                     raise_exception=False) is False


def test_gradcheck_leaves_inputs_values_and_versions_untouched():
    x = _x(2, 2)
    before = x.detach().numpy().copy()
    gradcheck(lambda x: (x * x).sum(), (x,))
    assert np.array_equal(x.detach().numpy(), before)
    assert x._version == 0 and x.grad is None


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable():
    x = _x(3)
    assert gradcheck(lambda x: dispatch.call(DETACHED_SQUARE, (x,), {}), (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(lambda x: dispatch.call(DETACHED_SQUARE, (x,), {}), (x,))
    assert gradgradcheck(lambda x: x * x, (x,))


def test_gradcheck_requires_an_input_that_requires_grad():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda x: x * 2, (il.ones(2, dtype=il.float64),))


def test_gradcheck_warns_about_single_precision_inputs():
    x = il.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision floating point"):
        gradcheck(lambda x: x * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)


def test_gradcheck_accepts_a_single_tensor_as_inputs():
    assert gradcheck(lambda x: x.tanh(), _x(4))


def test_gradcheck_agrees_with_torch_on_the_same_function():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(5).standard_normal((3, 3))
    xt = torch.tensor(data, requires_grad=True)
    xi = il.tensor(data, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: x.logsumexp(1), (xt,)) == \
        gradcheck(lambda x: x.logsumexp(1), (xi,))
