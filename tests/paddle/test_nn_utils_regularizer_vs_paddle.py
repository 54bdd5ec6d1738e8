"""paddle.nn.utils (clipping, parameters <-> vector) and paddle.regularizer against Paddle 3.3.1."""
from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
import inplace_lab.paddle as lab  # noqa: E402


def _linear(L):
    lin = L.nn.Linear(3, 2)
    lin.weight.set_value(np.arange(6, dtype=np.float32).reshape(3, 2) / 5 - 0.5)
    lin.bias.set_value(np.array([0.25, -0.75], np.float32))
    return lin


def test_parameters_to_vector_and_back():
    def run(L):
        lin = _linear(L)
        v = L.nn.utils.parameters_to_vector(lin.parameters())
        out = [v.numpy().tolist(), v.stop_gradient, v.is_leaf, list(lin.weight.shape)]
        L.nn.utils.vector_to_parameters(v * 2, lin.parameters())
        out += [lin.weight.numpy().tolist(), lin.bias.numpy().tolist()]
        try:
            L.nn.utils.vector_to_parameters(v[:3], lin.parameters())
        except ValueError as e:
            out.append(str(e))
        return out
    assert run(lab) == run(paddle)


def test_clip_functions_under_paddle_nn_utils():
    def run(L):
        lin = _linear(L)
        x = L.to_tensor(np.ones((4, 3), np.float32) * 3)
        (lin(x) ** 2).sum().backward()
        n = L.nn.utils.clip_grad_norm_(lin.parameters(), 1.0)
        g = lin.weight.grad.numpy().copy()
        L.nn.utils.clip_grad_value_(lin.parameters(), 0.1)
        return [round(float(n), 4), g.round(5).tolist(), lin.bias.grad.numpy().round(5).tolist()]
    assert run(lab) == run(paddle)


@pytest.mark.parametrize("decay", ["L1Decay", "L2Decay"])
def test_weight_decay_regularizers_in_an_optimizer(decay):
    def run(L):
        lin = _linear(L)
        reg = getattr(L.regularizer, decay)(0.1)
        opt = L.optimizer.SGD(learning_rate=0.5, parameters=lin.parameters(), weight_decay=reg)
        x = L.to_tensor(np.ones((4, 3), np.float32))
        for _ in range(2):
            lin(x).mean().backward()
            opt.step()
            opt.clear_grad()
        return [str(reg), lin.weight.numpy().round(5).tolist(), lin.bias.numpy().round(5).tolist()]
    assert run(lab) == run(paddle)
