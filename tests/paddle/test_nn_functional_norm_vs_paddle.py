"""paddle.nn.functional normalisations against real Paddle: values, gradients of input,
weight and bias, running statistics (Paddle's momentum and biased variance), layouts and
error messages."""
from __future__ import annotations

import numpy as np
import pytest

from ._functional_harness import check, paddle, ilp, rand, same

X = rand(4, 3, 5) * 2 + 1
W3, B3 = rand(3, seed=1), rand(3, seed=2)


@pytest.mark.parametrize("kw", [{"training": True}, {"training": False},
                                {"training": True, "use_global_stats": True},
                                {"training": False, "use_global_stats": False},
                                {"training": True, "momentum": 0.5, "epsilon": 1e-3}])
def test_batch_norm_output_gradients_and_running_stats(kw):
    def fn(pd):
        x = pd.to_tensor(X, stop_gradient=False)
        w = pd.to_tensor(W3, stop_gradient=False)
        b = pd.to_tensor(B3, stop_gradient=False)
        rm, rv = pd.to_tensor(np.full(3, 0.5, "float32")), pd.to_tensor(np.full(3, 2., "float32"))
        y = pd.nn.functional.batch_norm(x, rm, rv, w, b, **kw)
        if kw == {"training": False, "use_global_stats": False}:
            # Paddle's backward here (is_test with batch statistics) is not the derivative of
            # its forward; compare the forward and the running statistics only.
            return [y, rm, rv, pd.to_tensor(rm.inplace_version)]
        (y * pd.to_tensor(rand(4, 3, 5, seed=9))).sum().backward()
        return [y, x.grad, w.grad, b.grad, rm, rv, pd.to_tensor(rm.inplace_version)]

    same(fn, rtol=1e-4)


def test_batch_norm_channel_last_and_2d():
    check(lambda F, x, w, b: F.batch_norm(x, F_t(F, np.zeros(5)), F_t(F, np.ones(5)), w, b,
                                          training=True, data_format="NLC"),
          X, rand(5, seed=1), rand(5, seed=2), rtol=1e-4)
    check(lambda F, x: F.batch_norm(x, F_t(F, np.zeros(3)), F_t(F, np.ones(3)), training=True,
                                    data_format="NC"), X[:, :, 0].copy(), rtol=1e-4)


@pytest.mark.parametrize("shape,wshape", [([5], [5]), ([3, 5], [15]),
                                          (5, None)])
def test_layer_norm_matches_paddle(shape, wshape):
    if wshape is None:
        check(lambda F, x: F.layer_norm(x, shape, epsilon=1e-3), X, rtol=1e-4)
        return
    check(lambda F, x, w, b: F.layer_norm(x, shape, w, b), X, rand(*wshape, seed=1),
          rand(*wshape, seed=2), rtol=1e-4)


def test_group_and_instance_norm_match_paddle():
    x = rand(2, 6, 3, 2) * 3
    check(lambda F, x, w, b: F.group_norm(x, 3, 1e-5, w, b), x, rand(6, seed=1), rand(6, seed=2),
          rtol=1e-4)
    check(lambda F, x, w, b: F.group_norm(x, 2, w, b), x, rand(6, seed=1), rand(6, seed=2),
          rtol=1e-4)  # PyTorch's argument order, accepted by Paddle 3.3.1
    check(lambda F, x, w: F.group_norm(x, 2, weight=w, data_format="NHWC"), x,
          rand(2, seed=1), rtol=1e-4)
    check(lambda F, x, w, b: F.instance_norm(x, weight=w, bias=b, eps=1e-3), x, rand(6, seed=1),
          rand(6, seed=2), rtol=1e-4)


def test_local_response_norm_and_normalize_match_paddle():
    x = rand(2, 5, 3, 2)
    check(lambda F, x: F.local_response_norm(x, 3, alpha=0.1), x, rtol=1e-4)
    check(lambda F, x: F.local_response_norm(x, 4, beta=0.5, k=2., data_format="NHWC"), x,
          rtol=1e-4)
    check(lambda F, x: F.local_response_norm(x[:, :, 0], 2), x)
    check(lambda F, x: F.normalize(x), x)
    check(lambda F, x: F.normalize(x, p=1, axis=-1), x)
    check(lambda F, x: F.normalize(x, p=3, axis=2), x, rtol=1e-4)
    # (where epsilon clamps the norm, Paddle 3.3.1's gradient is wrong: numerically checked)


@pytest.mark.parametrize("call", [
    lambda F, x: F.batch_norm(x, F_t(F, np.zeros(3)), F_t(F, np.ones(3)), data_format="NCX"),
    lambda F, x: F.batch_norm(x, F_t(F, np.zeros(3)), F_t(F, np.ones(3)), data_format="NLC"),
    # (Paddle 3.3.1 does not check batch_norm's weight size: it reads past the end)
    lambda F, x: F.batch_norm(x[0, 0], F_t(F, np.zeros(3)), F_t(F, np.ones(3))),
    lambda F, x: F.layer_norm(x, [3, 4]),
    lambda F, x: F.layer_norm(x, 4),
    lambda F, x: F.layer_norm(x, "5"),
    lambda F, x: F.layer_norm(x, [3, 5], weight=F_t(F, np.ones([3, 5]))),
    lambda F, x: F.layer_norm(x, [5], bias=F_t(F, np.ones([4]))),
    lambda F, x: F.group_norm(x, 2),
    lambda F, x: F.group_norm(x, 3, data_format="NCX"),
    lambda F, x: F.group_norm(x, 3, weight=F_t(F, np.ones(2))),
    lambda F, x: F.instance_norm(x, weight=F_t(F, np.ones(2))),
    lambda F, x: F.local_response_norm(x[0], 3),
    lambda F, x: F.local_response_norm(x, 3, data_format="NCX"),
    lambda F, x: F.normalize(x, axis=5),
])
def test_norm_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(X)))


def F_t(F, array):
    lib = paddle if F.__name__.startswith("paddle") else ilp
    return lib.to_tensor(np.asarray(array, "float32"))
