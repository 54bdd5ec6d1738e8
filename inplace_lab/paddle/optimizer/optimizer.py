"""``paddle.optimizer.Optimizer``: the step loop every Paddle optimizer shares.

A step, as Paddle's ``apply_gradients`` runs it: collect ``(param, grad)`` for trainable
parameters that have a gradient, clip them (``grad_clip``), add the weight-decay term
(``weight_decay`` float -> ``L2Decay``: ``g + coeff * p``; ``L1Decay``: ``g + coeff * sign(p)``),
then let the subclass's ``_update`` compute the new value from numpy copies of the
parameter, the gradient and its accumulators.

Why numpy instead of the core ``inplace_lab.optim``: Paddle's formulas differ from
PyTorch's in the places that matter for bit-level comparison (epsilon scaled by
``sqrt(1 - beta2^t)`` in Adam, Adadelta's learning rate, Momentum's velocity, RMSProp's
epsilon inside the square root), and one observable effect must be kept to the letter:
Paddle's optimizer kernels write parameters *out of band*, so ``inplace_version`` does not
move on a step (a graph saved before the step does not notice the new values). The new
value is written with ``set_value``, which is that out-of-band write.

Accumulators are keyed like Paddle's ``state_dict``: ``f"{param.name}_{acc}_0"``.

>>> import inplace_lab.paddle as paddle
>>> lin = paddle.nn.Linear(3, 1)
>>> opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
>>> lin(paddle.ones([2, 3])).sum().backward(); opt.step()
>>> lin.weight.inplace_version
0
"""
from __future__ import annotations

import numpy as np

from inplace_lab.autograd import no_grad

from .lr import LRScheduler


def _is_tensor(x) -> bool:
    from inplace_lab.tensor import Tensor

    return isinstance(x, Tensor)


