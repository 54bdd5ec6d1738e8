"""SGD, Adam, AdamW, Adagrad, RMSprop: PyTorch 2.13's single-tensor algorithms, op for op.

Each update is the same sequence of in-place ops PyTorch runs (``buf.mul_(m).add_(g)``,
``exp_avg.lerp_(g, 1 - beta1)``, ``param.addcdiv_(exp_avg, denom, value=-step_size)``),
so values agree with torch to rounding and a trace shows which buffers are
overwritten each step (state tensors and the parameters themselves).
"""
from __future__ import annotations

import numpy

from .. import creation, hooks
from ..version import VersionCounter
from .optimizer import Optimizer, _step_tensor

_BLOCK = 32768  # elements per block of the blocked Adam update (a few arrays of it fit in L2)


def _plain_block_arrays(*ts):
    """The flat numpy arrays of ``ts`` when one blocked pass may replace the op sequence:
    no listener (a trace sees each op), plain CPU tensors of one floating dtype, dense
    C-contiguous, same size, distinct storages, ordinary version counters; else None."""
    if hooks.active:
        return None
    t0 = ts[0]
    dt, n = t0._dtype, t0.numel()
    if not dt.is_floating_point:
        return None
    seen, arrays = set(), []
    for t in ts:
        a = t._a
        if (t._pol is not None or t._dtype is not dt or type(t._vc) is not VersionCounter
                or type(a) is not numpy.ndarray or not a.flags.c_contiguous or a.size != n
                or id(t._storage) in seen):
            return None
        seen.add(id(t._storage))
        arrays.append(a.reshape(-1))
    return arrays


def _check(name, value, cond=lambda v: v >= 0.0):
    if not cond(value):
        raise ValueError(f"Invalid {name}: {value}")


def _check_fused(fused, foreach, differentiable):
    """torch's refusals of ``fused=True`` (the options are kept in the param groups, as
    torch's; the update is the single-tensor one whichever is asked, as torch's default on
    the CPU)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        _check("learning rate", lr)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))
        _check_fused(fused, foreach, differentiable)

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
        _add_(p, grad, -group["lr"])


def _add_(t, other, alpha):
    """``t.add_(other, alpha=alpha)``: the table's add kernel on the flat arrays when
    ``_plain_block_arrays`` allows it (the same bits: BLAS axpy, PyTorch's fused
    multiply-add), with the one version bump; the dispatcher's full path otherwise."""
    arrays = _plain_block_arrays(t, other) if t._shape == other._shape else None
    if arrays is None:
        return t.add_(other, alpha=alpha)
    from ..ops.table import OPS

    OPS["add"].forward(numpy, arrays[0], arrays[1], out=arrays[0], dt=t._dtype, alpha=alpha)
    t._vc.bump()
    return t


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check("learning rate", lr)
        _check("epsilon value", eps)
        _check("beta parameter at index 0", betas[0], lambda v: 0.0 <= v < 1.0)
        _check("beta parameter at index 1", betas[1], lambda v: 0.0 <= v < 1.0)
        _check("weight_decay value", weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))
        _check_fused(fused, foreach, differentiable)

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
            if group.get("decoupled_weight_decay", self._decoupled):
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        step = state["step"].item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        step_size = lr / bias_correction1
        if not group["amsgrad"]:
            arrays = _plain_block_arrays(p, grad, exp_avg, exp_avg_sq)
            if arrays is not None:
                _adam_blocks(arrays, p._dtype, beta1, beta2, bias_correction2_sqrt,
                             group["eps"], step_size)
                exp_avg._vc.bump()  # lerp_
                exp_avg_sq._vc.bump(2)  # mul_, addcmul_
                p._vc.bump()  # addcdiv_
                return
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        if group["amsgrad"]:
            mx = state["max_exp_avg_sq"]
            mx.copy_(mx.maximum(exp_avg_sq))
            denom = (mx.sqrt() / bias_correction2_sqrt).add_(group["eps"])
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(group["eps"])
        p.addcdiv_(exp_avg, denom, value=-step_size)


def _adam_blocks(arrays, dt, beta1, beta2, bias_correction2_sqrt, eps, step_size):
    """The update below (lerp_, mul_, addcmul_, sqrt, div, add_, addcdiv_) block by block.

    The very table kernels the ops run, on slices of the flat arrays: each element's
    arithmetic is the same (bit for bit), but a block's temporaries stay in cache instead
    of seven passes over the whole parameter (~3x faster on a 400k-element weight).
    """
    import numpy as np

    from ..ops.table import OPS

    lerp, mul, addcmul = OPS["lerp"].forward, OPS["mul"].forward, OPS["addcmul"].forward
    sqrt, div, add, addcdiv = (OPS["sqrt"].forward, OPS["div"].forward, OPS["add"].forward,
                               OPS["addcdiv"].forward)
    P, G, M, V = arrays
    w1, w2 = 1 - beta1, 1 - beta2
    for i in range(0, P.size, _BLOCK):
        s = slice(i, i + _BLOCK)
        p, g, m, v = P[s], G[s], M[s], V[s]
        lerp(np, m, g, w1, out=m, dt=dt)
        mul(np, v, beta2, out=v, dt=dt)
        addcmul(np, v, g, g, out=v, dt=dt, value=w2)
        denom = div(np, sqrt(np, v, out=None, dt=dt), bias_correction2_sqrt, out=None, dt=dt)
        add(np, denom, eps, out=denom, dt=dt)
        addcdiv(np, p, m, denom, out=p, dt=dt, value=-step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay: ``param.mul_(1 - lr * weight_decay)`` before the step."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused, decoupled_weight_decay=True)


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check("learning rate", lr)
        _check("lr_decay value", lr_decay)
        _check("weight_decay value", weight_decay)
        _check("initial_accumulator_value value", initial_accumulator_value)
        _check("epsilon value", eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        _check_fused(fused, foreach, differentiable)
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
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check("learning rate", lr)
        _check("epsilon value", eps)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        _check("alpha value", alpha)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))

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
