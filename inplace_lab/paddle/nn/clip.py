"""``paddle.nn.ClipGradByValue``, ``ClipGradByNorm``, ``ClipGradByGlobalNorm`` (optimizer
``grad_clip=``) and the in-place ``clip_grad_norm_`` / ``clip_grad_value_`` of ``paddle.nn.utils``.

A clip object is called by the optimizer with ``[(param, grad), ...]`` and returns the
gradients to use. As in Paddle's dygraph clip, by-value and by-norm build *new* tensors
(``param.grad`` keeps its values) while by-global-norm multiplies ``param.grad`` in place
(its values change and its inplace_version moves by one).
Parameters with ``need_clip = False`` pass through. The formulas, as Paddle's kernels:

- by value: ``clip(g, min, max)`` (``min`` defaults to ``-max``);
- by norm, per tensor: ``g * clip_norm / ||g||`` when ``||g|| > clip_norm``;
- by global norm: ``g * clip_norm / max(sqrt(sum ||g_i||^2), clip_norm)``.

``clip_grad_norm_`` and ``clip_grad_value_`` instead rewrite ``p.grad`` in place (its
inplace_version moves, as Paddle's ``multiply_`` / ``clip_``).
"""
from __future__ import annotations

import numpy as np

from inplace_lab.autograd import no_grad

__all__ = ["ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm"]


def _new_grad(g, values):
    from inplace_lab.paddle import to_tensor

    return to_tensor(values.astype(np.array(g.numpy()).dtype, copy=False))


def _clipped(p) -> bool:
    return getattr(p, "need_clip", True) is not False


class ClipGradBase:
    """What an optimizer's ``grad_clip`` must be (Paddle's ``GradientClipBase``)."""

    def __str__(self):
        raise NotImplementedError

    def __call__(self, params_grads):
        with no_grad():  # Paddle's _dygraph_clip runs under no_grad (in-place grad writes)
            return self._dygraph_clip(params_grads)

    def _dygraph_clip(self, params_grads):
        raise NotImplementedError


GradientClipBase = ClipGradBase


class ClipGradByValue(ClipGradBase):
    """``ClipGradByValue(max, min=None)``: every gradient element into ``[min, max]``."""

    def __init__(self, max: float, min: float | None = None) -> None:
        if min is None:
            assert max > 0.0
            min = -max
        self.max, self.min = float(max), float(min)

    def __str__(self) -> str:
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _dygraph_clip(self, params_grads):
        return [(p, g if not _clipped(p) else
                 _new_grad(g, np.clip(np.array(g.numpy()), self.min, self.max)))
                for p, g in params_grads if g is not None]


class ClipGradByNorm(ClipGradBase):
    """``ClipGradByNorm(clip_norm)``: each gradient's own L2 norm down to ``clip_norm``."""

    def __init__(self, clip_norm: float) -> None:
        self.clip_norm = float(clip_norm)

    def __str__(self) -> str:
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _dygraph_clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            if _clipped(p):
                a = np.array(g.numpy())
                norm = np.sqrt(np.sum(a * a, dtype=a.dtype))
                g = _new_grad(g, a * (np.float32(self.clip_norm) / norm) if norm > self.clip_norm
                              else a)
            out.append((p, g))
        return out


class ClipGradByGlobalNorm(ClipGradBase):
    """``ClipGradByGlobalNorm(clip_norm, group_name, auto_skip_clip)``: one scale for all."""

    def __init__(self, clip_norm: float, group_name: str = "default_group",
                 auto_skip_clip: bool = False) -> None:
        self.clip_norm = float(clip_norm)
        self.group_name = group_name
        assert isinstance(auto_skip_clip, bool)
        self.auto_skip_clip = auto_skip_clip

    def __str__(self) -> str:
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _dygraph_clip(self, params_grads):
        arrays = [np.array(g.numpy()) for p, g in params_grads if g is not None and _clipped(p)]
        if not arrays:
            return params_grads
        norm = np.sqrt(np.float32(sum(np.sum(a * a, dtype=np.float32) for a in arrays)))
        max_norm = np.float32(self.clip_norm)
        if self.auto_skip_clip and not norm > max_norm:
            return [(p, g) for p, g in params_grads if g is not None]
        scale = max_norm / np.maximum(norm, max_norm)
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            if _clipped(p):  # Paddle's dygraph clip multiplies the grad in place here
                g.multiply_(_new_grad(g, np.asarray(scale)))
            out.append((p, g))
        return out


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """``paddle.nn.utils.clip_grad_norm_``: scale every grad in place by
    ``min(max_norm / (total_norm + 1e-6), 1)``; returns the total norm."""
    from inplace_lab.paddle import to_tensor
    from inplace_lab.tensor import Tensor

    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    support = [float("inf"), 0, 1, 2]
    if norm_type not in support:
        raise ValueError(f"norm_type only support {support}")
    grads = [np.array(p.grad.numpy()) for p in parameters if p.grad is not None]
    if not grads:
        return to_tensor(0.0)
    norm_type = float(norm_type)
    if norm_type == float("inf"):
        total = np.max([np.abs(g).max() for g in grads]).astype(grads[0].dtype)
    elif norm_type == 0:
        total = np.float32(np.count_nonzero([np.count_nonzero(g) for g in grads]))
    else:
        norms = np.array([np.sum(np.abs(g) ** norm_type) ** (1 / norm_type) for g in grads])
        total = (np.sum(np.abs(norms) ** norm_type) ** (1 / norm_type)).astype(grads[0].dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of {norm_type} order of the gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. In any case, "
                           "disable this error and scale the gradient by non-finite norm, set "
                           "`error_if_nonfinite=False`")
    coef = min(np.float32(max_norm) / (total + np.float32(1e-6)), np.float32(1.0))
    for p in parameters:
        if p.grad is not None:
            p.grad.multiply_(to_tensor(np.asarray(coef, dtype=np.array(p.grad.numpy()).dtype)))
    return to_tensor(total)


@no_grad()
def clip_grad_value_(parameters, clip_value):
    """``paddle.nn.utils.clip_grad_value_``: clip every grad in place into ``[-v, v]``."""
    from inplace_lab.tensor import Tensor

    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        if p.grad is not None:
            p.grad.clip_(min=-clip_value, max=clip_value)
