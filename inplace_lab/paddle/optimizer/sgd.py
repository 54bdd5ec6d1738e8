"""``paddle.optimizer.SGD`` and ``Momentum``: Paddle's plain and heavy-ball descent.

Momentum keeps a ``velocity`` accumulator: ``v = mu * v + g``, then ``p -= lr * v`` or,
with ``use_nesterov=True``, ``p -= lr * (g + mu * v)``. Its L2 decay (a float or
``L2Decay``) is folded into the kernel as Paddle does, *after* ``rescale_grad``:
``g = rescale_grad * g + coeff * p`` (other regularizers go through the base class).
"""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer


def _is_l2(decay) -> bool:
    return isinstance(decay, (int, float)) or type(decay).__name__ == "L2Decay"


def _l2_coeff(decay) -> float:
    return float(decay) if isinstance(decay, (int, float)) else float(decay._coeff)


class SGD(Optimizer):
    """``paddle.optimizer.SGD``: ``p -= lr * g`` (no accumulator, an empty state_dict)."""

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _update(self, p, value, grad, lr):
        return value - lr * grad


class Momentum(Optimizer):
    """``paddle.optimizer.Momentum`` with a ``velocity`` accumulator per parameter."""

    _acc_names = ("velocity",)

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0,
                 use_multi_tensor=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if momentum is None:
            raise ValueError("momentum is not set")
        if isinstance(weight_decay, int):
            weight_decay = float(weight_decay)
        l2 = _is_l2(weight_decay)
        if isinstance(parameters, list) and parameters and isinstance(parameters[0], dict):
            for group in parameters:  # a group's L2 decay goes to the kernel, as Paddle's
                decay = group.get("weight_decay", weight_decay)
                group["regularization_coeff"] = _l2_coeff(decay) if _is_l2(decay) else 0.0
                group["weight_decay"] = None if _is_l2(decay) else decay
        super().__init__(learning_rate, parameters, None if l2 else weight_decay, grad_clip, name)
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = float(rescale_grad)
        self._regularization_coeff = _l2_coeff(weight_decay) if l2 else 0.0

    def _update(self, p, value, grad, lr):
        grad = np.float32(self._rescale_grad) * grad
        if self._regularization_coeff and getattr(p, "regularizer", None) is None:
            grad = grad + np.float32(self._regularization_coeff) * value
        mu = np.float32(self._momentum)
        v = mu * self._acc(p, "velocity") + grad
        self._set_acc(p, "velocity", v)
        if self._use_nesterov:
            return value - (grad + mu * v) * lr
        return value - lr * v
