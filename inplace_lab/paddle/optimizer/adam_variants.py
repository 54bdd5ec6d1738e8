"""``paddle.optimizer.NAdam`` and ``RAdam``: Adam with Nesterov momentum / rectified variance.

Unlike Adam, Paddle keeps their powers as *per-element* accumulators shaped like the
parameter, starting at 1 (``beta2_pow``, ``momentum_decay_pow``, ``mu_product`` ...).

NAdam (``t`` the step): ``mu_t = b1 * (1 - 0.5 * 0.96^(t * psi))``;
``m_hat = mu_{t+1} m / (1 - prod_{i<=t+1} mu_i) + (1 - mu_t) g / (1 - prod_{i<=t} mu_i)``;
``p -= lr * m_hat / (sqrt(v / (1 - b2^t)) + eps)``.
RAdam: ``rho_t = rho_inf - 2 t b2^t / (1 - b2^t)`` (the fraction kept as a float32 recurrence,
as Paddle's kernel, so the rounding matches); above 5 the step is rectified
(``r_t``, ``l_t``), otherwise it is plain momentum ``p -= lr * m / (1 - b1^t)``.
"""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer


def _check(learning_rate, epsilon, beta1, beta2):
    if isinstance(learning_rate, (float, int)) and not 0.0 <= learning_rate:
        raise ValueError(f"Invalid learning rate: {learning_rate}, expect learning_rate >= 0.")
    if not 0.0 <= epsilon:
        raise ValueError(f"Invalid epsilon value: {epsilon}, expect epsilon >= 0.")
    if not 0.0 <= beta1 < 1.0:
        raise ValueError(f"Invalid beta1: {beta1}, expect 0. <= beta1 < 1.0.")
    if not 0.0 <= beta2 < 1.0:
        raise ValueError(f"Invalid beta2: {beta2}, expect 0. <= beta2 < 1.0.")


class NAdam(Optimizer):
    """``paddle.optimizer.NAdam`` (momentum_decay_pow, beta2_pow, mu_product, moment1/2)."""

    _acc_names = ("momentum_decay_pow", "beta2_pow", "mu_product", "moment1", "moment2")

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        _check(learning_rate, epsilon, beta1, beta2)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}, expect "
                             "momentum_decay >= 0.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2 = np.float32(beta1), np.float32(beta2)
        self._epsilon, self._psi = np.float32(epsilon), np.float32(momentum_decay)

    def _update(self, p, value, grad, lr):
        b1, b2, decay = self._beta1, self._beta2, np.float32(0.96) ** self._psi
        mdp = self._acc(p, "momentum_decay_pow", 1.0) * decay
        b2p = self._acc(p, "beta2_pow", 1.0) * b2
        mu_t = b1 * (1 - np.float32(0.5) * mdp)
        mu_t1 = b1 * (1 - np.float32(0.5) * mdp * decay)
        mu_prod = self._acc(p, "mu_product", 1.0) * mu_t
        m1 = b1 * self._acc(p, "moment1") + (1 - b1) * grad
        m2 = b2 * self._acc(p, "moment2") + (1 - b2) * grad * grad
        for a, v in (("momentum_decay_pow", mdp), ("beta2_pow", b2p), ("mu_product", mu_prod),
                     ("moment1", m1), ("moment2", m2)):
            self._set_acc(p, a, v)
        m_hat = mu_t1 * m1 / (1 - mu_prod * mu_t1) + (1 - mu_t) * grad / (1 - mu_prod)
        return value - lr * m_hat / (np.sqrt(m2 / (1 - b2p)) + self._epsilon)


class RAdam(Optimizer):
    """``paddle.optimizer.RAdam`` (beta1_pow, beta2_pow, rho, moment1, moment2)."""

    _acc_names = ("beta1_pow", "beta2_pow", "rho", "moment1", "moment2")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        _check(learning_rate, epsilon, beta1, beta2)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2 = np.float32(beta1), np.float32(beta2)
        self._epsilon = np.float32(epsilon)

    def _update(self, p, value, grad, lr):
        b1, b2 = self._beta1, self._beta2
        b1p = self._acc(p, "beta1_pow", 1.0) * b1
        b2p = self._acc(p, "beta2_pow", 1.0) * b2
        m1 = b1 * self._acc(p, "moment1") + (1 - b1) * grad
        m2 = b2 * self._acc(p, "moment2") + (1 - b2) * grad * grad
        rho_inf = np.float32(2) / (1 - b2) - 1
        # Paddle's kernel keeps t * b2^t / (1 - b2^t) as a recurrence in the "rho" accumulator
        # (from 1) and reads the scalar rho_t off its first element.
        acc = (self._acc(p, "rho", 1.0) * (b2 - b2p) + b2p) / (1 - b2p)
        for a, v in (("beta1_pow", b1p), ("beta2_pow", b2p), ("rho", acc), ("moment1", m1),
                     ("moment2", m2)):
            self._set_acc(p, a, v)
        m_hat = m1 / (1 - b1p)
        rho = rho_inf - 2 * acc.flat[0]
        if not rho > 5:
            return value - lr * m_hat
        r = np.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
        ell = np.sqrt(1 - b2p) / (np.sqrt(m2) + self._epsilon)
        return value - lr * m_hat * r * ell
