"""``_weight_norm_interface`` (WeightNormInterfaceBackward0): ``w = v * (g / ||v||)``, the norm
taken over every dim but ``dim`` (0 or the last: the fused case of ATen's ``_weight_norm``).

Backward as ATen's ``_weight_norm_interface_backward``, with ``s = sum(grad * v)`` over the
normed dims: ``grad_g = s / ||v||`` and ``grad_v = (g / ||v||) * (grad - v * s / ||v||^2)``.
It saves ``v`` and ``g`` (and recomputes the norms, which ATen saves as a second output).
"""
from __future__ import annotations

from .table import OpSpec, register


def _axes(ndim, dim):
    return tuple(d for d in range(ndim) if d != dim)


def _wn_rule(spec, ins, params):
    v, g = ins
    if v.device is not g.device and str(v.device) != str(g.device):
        raise RuntimeError(f"weight_norm: expected v_in and g_in to be on the same device, but "
                           f"v_in is on {v.device} and g_in is on {g.device}")
    return v._dtype


def _wn_fwd(xp, v, g, out=None, dt=None, dim=0):
    norms = xp.sqrt((v * v).sum(axis=_axes(v.ndim, dim), keepdims=True))
    return (v * (g.reshape(norms.shape) / norms)).astype(dt.np, copy=False)


def _wn_bw(c, grad):
    v, g, dim = c["self"], c["g"], c["dim"]
    axes = _axes(v.ndim, dim)
    norms = (v * v).sum(axes, keepdim=True).sqrt() if axes else v.abs()
    s = (grad * v).sum(axes, keepdim=True) if axes else grad * v
    gg = g.reshape(norms.shape)
    gv = (gg / norms) * (grad - v * (s / (norms * norms))) if c.needs_input_grad[0] else None
    gg_ = (s / norms).reshape(g.shape) if c.needs_input_grad[1] else None
    return (gv, gg_)


register(OpSpec(name="_weight_norm_interface", forward=_wn_fwd, backward=_wn_bw,
                args=("self", "g"), params={"dim": 0}, saves=("self", "g"),
                dtype_rule=_wn_rule, method=False, function=False, out=False,
                node_name="WeightNormInterfaceBackward0",
                doc="_weight_norm_interface(v, g, dim): v * g / ||v|| (norm over all dims but "
                    "dim, 0 or the last); saves v and g."))
