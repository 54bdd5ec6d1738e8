"""Shrink activations and randomized leaky ReLU, with PyTorch's kernels and node names.

``hardshrink`` (HardshrinkBackward0): ``x`` outside ``[-lambd, lambd]``, 0 inside;
``softshrink`` (SoftshrinkBackward0): ``x -+ lambd`` outside, 0 inside, NaN stays NaN
(ATen's vectorized lanes give +0.0 in the band; its scalar tail gives -0.0 for negative
inputs, so the sign of that zero depends on the length: here always +0.0). Both
backwards *select* the gradient (``masked_grad``): a NaN arriving for an element inside the
band does not leak, as in PyTorch.

``_rrelu_with_noise`` (RreluWithNoiseBackward0; in place RreluWithNoiseBackward1, which saves
the result): ``noise`` holds the slope each element used (1 where ``x > 0``), drawn by
``F.rrelu`` in training; in eval the slope is ``(lower + upper) / 2`` and the op is leaky_relu.
"""
from __future__ import annotations

from .elementwise import flags, masked_grad, not_implemented_for, overload
from .table import OpSpec, register


def _band(x, lambd):
    """True inside ``[-lambd, lambd]`` (where the gradient is zeroed); works on arrays and tensors."""
    lo, hi = x >= -lambd, x <= lambd
    return lo & hi if not hasattr(lo, "_vc") else lo.logical_and(hi)


def _hardshrink_fwd(xp, a, out=None, dt=None, lambd=0.5):
    r = xp.where(_band(a, lambd), xp.zeros((), a.dtype), a).astype(dt.np, copy=False)
    if out is not None:
        out[...] = r
        return out
    return r


def _softshrink_fwd(xp, a, out=None, dt=None, lambd=0.5):
    r = xp.where(_band(a, lambd), xp.zeros((), a.dtype), a - xp.sign(a) * a.dtype.type(lambd))
    r = r.astype(dt.np, copy=False)
    if out is not None:
        out[...] = r
        return out
    return r


def _shrink_bw(c, g):
    return (masked_grad(g, _band(c["self"], c["lambd"]).logical_not()),)


def _softshrink_rule(spec, ins, params):
    dt = not_implemented_for("softshrink_check", ("bool", "int"))(spec, ins, params)
    lambd = params.get("lambd", 0.5)
    import numpy as np

    top = float(np.finfo(dt.np).max)
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{dt.torch_name.capitalize()}, but found {lambd:g}")
    return dt


register(OpSpec(name="hardshrink", forward=_hardshrink_fwd, backward=_shrink_bw, saves=("self",),
                params={"lambd": 0.5}, method=True, node_name="HardshrinkBackward0",
                dtype_rule=not_implemented_for("hardshrink_cpu", ("bool", "int")),
                **flags(False, False)))
register(OpSpec(name="softshrink", forward=_softshrink_fwd, backward=_shrink_bw, saves=("self",),
                params={"lambd": 0.5}, method=False, function=False,
                node_name="SoftshrinkBackward0", dtype_rule=_softshrink_rule, **flags(False, False)))


def _rrelu_fwd(xp, a, noise, out=None, dt=None, lower=0.125, upper=1 / 3, training=False):
    if training:
        r = a * noise
    else:
        r = xp.where(a > 0, a, a * ((lower + upper) / 2))
    r = r.astype(dt.np, copy=False)
    if out is not None:
        out[...] = r
        return out
    return r


def _rrelu_grad(c, g, x):
    lower, upper = c["lower"], c["upper"]
    if c["training"] and upper - lower > 1e-6:
        return (g * c["noise"], None)
    slope = (lower + upper) / 2
    return (g.where(x > 0, g * slope), None)  # leaky_relu_backward selects


def _rrelu_rule(spec, ins, params):
    return not_implemented_for("leaky_relu_cpu", ("bool", "int"))(spec, ins[:1], params)


RRELU = register(OpSpec(
    name="_rrelu_with_noise", forward=_rrelu_fwd, args=("self", "noise"), nondiff=("noise",),
    backward=lambda c, g: _rrelu_grad(c, g, c["self"]), saves=("self", "noise"),
    params={"lower": 0.125, "upper": 1 / 3, "training": False}, method=False, function=False,
    out=False, node_name="RreluWithNoiseBackward0", dtype_rule=_rrelu_rule, inplace=True, torch_inplace=False,
    paddle_inplace=False))  # (F.rrelu_ is the in-place form; torch has no rrelu_with_noise_)
RRELU.inplace_spec = overload(RRELU, "RreluWithNoiseBackward1", saves=("result", "noise"),
                              backward=lambda c, g: _rrelu_grad(c, g, c["result"]))
