"""``torch.nn.utils.weight_norm`` (the legacy hook form, deprecated in torch 2.13 for
``parametrizations.weight_norm``) and the two tensor functions behind both forms.

``weight_norm(m)`` replaces the parameter ``weight`` by ``weight_g`` (its norm over every dim
but ``dim``) and ``weight_v`` (its direction), and a forward pre-hook recomputes
``m.weight = weight_v * weight_g / ||weight_v||`` before each call.

>>> m = weight_norm(nn.Linear(3, 2)); m.weight_g.shape
torch.Size([2, 1])
"""
from __future__ import annotations

import warnings

from ...ops import dispatch
from ...ops.table import OPS
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim", "_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (kept as size-1 dims); the whole
    norm for ``dim == -1``. ATen's composite: a 2-D view, ``norm`` along one dim, a view."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [1] * v.dim()
        shape[0] = v.size(0)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = [1] * v.dim()
        shape[-1] = v.size(-1)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """``v * (g / ||v||)``: the fused op (WeightNormInterfaceBackward0) for ``dim`` 0 or the
    last dim (float16 aside), else ATen's differentiable composite."""
    if v.device != g.device:
        raise RuntimeError(f"weight_norm: expected v_in and g_in to be on the same device, but "
                           f"v_in is on {v.device} and g_in is on {g.device}")
    v, g = v.contiguous(), g.contiguous()
    half = "float16" in (str(v.dtype), str(g.dtype)) or "torch.float16" in (str(v.dtype),
                                                                           str(g.dtype))
    if not half and (dim == 0 or dim == v.dim() - 1):
        return dispatch.call(OPS["_weight_norm_interface"], (v, g), {"dim": dim})
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook (and its bookkeeping) of one weight-normed parameter."""

    def __init__(self, name: str, dim: int) -> None:
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name: str, dim: int) -> "WeightNorm":
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=2)  # (torch's @deprecated: the line in weight_norm() below)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same parameter "
                                   f"{name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if type(weight).__name__ == "UninitializedParameter":
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name: str = "weight", dim: int = 0):
    """Split ``module.<name>`` into magnitude ``<name>_g`` and direction ``<name>_v``."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Fold ``<name>_g`` and ``<name>_v`` back into one parameter ``<name>``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
