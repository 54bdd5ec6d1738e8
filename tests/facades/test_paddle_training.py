"""A tiny model trained the Paddle way (nn.Sequential, Linear, ReLU, MSELoss, optimizer.SGD /
Adam with ``learning_rate=``, ``parameters=``, ``clear_grad()``), step for step against
paddle 3.3.1: losses, parameters, gradients after clear_grad, and versions.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")

import inplace_lab.paddle as ip  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)

RNG = np.random.default_rng(0)
W1, B1 = RNG.standard_normal((3, 4)).astype("f4"), RNG.standard_normal(4).astype("f4")
W2, B2 = RNG.standard_normal((4, 1)).astype("f4"), RNG.standard_normal(1).astype("f4")
X, Y = RNG.standard_normal((8, 3)).astype("f4"), RNG.standard_normal((8, 1)).astype("f4")


def _train(lib, opt_name, steps=3, **opt_kw):
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 1))
    for layer, w, b in ((net[0], W1, B1), (net[2], W2, B2)):
        layer.weight.set_value(w)
        layer.bias.set_value(b)
    opt = getattr(lib.optimizer, opt_name)(learning_rate=0.05, parameters=net.parameters(),
                                           **opt_kw)
    loss_fn = lib.nn.MSELoss()
    losses = []
    for _ in range(steps):
        loss = loss_fn(net(lib.to_tensor(X)), lib.to_tensor(Y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    params = [np.array(p.numpy()) for p in net.parameters()]
    grads = [np.array(p.grad.numpy()) for p in net.parameters()]
    return losses, params, grads, [p._inplace_version() for p in net.parameters()]


@pytest.mark.parametrize("opt_name,kw", [("SGD", {}), ("SGD", {"weight_decay": 0.1}),
                                         ("Adam", {}), ("Adam", {"beta1": 0.8, "epsilon": 1e-6})])
def test_training_steps_match_paddle(opt_name, kw):
    want, got = _train(paddle, opt_name, **kw), _train(ip, opt_name, **kw)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    for g, w in zip(got[2], want[2]):  # clear_grad() zeroes the gradients, keeps them
        np.testing.assert_array_equal(g, w)
    assert got[3] == want[3] == [0, 0, 0, 0]  # paddle's optimizer does not bump parameters


def test_layers_print_and_name_parameters_as_paddle():
    nets = [lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 1))
            for lib in (paddle, ip)]
    assert repr(nets[1]) == repr(nets[0])
    assert [n for n, _ in nets[1].named_parameters()] == \
        [n for n, _ in nets[0].named_parameters()]
    assert nets[1][0].weight.name.endswith(".w_0") and nets[1][0].bias.name.endswith(".b_0")
    assert not nets[1][0].weight.stop_gradient and nets[1][0].weight.shape == [3, 4]


def test_optimizer_needs_parameters_as_paddle():
    for lib in (paddle, ip):
        with pytest.raises(AttributeError, match="parameters argument given to the Optimizer "
                                                 "should not be None in dygraph mode"):
            lib.optimizer.SGD(learning_rate=0.1)


def test_a_step_after_the_forward_is_not_caught_at_backward_as_in_paddle():
    """No version bump on step: a graph built before the step reads the updated weight."""
    out = []
    for lib in (paddle, ip):
        lin = lib.nn.Linear(2, 1)
        lin.weight.set_value(np.ones((2, 1), "f4"))
        opt = lib.optimizer.SGD(learning_rate=1.0, parameters=lin.parameters())
        x = lib.to_tensor(np.array([[1.0, 2.0]], "f4"), stop_gradient=False)
        y = lin(x)
        y.sum().backward(retain_graph=True)
        opt.step()
        x.clear_gradient()
        y.sum().backward()
        out.append(np.array(x.grad.numpy()))
    np.testing.assert_allclose(out[1], out[0])
