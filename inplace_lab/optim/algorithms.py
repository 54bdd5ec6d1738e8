"""SGD, Adam, AdamW, Adagrad, RMSprop: PyTorch 2.13's single-tensor algorithms, op for op.

Each update is the same sequence of in-place ops PyTorch runs (``buf.mul_(m).add_(g)``,
``exp_avg.lerp_(g, 1 - beta1)``, ``param.addcdiv_(exp_avg, denom, value=-step_size)``),
so values agree with torch to rounding and a trace shows which buffers are
overwritten each step (state tensors and the parameters themselves).
"""
from __future__ import annotations

from .. import creation
from .optimizer import Optimizer, _step_tensor


def _check(name, value, cond=lambda v: v >= 0.0):
    if not cond(value):
        raise ValueError(f"Invalid {name}: {value}")


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False):
        _check("learning rate", lr)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))

    def _update(self, p, grad, group, state):
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        m = group["momentum"]
        if m != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = grad.clone().detach()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(m).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=m) if group["nesterov"] else buf
        p.add_(grad, alpha=-group["lr"])


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, maximize=False):
        _check("learning rate", lr)
        _check("epsilon value", eps)
        _check("beta parameter at index 0", betas[0], lambda v: 0.0 <= v < 1.0)
        _check("beta parameter at index 1", betas[1], lambda v: 0.0 <= v < 1.0)
        _check("weight_decay value", weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))

    def _update(self, p, grad, group, state):
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = _step_tensor(p)
            state["exp_avg"] = creation.zeros_like(p)
            state["exp_avg_sq"] = creation.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = creation.zeros_like(p)
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        state["step"].add_(1)
        if wd != 0:
            if self._decoupled:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = state["step"].item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        step_size = lr / bias_correction1
        if group["amsgrad"]:
            mx = state["max_exp_avg_sq"]
            mx.copy_(mx.maximum(exp_avg_sq))
            denom = (mx.sqrt() / bias_correction2_sqrt).add_(group["eps"])
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(group["eps"])
        p.addcdiv_(exp_avg, denom, value=-step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay: ``param.mul_(1 - lr * weight_decay)`` before the step."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, *, maximize=False):
        _check("learning rate", lr)
        _check("lr_decay value", lr_decay)
        _check("weight_decay value", weight_decay)
        _check("initial_accumulator_value value", initial_accumulator_value)
        _check("epsilon value", eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      eps=eps, maximize=maximize))
        for g in self.param_groups:  # torch creates Adagrad's state eagerly
            for p in g["params"]:
                self.state[p]["step"] = _step_tensor(p)
                self.state[p]["sum"] = creation.full_like(p, g["initial_accumulator_value"])

    def _update(self, p, grad, group, state):
        if group["maximize"]:
            grad = -grad
        state["step"].add_(1)
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt().add_(group["eps"])
        p.addcdiv_(grad, std, value=-clr)


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, *, maximize=False):
        _check("learning rate", lr)
        _check("epsilon value", eps)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        _check("alpha value", alpha)
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                                      momentum=momentum, centered=centered, maximize=maximize))

    def _update(self, p, grad, group, state):
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = _step_tensor(p)
            state["square_avg"] = creation.zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = creation.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = creation.zeros_like(p)
        state["step"].add_(1)
        alpha = group["alpha"]
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        sq = state["square_avg"]
        sq.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            ga = state["grad_avg"]
            ga.lerp_(grad, 1 - alpha)
            avg = sq.addcmul(ga, ga, value=-1).sqrt_()
        else:
            avg = sq.sqrt()
        avg = avg.add_(group["eps"])
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(group["momentum"]).addcdiv_(grad, avg)
            p.add_(buf, alpha=-group["lr"])
        else:
            p.addcdiv_(grad, avg, value=-group["lr"])
