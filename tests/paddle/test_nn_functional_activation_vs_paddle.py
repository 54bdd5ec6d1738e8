"""paddle.nn.functional activations added on top of the op table, against real Paddle:
values, gradients, and the checks Paddle makes (random ones by structure)."""
from __future__ import annotations

import numpy as np
import pytest

from ._functional_harness import check, ilp, rand, same

X = rand(2, 4, 3, 2) * 2


@pytest.mark.parametrize("call", [
    lambda F, x: F.log_sigmoid(x), lambda F, x: F.logsigmoid(x), lambda F, x: F.softsign(x),
    lambda F, x: F.swish(x), lambda F, x: F.glu(x, axis=1), lambda F, x: F.glu(x),
    lambda F, x: F.swiglu(x), lambda F, x: F.swiglu(x, x * 2),
    lambda F, x: F.maxout(x, 2), lambda F, x: F.maxout(x, 2, axis=-1),
    lambda F, x: F.maxout(x, 4, axis=1), lambda F, x: F.rrelu(x, training=False),
    lambda F, x: F.rrelu(x, 0.2, 0.2),
])
def test_activation_matches_paddle(call):
    check(call, X)


@pytest.mark.parametrize("wshape,kw", [([1], {}), ([4], {}), ([2], {"data_format": "NHWC"}),
                                       ([], {})])
def test_prelu_matches_paddle(wshape, kw):
    check(lambda F, x, w: F.prelu(x, w, **kw), X, rand(*wshape, seed=3) * 0.5)


def test_rrelu_training_slopes_lie_between_lower_and_upper():
    x = ilp.to_tensor(-np.ones((1000,), "float32"), stop_gradient=False)
    y = ilp.nn.functional.rrelu(x, 0.1, 0.3)
    y.sum().backward()
    slopes = -y.numpy()
    assert (slopes >= 0.1).all() and (slopes <= 0.3).all() and slopes.std() > 0.03
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-6)


def test_gumbel_softmax_structure():
    x = ilp.to_tensor(rand(5, 6), stop_gradient=False)
    y = ilp.nn.functional.gumbel_softmax(x, temperature=0.5)
    np.testing.assert_allclose(y.numpy().sum(-1), 1, rtol=1e-5)
    h = ilp.nn.functional.gumbel_softmax(x, hard=True, axis=0)
    assert set(np.unique(h.numpy())) == {0.0, 1.0}
    assert (h.numpy().sum(0) == 1).all() and not h.stop_gradient
    (h * ilp.to_tensor(rand(5, 6, seed=2))).sum().backward()
    assert np.abs(x.grad.numpy()).sum() > 0


@pytest.mark.parametrize("call", [
    lambda F, x: F.maxout(x[0], 2), lambda F, x: F.maxout(x, 2, axis=2),
    lambda F, x: F.maxout(x, 3),
    lambda F, x: F.prelu(x, F_ones(F, [3])), lambda F, x: F.prelu(x, F_ones(F, [1, 1])),
    lambda F, x: F.prelu(x[0, 0, 0], F_ones(F, [2])),
    lambda F, x: F.prelu(x, F_ones(F, [4]), data_format="NX"),
    lambda F, x: F.rrelu(x, 0, 0.5), lambda F, x: F.rrelu(x, 0.6, 0.5),
    lambda F, x: F.rrelu(x, -0.1, 0.5), lambda F, x: F.rrelu(x, 0.1, 1.5),
    lambda F, x: F.glu(x, axis=2), lambda F, x: F.glu(x, axis=4),
    lambda F, x: F.swiglu(x[..., :1]), lambda F, x: F.gumbel_softmax(x, temperature=-1),
    lambda F, x: F.gumbel_softmax(x, axis=5), lambda F, x: F.log_sigmoid(x.astype("int64")),
])
def test_activation_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(X)))


def F_ones(F, shape):
    import paddle

    lib = paddle if F.__name__.startswith("paddle") else ilp
    return lib.to_tensor(np.ones(shape, "float32"))


def test_gelu_and_silu_take_paddles_arguments():
    """F.gelu(x, approximate) takes a bool or 'tanh'/'none' (an int is Paddle's TypeError, another
    string its ValueError); F.silu(x, inplace=True) writes x (leaf check, one bump)."""
    import paddle
    import inplace_lab.paddle as lab

    def run(L):
        F = L.nn.functional
        x = L.to_tensor([-1.5, 0.5, 2.0])
        out = [(F.gelu(x, a) * 1e4).round().numpy().tolist() for a in (True, False, "tanh", "none")]
        for bad in (1, "x"):
            try:
                F.gelu(x, bad)
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e).split("\n")[0].split(" (at ")[0]))
        a = L.to_tensor([1., 2.], stop_gradient=False)
        try:
            F.silu(a, inplace=True)
        except Exception as e:  # noqa: BLE001
            out.append(type(e).__mro__[-3].__name__)
        b = L.to_tensor([1., 2.], stop_gradient=False) * 1  # (Paddle wrote a before refusing it)
        r = F.silu(b, True)
        out.append((r is b, b.inplace_version, b.grad_fn.name(), (b * 1e4).round().numpy().tolist()))
        return out
    assert run(lab) == run(paddle)
