"""``paddle.optimizer.ASGD`` and ``Rprop``: Paddle's ``asgd_`` and ``rprop_`` kernels.

- ASGD (stochastic average gradient over ``batch_num`` slots): with ``m`` the step count
  before this step, ``i = m % batch_num``: ``d = d - y[i] + g``; ``y[i] = g``;
  ``m += 1``; ``p -= lr * d / min(m, batch_num)`` (g includes weight decay). Accumulators
  ``d``, ``y`` ([batch_num, *p.shape]) and ``m`` (int64 [1]).
- Rprop: per coordinate, ``g * prev > 0``: ``lr = min(lr * etas[1], range[1])``;
  ``< 0``: ``lr = max(lr * etas[0], range[0])`` and g counts as 0; ``p -= sign(g) * lr``;
  ``prev = g``. Accumulators ``prevs`` and ``learning_rates`` (filled with the initial
  rate: a scheduler or ``set_lr`` later changes nothing, as in Paddle).
"""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer


class ASGD(Optimizer):
    """``paddle.optimizer.ASGD(learning_rate=0.001, batch_num=1, parameters, weight_decay,
    grad_clip, multi_precision, name)``."""

    _acc_names = ("d", "y", "m")

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate should not be none")
        if batch_num is None:
            raise ValueError("batch_num should not be none")
        if not 0 < batch_num:
            raise ValueError("batch_num should be greater than 0")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = "asgd"
        self._multi_precision = multi_precision
        self._n = int(batch_num)

    def _update(self, p, value, grad, lr):
        d = self._acc(p, "d")
        ys = self._acc(p, "y", 0.0, [self._n, *value.shape])
        m = self._m(p)
        i = int(m[0]) % self._n
        d = d - ys[i] + grad
        ys[i] = grad
        m = m + 1
        n = min(int(m[0]), self._n)
        self._set_acc(p, "d", d)
        self._set_acc(p, "y", ys)
        self._accumulators[f"{p.name}_m_0"].set_value(m)
        return value - lr * d / value.dtype.type(n)

    def _m(self, p):
        from inplace_lab.paddle import to_tensor

        key = f"{p.name}_m_0"
        if key not in self._accumulators:
            self._accumulators[key] = to_tensor(np.zeros([1], np.int64))
        return np.array(self._accumulators[key].numpy())


class Rprop(Optimizer):
    """``paddle.optimizer.Rprop(learning_rate=0.001, learning_rate_range=(1e-5, 50),
    parameters, etas=(0.5, 1.2), grad_clip, multi_precision, name)``."""

    _acc_names = ("prevs", "learning_rates")

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if not 0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]:
            raise ValueError("'0.0 < learning_rate_range[0] <= learning_rate <= "
                             "learning_rate_range[1]' must be true")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("'0.0 < etas[0] < 1.0 < etas[1]' must be true")
        super().__init__(learning_rate, parameters, 0.0, grad_clip, name)
        self.type = "rprop"
        self._initial_learning_rate = learning_rate
        self._multi_precision = multi_precision
        self._learning_rate_range = [tuple(learning_rate_range)]
        self._etas = [tuple(etas)]

    def _update(self, p, value, grad, lr):
        dt = value.dtype.type
        prev = self._acc(p, "prevs")
        rates = self._acc(p, "learning_rates", float(self._initial_learning_rate))
        (lo, hi), (eta_neg, eta_pos) = self._learning_rate_range[0], self._etas[0]
        prod = grad * prev
        rates = np.where(prod > 0, np.minimum(rates * dt(eta_pos), dt(hi)),
                         np.where(prod < 0, np.maximum(rates * dt(eta_neg), dt(lo)), rates))
        grad = np.where(prod < 0, dt(0), grad)
        self._set_acc(p, "prevs", grad)
        self._set_acc(p, "learning_rates", rates)
        return value - np.sign(grad) * rates
