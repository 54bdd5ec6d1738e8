"""paddle.Tensor methods keep Paddle's signatures for the user, and the core's own code
(composites such as batched matmul, backward formulas such as bmm's) gets PyTorch's.

The core composes ops of tensor methods with PyTorch's signatures (``t.reshape(a, b, c)``,
``mat2.transpose(1, 2)``); on a paddle.Tensor those names take Paddle's (``reshape(shape)``,
``transpose(perm)``). While core code runs (``policy.core_calls``) the facade's methods
answer with the core's; before, a batched ``paddle.matmul`` and every ``paddle.bmm``
backward raised TypeError.
"""
import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
warnings.filterwarnings("ignore")

import inplace_lab.paddle as lab  # noqa: E402
from inplace_lab import policy  # noqa: E402
from inplace_lab.tensor import Tensor as Core  # noqa: E402

rng = np.random.default_rng(3)
X = rng.standard_normal((2, 3, 4)).astype(np.float32)
Y = rng.standard_normal((2, 4, 5)).astype(np.float32)


def _grads(L, f):
    x = L.to_tensor(X, stop_gradient=False)
    y = L.to_tensor(Y, stop_gradient=False)
    out = f(L, x, y)
    (out * out).sum().backward()
    return out.numpy(), x.grad.numpy(), y.grad.numpy()


@pytest.mark.parametrize("name,f", [
    ("bmm", lambda L, x, y: L.bmm(x, y)),
    ("matmul_batched", lambda L, x, y: L.matmul(x, y)),
    ("matmul_3d_2d", lambda L, x, y: L.matmul(x, y[0])),
    ("operator_matmul", lambda L, x, y: x @ y),
    ("baddbmm_via_einsum", lambda L, x, y: L.einsum("bij,bjk->bik", x, y)),
])
def test_core_code_on_paddle_tensors_matches_paddle(name, f):
    for p, q in zip(_grads(paddle, f), _grads(lab, f)):
        np.testing.assert_allclose(q, p, rtol=1e-5, atol=1e-5)


def test_the_user_still_gets_paddles_signatures():
    x = lab.to_tensor(X)
    assert list(x.transpose([2, 0, 1]).shape) == [4, 2, 3]
    assert list(x.reshape([6, 4]).shape) == [6, 4]
    assert list(x.unsqueeze([0, 1]).shape) == [1, 1, 2, 3, 4]
    assert x.size == 24  # a property, not PyTorch's method
    with pytest.raises(TypeError):
        x.transpose(1, 2)  # Paddle's transpose takes one perm
    with pytest.raises(AttributeError, match="has no attribute 'relu_'"):
        x.relu_  # noqa: B018  (hidden: Paddle has no Tensor.relu_)
    assert policy.core_calls[0] == 0


def test_a_failing_composite_leaves_core_calls_at_zero():
    with pytest.raises(RuntimeError, match="cannot be multiplied"):  # (inside the composite)
        Core.matmul(lab.ones([2, 3, 4]), lab.ones([5, 6]))
    with pytest.raises(ValueError, match="In operator matmul"):  # (Paddle's check, before it)
        lab.matmul(lab.ones([2, 3, 4]), lab.ones([5, 6]))
    assert policy.core_calls[0] == 0
    assert list(lab.ones([2, 3]).reshape([3, 2]).shape) == [3, 2]
