"""Paddle's cyclic and one-cycle schedulers (``paddle.optimizer.lr``), ported from Paddle 3.3.1.

Kept apart from ``lr.py`` only for length; import them from ``paddle.optimizer.lr``.
"""

from __future__ import annotations

import math

from .lr import LRScheduler


class OneCycleLR(LRScheduler):
    """Up from ``max/divide_factor`` to ``max`` then down to ``end_learning_rate`` (cos or linear)."""

    def __init__(
        self,
        max_learning_rate,
        total_steps,
        divide_factor=25.0,
        end_learning_rate=0.0001,
        phase_pct=0.3,
        anneal_strategy="cos",
        three_phase=False,
        last_epoch=-1,
        verbose=False,
    ):
        if not isinstance(max_learning_rate, (float, int)):
            raise TypeError(
                f"'max_learning_rate' must be 'float' or 'int', but received {type(max_learning_rate)}"
            )
        if max_learning_rate < 0:
            raise ValueError("'max_learning_rate' must be a positive integer.")
        if not isinstance(end_learning_rate, (float, int)):
            raise TypeError(
                f"'end_learning_rate' must be 'float' or 'int', but received {type(end_learning_rate)}"
            )
        if end_learning_rate < 0:
            raise ValueError("'end_learning_rate' must be a positive integer.")
        if not isinstance(total_steps, int):
            raise TypeError(f"'total_step' must be 'int', but received {type(total_steps)}")
        if total_steps <= 0:
            raise ValueError("'total_step' must be a positive integer.")
        self.total_steps = total_steps
        if not isinstance(phase_pct, float):
            raise TypeError(f"'phase_pct' must be 'float', but received {type(phase_pct)}")
        if phase_pct < 0 or phase_pct > 1:
            raise ValueError(f"'phase_pct' must be between 0 and 1, but received {phase_pct}")
        if not isinstance(divide_factor, (float, int)):
            raise TypeError(
                f"'divide_factor' must be 'float' or 'int', but received {type(divide_factor)}"
            )
        initial_lr = max_learning_rate / float(divide_factor)
        min_lr = float(end_learning_rate)
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError("When three_phase is True, 'phase_pct' must be less than 0.5")
            self._step_config = [
                0,
                phase_pct * self.total_steps - 1,
                2 * phase_pct * self.total_steps - 2,
                self.total_steps - 1,
                self.total_steps - 1,
            ]
            self._steps_size = [
                self._step_config[1] - self._step_config[0],
                self._step_config[2] - self._step_config[1],
                self._step_config[3] - self._step_config[2],
                self._step_config[3] - self._step_config[2],
            ]
            self._lr_config = [initial_lr, max_learning_rate, initial_lr, min_lr]
        else:
            self._step_config = [
                0,
                phase_pct * self.total_steps - 1,
                self.total_steps - 1,
                self.total_steps - 1,
            ]
            self._steps_size = [
                self._step_config[1] - self._step_config[0],
                self._step_config[2] - self._step_config[1],
                self._step_config[2] - self._step_config[1],
            ]
            self._lr_config = [initial_lr, max_learning_rate, min_lr]
        if anneal_strategy == "cos":
            self.anneal_func = self._cos_annealing
        elif anneal_strategy == "linear":
            self.anneal_func = self._linear_annealing
        else:
            raise ValueError(
                f"'anneal_strategy' must by one of 'cos' or 'linear', but received {anneal_strategy}"
            )
        super().__init__(initial_lr, last_epoch, verbose)

    def _cos_annealing(self, start_lr, end_lr, pct):
        cos_out = math.cos(math.pi * pct) + 1
        return end_lr + (start_lr - end_lr) / 2.0 * cos_out

    def _linear_annealing(self, start_lr, end_lr, pct):
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        current_step = self.last_epoch
        if current_step > self.total_steps:
            raise ValueError(
                f"Tried to step {current_step} times. However the number of total steps is {self.total_steps}"
            )
        for i, (end_step, step_size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if current_step <= end_step or i == len(self._lr_config) - 2:
                percentage = (current_step - self._step_config[i]) / step_size
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1], percentage)


