"""``paddle.optimizer.RMSProp``, ``Adagrad``, ``Adadelta``: per-coordinate step sizes.

Paddle's formulas (its CPU kernels), which differ from PyTorch's in where epsilon goes:

- RMSProp: ``ms = rho*ms + (1-rho)*g^2``; ``mom = momentum*mom + lr*g/sqrt(ms + eps)``
  (centered: ``sqrt(ms - mg^2 + eps)`` with ``mg = rho*mg + (1-rho)*g``); ``p -= mom``.
- Adagrad: ``moment += g^2``; ``p -= lr * g / (sqrt(moment) + eps)``.
- Adadelta: ``asg = rho*asg + (1-rho)*g^2``; ``u = -sqrt((asu+eps)/(asg+eps)) * g``;
  ``asu = rho*asu + (1-rho)*u^2``; ``p += lr * u``.
"""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer


class RMSProp(Optimizer):
    """``paddle.optimizer.RMSProp`` (accumulators momentum, mean_square, mean_grad)."""

    _acc_names = ("momentum", "mean_square", "mean_grad")

    def __init__(self, learning_rate, rho=0.95, epsilon=1.0e-6, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        for what, v in (("learning_rate", learning_rate), ("rho", rho), ("epsilon", epsilon),
                        ("momentum", momentum)):
            if v is None:
                raise ValueError(f"{what} is not set.")
        if not 0.0 <= epsilon:
            raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")
        if not 0.0 <= momentum:
            raise ValueError("Invalid value of momentum, expect momentum >= 0.")
        if not 0.0 <= rho:
            raise ValueError("Invalid value of rho, expect rho >= 0.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._rho, self._epsilon = np.float32(rho), np.float32(epsilon)
        self._momentum, self._centered = np.float32(momentum), centered

    def _update(self, p, value, grad, lr):
        rho, eps = self._rho, self._epsilon
        mom, ms, mg = (self._acc(p, a) for a in ("momentum", "mean_square", "mean_grad"))
        ms = rho * ms + (1 - rho) * grad * grad
        if self._centered:
            mg = rho * mg + (1 - rho) * grad
            mom = self._momentum * mom + lr * grad / np.sqrt(ms - mg * mg + eps)
        else:
            mom = self._momentum * mom + lr * grad / np.sqrt(ms + eps)
        for a, v in (("momentum", mom), ("mean_square", ms), ("mean_grad", mg)):
            self._set_acc(p, a, v)
        return value - mom


class Adagrad(Optimizer):
    """``paddle.optimizer.Adagrad`` (accumulator moment, filled with initial_accumulator_value)."""

    _acc_names = ("moment",)

    def __init__(self, learning_rate, epsilon=1.0e-6, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon = np.float32(epsilon)
        self._initial = float(initial_accumulator_value)

    def _update(self, p, value, grad, lr):
        moment = self._acc(p, "moment", self._initial) + grad * grad
        self._set_acc(p, "moment", moment)
        return value - lr * grad / (np.sqrt(moment) + self._epsilon)


class Adadelta(Optimizer):
    """``paddle.optimizer.Adadelta`` (accumulators _avg_squared_grad, _avg_squared_update)."""

    _acc_names = ("_avg_squared_grad", "_avg_squared_update")

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if epsilon is None:
            raise ValueError("epsilon is not set.")
        if rho is None:
            raise ValueError("rho is not set.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon, self._rho = np.float32(epsilon), np.float32(rho)

    def _update(self, p, value, grad, lr):
        rho, eps = self._rho, self._epsilon
        asg = rho * self._acc(p, "_avg_squared_grad") + (1 - rho) * grad * grad
        asu = self._acc(p, "_avg_squared_update")
        update = -np.sqrt((asu + eps) / (asg + eps)) * grad
        self._set_acc(p, "_avg_squared_grad", asg)
        self._set_acc(p, "_avg_squared_update", rho * asu + (1 - rho) * update * update)
        return value + lr * update
