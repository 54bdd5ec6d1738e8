"""``paddle.optimizer.Lamb``: Adam's direction, rescaled per parameter by a trust ratio.

``r = m_hat / (sqrt(v_hat) + eps) + lamb_weight_decay * p``, then
``p -= lr * (||p|| / ||r||) * r`` (the ratio is 1 when either norm is 0). The beta powers
start at beta, shape ``[1]``, as Adam's. Parameters that ``exclude_from_weight_decay_fn``
selects get no decay; with no decay the ratio is still applied unless Paddle's
``always_adapt=False`` turns it off (see ``_update``).
"""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer


class Lamb(Optimizer):
    """``paddle.optimizer.Lamb`` (moment1, moment2, beta1_pow_acc, beta2_pow_acc)."""

    _acc_names = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, multi_precision=False, always_adapt=False,
                 name=None):
        assert learning_rate is not None
        assert beta1 is not None
        assert beta2 is not None
        assert epsilon is not None
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._beta1, self._beta2 = np.float32(beta1), np.float32(beta2)
        self._epsilon = np.float32(epsilon)
        self._lamb_weight_decay = lamb_weight_decay
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        self.always_adapt = always_adapt

    def _update(self, p, value, grad, lr):
        fun = self._exclude_from_weight_decay_fn
        decay = np.float32(0.0 if fun is not None and fun(p) else self._lamb_weight_decay)
        b1, b2 = self._beta1, self._beta2
        b1p, b2p = self._acc(p, "beta1_pow_acc", b1, [1]), self._acc(p, "beta2_pow_acc", b2, [1])
        m1 = b1 * self._acc(p, "moment1") + (1 - b1) * grad
        m2 = b2 * self._acc(p, "moment2") + (1 - b2) * grad * grad
        for a, v in (("moment1", m1), ("moment2", m2), ("beta1_pow_acc", b1p * b1),
                     ("beta2_pow_acc", b2p * b2)):
            self._set_acc(p, a, v)
        r = (m1 / (1 - b1p)) / (np.sqrt(m2 / (1 - b2p)) + self._epsilon) + decay * value
        ratio = np.float32(1.0)
        if decay != 0 or self.always_adapt:
            p_norm, r_norm = np.sqrt(np.sum(value * value)), np.sqrt(np.sum(r * r))
            if p_norm > 0 and r_norm > 0:
                ratio = p_norm / r_norm
        return value - lr * ratio * r
