"""``torch.optim.lr_scheduler``: PyTorch 2.13's schedulers, formula for formula.

A scheduler rewrites ``param_group["lr"]`` of an inplace_lab optimizer. ``step()`` uses
torch's *chainable* form (the new lr is computed from the group's current lr, so
schedulers compose); ``step(epoch)`` uses the *closed* form from ``base_lrs`` where torch
has one. The float expressions are torch's own, in torch's order, so the lr sequence is
the same floats, not merely close. ``state_dict()`` is every attribute but the optimizer.
"""
from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from functools import wraps
from weakref import ref

from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
           "LinearLR", "ExponentialLR", "SequentialLR", "PolynomialLR", "CosineAnnealingLR",
           "ChainedScheduler", "ReduceLROnPlateau", "OneCycleLR", "CosineAnnealingWarmRestarts",
           "CyclicLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _format_param(name, optimizer, param):
    """One value per param group (a list of the right length, or a scalar repeated)."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(param)} values, param_groups has "
                f"{len(optimizer.param_groups)}.")
    else:
        param = [param] * len(optimizer.param_groups)
    return [p.clone() if isinstance(p, Tensor) else p for p in param]


def _group_vals(optimizer, key):
    return [g[key].clone() if isinstance(g[key], Tensor) else g[key]
            for g in optimizer.param_groups]


def _set_group_val(group, key, val):
    """A tensor lr is filled in place (its identity is kept, as torch does); a float replaced."""
    if isinstance(group[key], Tensor):
        group[key].fill_(val.item() if isinstance(val, Tensor) else val)
    else:
        group[key] = val


class LRScheduler:
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                lr = group["lr"]
                group.setdefault("initial_lr", lr.clone() if isinstance(lr, Tensor) else lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run "
                        "(not recommended)")
        self.base_lrs = _group_vals(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._patch_optimizer_step()
        self._initial_step()

    def _patch_optimizer_step(self):
        """Wrap ``optimizer.step`` to record that it ran (for torch's order warning)."""
        opt = self.optimizer
        if hasattr(opt.step, "_wrapped_by_lr_sched"):
            return
        opt_ref, func = ref(opt), opt.step.__func__

        @wraps(func)
        def wrapper(*args, **kwargs):
            o = opt_ref()
            o._opt_called = True
            return func.__get__(o, o.__class__)(*args, **kwargs)

        wrapper._wrapped_by_lr_sched = True
        opt.step = wrapper

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        return self._last_lr

    def get_lr(self):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def step(self, epoch=None):
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    "schedule. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_val(group, "lr", lr)
        self._last_lr = _group_vals(self.optimizer, "lr")

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, "
                          "please use `get_last_lr()`.", UserWarning, stacklevel=3)


_LRScheduler = LRScheduler


def _lambdas(optimizer, lr_lambda):
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, "
                         f"but got {len(lr_lambda)}")
    return list(lr_lambda)


class _LambdaState:
    """state_dict keeps a callable object's ``__dict__`` (plain functions are not saved)."""

    def state_dict(self):
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        sd["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                            for fn in self.lr_lambdas]
        return sd

    def load_state_dict(self, state_dict):
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas
        for idx, fn in enumerate(lr_lambdas):
            if fn is not None:
                self.lr_lambdas[idx].__dict__.update(fn)


class LambdaLR(_LambdaState, LRScheduler):
    """lr = base_lr * lr_lambda(epoch)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [base_lr * lmbda(self.last_epoch)
                for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """lr = lr * lr_lambda(epoch) at every step after the first."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * lmbda(self.last_epoch)
                for lmbda, g in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]


class StepLR(LRScheduler):
    """lr *= gamma every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr *= gamma at each milestone (a repeated milestone multiplies repeatedly)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(milestones, self.last_epoch)
                for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr = base_lr * factor until ``total_iters``, then base_lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for b in self.base_lrs]


class LinearLR(LRScheduler):
    """lr factor goes linearly from ``start_factor`` to ``end_factor`` over ``total_iters``."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * (1.0 + (self.end_factor - self.start_factor)
                           / (self.total_iters * self.start_factor
                              + (self.last_epoch - 1) * (self.end_factor - self.start_factor)))
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * (self.start_factor + (self.end_factor - self.start_factor)
                     * min(self.total_iters, self.last_epoch) / self.total_iters)
                for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr *= gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr decays as (1 - t/total_iters) ** power."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_vals(self.optimizer, "lr")
        decay = ((1.0 - self.last_epoch / self.total_iters)
                 / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [g["lr"] * decay for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine from base_lr down to ``eta_min`` over ``T_max`` epochs (torch's recursive form)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _group_vals(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (b - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for b in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [g["lr"] + (b - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for b, g in zip(self.base_lrs, groups, strict=True)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (g["lr"] - self.eta_min) + self.eta_min for g in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (b - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]


def _check_composable(owner, optimizer, schedulers):
    name = type(owner).__name__
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, "
                f"but got one at index {i} in the given schedulers sequence.")
        if optimizer != s.optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but "
                f"got scheduler {type(s).__name__} at index {i} has {s.optimizer}, "
                f"which is different from {type(optimizer).__name__}.")


class _Composite:
    def state_dict(self):
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict):
        scheds = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = scheds
        for s, sd in zip(self._schedulers, scheds):
            s.load_state_dict(sd)


class SequentialLR(_Composite, LRScheduler):
    """One scheduler after another, switching at ``milestones``."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, "
                             "but got no scheduler.")
        _check_composable(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            _set_group_val(group, "lr", group["initial_lr"])
        self._undo(self)
        idx = bisect_right(milestones, 0)
        schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def _undo(self, sched):
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                self._undo(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    recursive_undo = _undo

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            s._update_lr(0)
        else:
            s.step()
        self._last_lr = s.get_last_lr()


class ChainedScheduler(_Composite, LRScheduler):
    """Step every scheduler in turn each step (their chainable forms multiply)."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be "
                             "chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_composable(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_vals(schedulers[-1].optimizer, "lr")

    def step(self):
        for s in self._schedulers:
            s.step()
        self._last_lr = _group_vals(self._schedulers[-1].optimizer, "lr")


from ._lr_schedulers_more import _Cyclic, _Plateau  # noqa: E402
from ._lr_schedulers_more import _one_cycle_get_lr, _one_cycle_init  # noqa: E402


class ReduceLROnPlateau(_Plateau, LRScheduler):
    """An LRScheduler (as in torch) whose ``step(metrics)`` replaces the epoch-driven step."""


class CyclicLR(_Cyclic, LRScheduler):
    """Cyclical learning rates (Smith 2017); see ``_Cyclic``."""


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up to ``max_lr``, anneal to ``initial_lr / final_div_factor``
    (momentum or beta1 cycles the other way when ``cycle_momentum``)."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        _one_cycle_init(self, optimizer, max_lr, total_steps, epochs, steps_per_epoch, pct_start,
                        anneal_strategy, cycle_momentum, base_momentum, max_momentum,
                        div_factor, final_div_factor, three_phase, last_epoch)
        super().__init__(optimizer, last_epoch)

    get_lr = _one_cycle_get_lr


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` epochs (``T_i`` grows by ``T_mult``);
    ``step(epoch)`` may take a fractional epoch (torch's SGDR bookkeeping)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i))
                / 2 for b in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_val(group, "lr", lr)
        self._last_lr = _group_vals(self.optimizer, "lr")
