"""``torch.nn.utils.clip_grad``: gradient clipping, PyTorch 2.13's way.

Clipping writes the gradients *in place*, so the version counters move exactly as torch's
do on CPU: ``clip_grad_norm_`` is one ``mul_`` per gradient (even when the coefficient
clamps to 1.0); ``clip_grad_value_`` is ``clamp_min_`` then ``clamp_max_`` (two bumps,
torch's foreach path, the default on CPU) or one ``clamp_`` with ``foreach=False``.
"""
from __future__ import annotations

import types
import warnings

from ...autograd import no_grad
from ...tensor import Tensor


def _as_list(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the per-tensor norms (as if all tensors were one vector), a 0-dim tensor."""
    import inplace_lab as il
    from ...ops.linalg_norm import vector_norm

    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    with no_grad():
        if not tensors:
            return il.tensor(0.0)
        first = tensors[0].device
        norms = [vector_norm(t, norm_type).to(first) for t in tensors]
        total = vector_norm(il.stack(norms), norm_type)
        if error_if_nonfinite and bool((total.isnan() | total.isinf()).item()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from "
                "`parameters` is non-finite, so it cannot be clipped. To disable "
                "this error and scale the gradients by the non-finite norm anyway, "
                "set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """``grad.mul_(min(max_norm / (total_norm + 1e-6), 1))`` for every gradient, in place."""
    import inplace_lab as il

    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        coef = il.clamp(max_norm / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients so their joint ``norm_type``-norm is at most ``max_norm``;
    returns the total norm before clipping (a 0-dim tensor)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of :func:`clip_grad_norm_` (torch warns the same way)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:  # (torch 2.13 groups the gradients by device first, and that refuses none)
        raise RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    with no_grad():
        for g in grads:
            if foreach is False:
                g.clamp_(min=-clip_value, max=clip_value)
            else:
                g.clamp_min_(-clip_value)
                g.clamp_max_(clip_value)
