"""Paddle-only ops, registered in the one op table (only if the core does not have them yet).

``scale`` is Paddle's ``x * scale + bias`` (or ``(x + bias) * scale``) in one kernel:
``x.scale_(2.0, bias=1.0)`` bumps the version once, as in Paddle, which two table
ops in a row could not. Its backward saves nothing (the gradient is ``g * scale``).
"""
from __future__ import annotations

from inplace_lab.ops.table import OPS, OpSpec, register


def _scale_fwd(xp, a, out=None, dt=None, scale=1.0, bias=0.0, bias_after_scale=True, act=None):
    if act is not None:
        raise NotImplementedError("scale(act=...) is not supported; apply the activation after")
    if bias_after_scale:
        r = xp.multiply(a, scale, dtype=dt.np, casting="unsafe")
        r = xp.add(r, bias, out=out, dtype=dt.np, casting="unsafe")
    else:
        r = xp.add(a, bias, dtype=dt.np, casting="unsafe")
        r = xp.multiply(r, scale, out=out, dtype=dt.np, casting="unsafe")
    return r


def _scale_bw(ctx, g):
    s = ctx["scale"]
    return (g if s == 1 else g * s,)


if "scale" not in OPS:
    register(OpSpec(name="scale", forward=_scale_fwd, backward=_scale_bw,
                    params={"scale": 1.0, "bias": 0.0, "bias_after_scale": True, "act": None},
                    dtype_rule="self", inplace=True, torch_inplace=False, paddle_inplace=True,
                    method=False, function=False, out=False, node_name="ScaleBackward0",
                    doc="Paddle's scale: x * scale + bias (bias_after_scale) or (x + bias) * scale."))