class CyclicLR(LRScheduler):
    """Triangular cycles between ``base`` and ``max`` (``triangular2``, ``exp_range`` scale them)."""

    def __init__(
        self,
        base_learning_rate,
        max_learning_rate,
        step_size_up,
        step_size_down=None,
        mode="triangular",
        exp_gamma=1.0,
        scale_fn=None,
        scale_mode="cycle",
        last_epoch=-1,
        verbose=False,
    ):
        if not isinstance(max_learning_rate, (float, int)):
            raise TypeError(
                f"'max_learning_rate' must be 'float' or 'int', but received {type(max_learning_rate)}"
            )
        if max_learning_rate < 0:
            raise ValueError(
                f"'max_learning_rate' must be a positive integer, but received {max_learning_rate}"
            )
        if not isinstance(step_size_up, int):
            raise TypeError(
                f"The type of 'step_size_up' must be int, but received {type(step_size_up)}"
            )
        if step_size_up <= 0:
            raise ValueError(
                f"'step_size_up' must be a positive integer, but received {step_size_up}"
            )
        if step_size_down is not None:
            if not isinstance(step_size_down, int):
                raise TypeError(
                    f"The type of 'step_size_down' must be int, but received {type(step_size_down)}"
                )
            if step_size_down <= 0:
                raise ValueError(
                    f"'step_size_down' must be a positive integer, but received {step_size_down}"
                )
        if not isinstance(exp_gamma, float):
            raise TypeError(
                f"The type of 'exp_gamma' must be float, but received {type(exp_gamma)}"
            )
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.cycle_size = step_size_up + step_size_down
        self.step_up_pct = step_size_up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError(
                "'mode' is invalid and 'scale_fn' is not specified, make sure one of 'mode' or 'scale_fn' is valid"
            )
        if scale_mode not in ["cycle", "iterations"]:
            raise ValueError("'scale_mode' must be one of 'cycle' or 'iterations")
        self.mode = mode
        self.gamma = exp_gamma
        if scale_fn is None:
            if self.mode == "triangular":
                self.scale_fn = self._triangular_scale_fn
                self.scale_mode = "cycle"
            elif self.mode == "triangular2":
                self.scale_fn = self._triangular2_scale_fn
                self.scale_mode = "cycle"
            elif self.mode == "exp_range":
                self.scale_fn = self._exp_range_scale_fn
                self.scale_mode = "iterations"
        else:
            self.scale_fn = scale_fn
            self.scale_mode = scale_mode
        super().__init__(base_learning_rate, last_epoch, verbose)

    def _triangular_scale_fn(self, x):
        return 1.0

    def _triangular2_scale_fn(self, x):
        return 1 / 2.0 ** (x - 1)

    def _exp_range_scale_fn(self, x):
        return self.gamma**x

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct_per_cycle = 1.0 + iterations / self.cycle_size - cycle
        if pct_per_cycle <= self.step_up_pct:
            scale_factor = pct_per_cycle / self.step_up_pct
        else:
            scale_factor = (1 - pct_per_cycle) / (1 - self.step_up_pct)
        base_height = self.amplitude * scale_factor
        lr = self.base_lr + base_height * self.scale_fn(
            cycle if self.scale_mode == "cycle" else iterations
        )
        return lr


class LinearLR(LRScheduler):
    """``lr * factor``, the factor moving linearly ``start_factor -> end_factor`` over ``total_steps``."""

    def __init__(
        self,
        learning_rate,
        total_steps,
        start_factor=1.0 / 3,
        end_factor=1.0,
        last_epoch=-1,
        verbose=False,
    ):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                f"`start_factor` must be greater than 0 and less or equal to 1, but got {start_factor}"
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(
                f"`end_factor` must be greater than 0 and less than 1, but got {end_factor}"
            )
        if total_steps <= 0:
            raise ValueError(f"`total_steps` must be greater than 0, but got {total_steps}")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        elif self.last_epoch > self.total_steps:
            return self.last_lr
        else:
            base_lr = self.total_steps * self.start_factor
            cur_factor = self.end_factor - self.start_factor
            factor = 1.0 + cur_factor / (base_lr + (self.last_epoch - 1) * cur_factor)
            return self.last_lr * factor


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` steps, ``T_i`` growing by ``T_mult``."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return (
            self.eta_min
            + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        )

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(
                f"Epoch {self.last_epoch}: {self.__class__.__name__} set learning rate to {self.last_lr}."
            )
