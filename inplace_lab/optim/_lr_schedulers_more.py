"""ReduceLROnPlateau and OneCycleLR (``torch.optim.lr_scheduler``), PyTorch 2.13's arithmetic.

Kept apart from ``lr_scheduler.py`` only for size; they are exported from there.
"""
from __future__ import annotations

import math
import warnings

from .optimizer import Optimizer


class _Plateau:
    """ReduceLROnPlateau's body (the class, an LRScheduler, is in lr_scheduler.py): multiply
    lr by ``factor`` once the metric has not improved for ``patience`` steps."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        from .lr_scheduler import _group_vals

        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, "
                                 f"got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_vals(optimizer, "lr")
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def get_last_lr(self):
        return self._last_lr

    def step(self, metrics, epoch=None):
        from .lr_scheduler import EPOCH_DEPRECATION_WARNING, _group_vals

        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_vals(self.optimizer, "lr")

    def _reduce_lr(self, epoch):
        from .lr_scheduler import _set_group_val

        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    "The number of param groups in the `optimizer` "
                    f"({len(groups)}) differs from when `ReduceLROnPlateau` was initialized "
                    f"({len(self.min_lrs)}), usually due to a new param group being added to "
                    "the optimizer. Please modify the `min_lrs` field to match the length of "
                    "the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, g in enumerate(groups):
            old = float(g["lr"])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                _set_group_val(g, "lr", new)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold,
                             threshold_mode=self.threshold_mode)


def _one_cycle_base():
    from .lr_scheduler import LRScheduler

    return LRScheduler


def _phases(total, pct_start, three_phase):
    if three_phase:
        return [
            dict(end_step=float(pct_start * total) - 1, start_lr="initial_lr", end_lr="max_lr",
                 start_momentum="max_momentum", end_momentum="base_momentum"),
            dict(end_step=float(2 * pct_start * total) - 2, start_lr="max_lr",
                 end_lr="initial_lr", start_momentum="base_momentum",
                 end_momentum="max_momentum"),
            dict(end_step=total - 1, start_lr="initial_lr", end_lr="min_lr",
                 start_momentum="max_momentum", end_momentum="max_momentum"),
        ]
    return [
        dict(end_step=float(pct_start * total) - 1, start_lr="initial_lr", end_lr="max_lr",
             start_momentum="max_momentum", end_momentum="base_momentum"),
        dict(end_step=total - 1, start_lr="max_lr", end_lr="min_lr",
             start_momentum="base_momentum", end_momentum="max_momentum"),
    ]


def _one_cycle_init(self, optimizer, max_lr, total_steps, epochs, steps_per_epoch, pct_start,
                    anneal_strategy, cycle_momentum, base_momentum, max_momentum, div_factor,
                    final_div_factor, three_phase, last_epoch):
    from .lr_scheduler import _format_param

    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
    self.optimizer = optimizer
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        self.total_steps = total_steps
    elif epochs is not None and steps_per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError(
                f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
        self.total_steps = epochs * steps_per_epoch
    else:
        raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
    self._schedule_phases = _phases(self.total_steps, pct_start, three_phase)
    if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
        raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
    if anneal_strategy not in ["cos", "linear"]:
        raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                         f"{anneal_strategy}")
    self._anneal_func_type = anneal_strategy
    max_lrs = _format_param("max_lr", optimizer, max_lr)
    if last_epoch == -1:
        for idx, group in enumerate(optimizer.param_groups):
            group["initial_lr"] = max_lrs[idx] / div_factor
            group["max_lr"] = max_lrs[idx]
            group["min_lr"] = group["initial_lr"] / final_div_factor
    self.cycle_momentum = cycle_momentum
    if cycle_momentum:
        if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                             "option enabled")
        self.use_beta1 = "betas" in optimizer.defaults
        max_ms = _format_param("max_momentum", optimizer, max_momentum)
        base_ms = _format_param("base_momentum", optimizer, base_momentum)
        if last_epoch == -1:
            for m, b, group in zip(max_ms, base_ms, optimizer.param_groups, strict=True):
                if self.use_beta1:
                    group["betas"] = (m, *group["betas"][1:])
                else:
                    group["momentum"] = m
                group["max_momentum"] = m
                group["base_momentum"] = b


def _anneal(kind, start, end, pct):
    if kind == "cos":
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out
    return (end - start) * pct + start


def _one_cycle_get_lr(self):
    self._warn_outside_step()
    lrs, step_num = [], self.last_epoch
    if step_num > self.total_steps:
        raise ValueError(f"Tried to step {step_num} times. The specified number of total steps "
                         f"is {self.total_steps}")
    phases = self._schedule_phases
    for group in self.optimizer.param_groups:
        start_step = 0.0
        for i, ph in enumerate(phases):
            end_step = ph["end_step"]
            if step_num <= end_step or i == len(phases) - 1:
                pct = (step_num - start_step) / (end_step - start_step)
                lr = _anneal(self._anneal_func_type, group[ph["start_lr"]], group[ph["end_lr"]],
                             pct)
                if self.cycle_momentum:
                    mom = _anneal(self._anneal_func_type, group[ph["start_momentum"]],
                                  group[ph["end_momentum"]], pct)
                break
            start_step = ph["end_step"]
        lrs.append(lr)
        if self.cycle_momentum:
            if self.use_beta1:
                group["betas"] = (mom, *group["betas"][1:])
            else:
                group["momentum"] = mom
    return lrs


class _Cyclic:
    """CyclicLR's body (the class, an LRScheduler, is in lr_scheduler.py): lr bounces
    between ``base_lr`` and ``max_lr`` (triangular, triangular2, exp_range or a custom
    ``scale_fn``); momentum or beta1 cycles inversely when ``cycle_momentum``."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        from .lr_scheduler import _format_param, _set_group_val

        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _set_group_val(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for m, b, group in zip(self.max_momentums, self.base_momentums,
                                       optimizer.param_groups, strict=True):
                    if self.use_beta1:
                        group["betas"] = (m, *group["betas"][1:])
                    else:
                        group["momentum"] = m
                    group["max_momentum"] = m
                    group["base_momentum"] = b
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = _triangular
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = _triangular2
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            gamma = self.gamma
            self._scale_fn_ref = lambda x: gamma ** x
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    def get_lr(self):
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        arg = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [b + ((m - b) * scale_factor) * self.scale_fn(arg)
               for b, m in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            moms = [mx - ((mx - b) * scale_factor) * self.scale_fn(arg)
                    for b, mx in zip(self.base_momentums, self.max_momentums, strict=True)]
            for group, mom in zip(self.optimizer.param_groups, moms, strict=True):
                if self.use_beta1:
                    group["betas"] = (mom, *group["betas"][1:])
                else:
                    group["momentum"] = mom
        return lrs

    def state_dict(self):
        import types

        state = {k: v for k, v in self.__dict__.items() if k != "optimizer"}
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        fn = state_dict.pop("_scale_fn_custom")
        self.__dict__.update(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


def _triangular(x):
    return 1.0


def _triangular2(x):
    return 1 / (2.0 ** (x - 1))