class Optimizer:
    """Base class: parameters, learning rate (float or ``LRScheduler``), decay, clipping."""

    _acc_names: tuple = ()  # accumulator names in Paddle's state_dict order

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        if parameters is not None:
            if _is_tensor(parameters):
                raise TypeError("`parameters` argument given to the optimizer should be an "
                                "iterable of paddle Tensors, but got argument type is "
                                f"`{type(parameters)}`.")
            if isinstance(parameters, dict):
                raise TypeError("`parameters` argument should not get dict type, if parameter "
                                "groups is needed, please set `parameters` as list of dict")
            parameters = list(parameters)
        if parameters is None:
            raise AttributeError("parameters argument given to the Optimizer should not be None "
                                 "in dygraph mode.")
        if not isinstance(learning_rate, (float, LRScheduler)):
            raise TypeError("learning rate should be float or LRScheduler, got "
                            f"{type(learning_rate)} here")
        from inplace_lab.paddle.nn.clip import GradientClipBase

        if grad_clip is not None and not isinstance(grad_clip, GradientClipBase):
            raise TypeError("'grad_clip' should be an instance of GradientClipBase's derived "
                            "class")
        self._learning_rate = learning_rate
        self._parameter_list = parameters
        self._name = name
        self._grad_clip = grad_clip
        self.regularization = float(weight_decay) if isinstance(weight_decay, int) \
            else weight_decay
        self._accumulators: dict = {}  # f"{param.name}_{acc}_0" -> paddle Tensor
        self._param_groups: list = []
        self._group_of: dict = {}  # id(param) -> its group dict (parameter groups only)
        if parameters and isinstance(parameters[0], dict):
            for group in parameters:
                self._add_param_group(group)
            self._parameter_list = [p for g in self._param_groups for p in g["params"]]

    def _add_param_group(self, group: dict) -> None:
        """Paddle's parameter groups: a group's ``learning_rate`` becomes each parameter's
        ``optimize_attr['learning_rate']`` (a scale on the global rate) and its
        ``weight_decay`` the parameter's ``regularizer``; other keys (``beta1``, ``epsilon``,
        ``momentum``...) override the optimizer's value while its parameters update."""
        from inplace_lab.tensor import Tensor

        params = group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters should be in ordered collections,but "
                            "received set, please use list instead.")
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        seen = {id(p) for g in self._param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        for p in group["params"]:
            if self._group_decays_parameters:
                p.regularizer = group.get("weight_decay", self.regularization)
            p.optimize_attr["learning_rate"] = group.get("learning_rate", 1.0)
            self._group_of[id(p)] = group
        self._param_groups.append(group)

    _group_decays_parameters = True  # AdamW reads a group's weight_decay as its coeff

    def _overrides(self, p) -> dict:
        """``{attribute: value}`` that p's parameter group sets for its update."""
        group = self._group_of.get(id(p))
        if group is None:
            return {}
        out = {}
        for key, value in group.items():
            if key in ("params", "learning_rate") or (key == "weight_decay"
                                                      and self._group_decays_parameters):
                continue
            attr = "_coeff" if key == "weight_decay" else f"_{key}"
            if hasattr(self, attr):
                out[attr] = np.float32(value) if isinstance(value, float) else value
        return out

    # ---- learning rate ----------------------------------------------------------------------
    def get_lr(self) -> float:
        """The current rate: the float given, or the scheduler's current value."""
        lr = self._learning_rate
        return float(lr()) if isinstance(lr, LRScheduler) else float(lr)

    def set_lr(self, value: float) -> None:
        if not isinstance(value, (int, float)):
            raise TypeError("The type of 'value' in optimizer.set_lr must be float, but "
                            f"received {type(value)}.")
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("optimizer's learning rate can't be LRScheduler when invoke "
                               "this API, because this will lead to conflict.")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler) -> None:
        if not isinstance(scheduler, LRScheduler):
            raise TypeError("The type of 'scheduler' in optimizer.set_lr_scheduler must be "
                            f"LRScheduler, but received {type(scheduler)}.")
        self._learning_rate = scheduler

    # ---- the step ---------------------------------------------------------------------------
    def step(self) -> None:
        """Clip, decay, update: every parameter is rewritten without a version bump."""
        params_grads = [(p, p.grad) for p in self._parameter_list
                        if not p.stop_gradient and p.grad is not None]
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        lr = np.float32(self.get_lr())
        with no_grad():
            for p, g in params_grads:
                value = np.array(p.numpy())
                grad = self._regularize(p, value, np.array(g.numpy()))
                scale = getattr(p, "optimize_attr", None) or {}
                p_lr = lr * np.float32(scale.get("learning_rate", 1.0))  # ParamAttr / group
                saved = {a: getattr(self, a) for a in self._overrides(p)}
                try:
                    self.__dict__.update(self._overrides(p))
                    new = self._update(p, value, grad, p_lr)
                finally:
                    self.__dict__.update(saved)
                p.set_value(new.astype(value.dtype, copy=False))

    def _regularize(self, p, value, grad):
        """Paddle's ``append_regularization_ops``: a parameter's own regularizer wins."""
        reg = getattr(p, "regularizer", None)
        reg = self.regularization if reg is None else reg
        if reg is None:
            return grad
        if isinstance(reg, float):
            return grad + np.float32(reg) * value
        coeff = np.float32(getattr(reg, "_coeff", getattr(reg, "coeff", 0.0)))
        if type(reg).__name__ == "L1Decay":
            return grad + coeff * np.sign(value)
        return grad + coeff * value

    def _update(self, p, value, grad, lr):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _acc(self, p, acc, init=0.0, shape=None):
        """A numpy copy of the accumulator ``acc`` of ``p`` (filled with ``init`` at first)."""
        return np.array(self._acc_tensor(p, acc, init, shape).numpy())

    def _acc_tensor(self, p, acc, init=0.0, shape=None):
        from inplace_lab.paddle import to_tensor

        key = f"{p.name}_{acc}_0"
        if key not in self._accumulators:
            dtype = np.array(p.numpy()).dtype
            self._accumulators[key] = to_tensor(np.full(p.shape if shape is None else shape,
                                                        init, dtype))
        return self._accumulators[key]

    def _set_acc(self, p, acc, value) -> None:
        """Write the accumulator out of band, as Paddle's kernels: the tensor a state_dict
        handed out sees the new values and its inplace_version does not move."""
        t = self._acc_tensor(p, acc, 0.0, np.shape(value))
        t.set_value(np.asarray(value).astype(np.array(p.numpy()).dtype, copy=False))

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Dygraph ``minimize``: apply the gradients already computed by ``loss.backward()``."""
        self.step()
        return None, [(p, p.grad) for p in self._parameter_list if p.grad is not None]

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Zero every gradient in place (``set_to_zero=False``: drop them, grad becomes None)."""
        for p in self._parameter_list:
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    clear_gradients = clear_grad

    def zero_grad(self, set_to_none: bool = True) -> None:
        """``zero_grad``: ``clear_grad(set_to_zero=not set_to_none)`` (Paddle's)."""
        self.clear_grad(set_to_zero=not set_to_none)

    # ---- state dicts ------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """The live accumulator tensors under Paddle's names (later steps show in them, as in
        Paddle); the scheduler's state under ``LR_Scheduler``."""
        order = {n: i for i, n in enumerate(self._acc_names)}
        params = {p.name: i for i, p in enumerate(self._parameter_list)}

        def rank(key):  # Paddle lists accumulator by accumulator, parameters in order
            name, acc = next(((p, key[len(p) + 1:-2]) for p in params if key.startswith(p + "_")),
                             ("", key))
            return order.get(acc, len(order)), params.get(name, 0)

        state = {k: self._accumulators[k] for k in sorted(self._accumulators, key=rank)}
        if isinstance(self._learning_rate, LRScheduler):
            state["LR_Scheduler"] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        if isinstance(self._learning_rate, LRScheduler) and "LR_Scheduler" in state_dict:
            self._learning_rate.set_state_dict(state_dict["LR_Scheduler"])
        from inplace_lab.paddle import to_tensor

        for k, v in state_dict.items():
            if k == "LR_Scheduler":
                continue
            value = np.array(v.numpy() if hasattr(v, "numpy") else v)
            if k in self._accumulators:  # copied into the existing tensor, as Paddle's
                self._accumulators[k].set_value(value)
            else:
                self._accumulators[k] = to_tensor(value)
