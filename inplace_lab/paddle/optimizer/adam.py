"""``paddle.optimizer.Adam``, ``AdamW``, ``Adamax``: Paddle's bias-corrected moments.

Paddle keeps the bias corrections as accumulators ``beta1_pow_acc`` / ``beta2_pow_acc``
(shape ``[1]``, starting *at* beta, multiplied after each update) and scales epsilon:
``lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t)``; ``p -= lr_t * m / (sqrt(v) + eps * sqrt(1 - b2^t))``.
AdamW first decays the parameter, decoupled from the gradient: ``p *= 1 - lr * coeff``
(skipped for names ``apply_decay_param_fun`` rejects). Adamax:
``u = max(b2 * u + eps, |g|)``; ``p -= lr / (1 - b1^t) * m / u``.
"""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer


def _check_betas(beta1, beta2, epsilon):
    if not 0 <= beta1 < 1:
        raise ValueError("Invalid value of beta1, expect beta1 in [0,1).")
    if not 0 <= beta2 < 1:
        raise ValueError("Invalid value of beta2, expect beta2 in [0,1).")
    if not 0 <= epsilon:
        raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")


class Adam(Optimizer):
    """``paddle.optimizer.Adam`` (moment1, moment2, beta1_pow_acc, beta2_pow_acc)."""

    _acc_names = ("moment1", "moment2", "moment2_max", "beta1_pow_acc", "beta2_pow_acc")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, use_multi_tensor=False, amsgrad=False, name=None):
        _check_betas(beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2 = np.float32(beta1), np.float32(beta2)
        self._epsilon, self._amsgrad = np.float32(epsilon), amsgrad

    def _update(self, p, value, grad, lr):
        b1, b2 = self._beta1, self._beta2
        b1p, b2p = self._acc(p, "beta1_pow_acc", b1, [1]), self._acc(p, "beta2_pow_acc", b2, [1])
        m1 = b1 * self._acc(p, "moment1") + (1 - b1) * grad
        m2 = b2 * self._acc(p, "moment2") + (1 - b2) * grad * grad
        self._set_acc(p, "moment1", m1)
        self._set_acc(p, "moment2", m2)
        if self._amsgrad:
            m2 = np.maximum(self._acc(p, "moment2_max"), m2)
            self._set_acc(p, "moment2_max", m2)
        lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
        new = value - lr_t * (m1 / (np.sqrt(m2) + self._epsilon * np.sqrt(1 - b2p)))
        self._set_acc(p, "beta1_pow_acc", b1p * b1)
        self._set_acc(p, "beta2_pow_acc", b2p * b2)
        return new


class AdamW(Adam):
    """``paddle.optimizer.AdamW``: Adam after a decoupled decay ``p *= 1 - lr * coeff``."""

    _group_decays_parameters = False

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=0.01, use_lowprecision_moment=False,
                 lr_ratio=None, apply_decay_param_fun=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, amsgrad=False, name=None):
        _check_betas(beta1, beta2, epsilon)
        if not isinstance(weight_decay, (int, float)):
            raise TypeError("weight_decay should be int, float or Tensor.")
        if lr_ratio is not None:
            raise NotImplementedError("'lr_ratio' is unimplemented in CPU.")
        self._coeff = float(weight_decay)  # before the groups are read
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, False, amsgrad, name)
        self._apply_decay_param_fun = apply_decay_param_fun

    def _update(self, p, value, grad, lr):
        fun = self._apply_decay_param_fun
        if fun is None or fun(p.name):
            value = value * (1 - lr * np.float32(self._coeff))
        return super()._update(p, value, grad, lr)


class Adamax(Optimizer):
    """``paddle.optimizer.Adamax`` (moment, inf_norm, beta1_pow_acc)."""

    _acc_names = ("moment", "inf_norm", "beta1_pow_acc")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        _check_betas(beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2 = np.float32(beta1), np.float32(beta2)
        self._epsilon = np.float32(epsilon)

    def _update(self, p, value, grad, lr):
        b1, b2 = self._beta1, self._beta2
        b1p = self._acc(p, "beta1_pow_acc", b1, [1])
        m = b1 * self._acc(p, "moment") + (1 - b1) * grad
        u = np.maximum(b2 * self._acc(p, "inf_norm") + self._epsilon, np.abs(grad))
        self._set_acc(p, "moment", m)
        self._set_acc(p, "inf_norm", u)
        self._set_acc(p, "beta1_pow_acc", b1p * b1)
        return value - (lr / (1 - b1p)) * m / u
