"""Activation functions (``torch.nn.functional`` / ``paddle.nn.functional``).

The interesting part for in-place lessons is what each one saves. ``relu`` saves its
result, so ``relu_`` is free. ``elu_``, ``selu_``, ``celu_`` and ``leaky_relu_`` are
separate PyTorch overloads that save the *result* (``EluBackward1``...) so that the
in-place form needs no copy of its input; ``hardtanh_`` and ``threshold_`` still
save the input, so they clone it before overwriting (``inplace_spec`` below).

Every kernel takes ``out=`` and writes into it (``relu_`` allocates nothing).
"""
from __future__ import annotations

from .. import backend
from ..backend import special_for
from .elementwise import assign, flags, scratch, float_rule, masked_grad, not_implemented_for, overload
from .table import OpSpec, register
from ..policy import is_paddle

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def act(name, fwd, backward, saves=("self",), t=False, p=False, dtype_rule="self", **kw):
    kw.setdefault("method", False)
    return register(OpSpec(name=name, forward=fwd, backward=backward, saves=saves,
                           dtype_rule=dtype_rule, **flags(t, p), **kw))


def _relu_rule(spec, ins, params):
    if ins[0]._dtype.category == 0:
        raise RuntimeError("Boolean inputs not supported for relu")
    return ins[0]._dtype


RELU = act(
    "relu",  # (0 first: numpy then keeps a NaN and a -0.0, as ATen's clamp_min(x, 0))
    lambda xp, a, out=None, dt=None: xp.maximum(0, a, out=out, dtype=dt.np, casting="unsafe"),
    lambda c, g: masked_grad(g, (c["result"] <= 0).logical_not()), saves=("result",), t=True,
    p=True, dtype_rule=_relu_rule, method=True)
# Paddle's kernel is ``x > 0 ? x : 0``: a NaN gives 0, as -0.0 gives 0.0 (numpy's fmax); its
# backward passes the gradient where the result is > 0 (so not at a NaN either).
_PADDLE_RELU = overload(
    RELU, RELU.node_name, backward_array=None,
    forward=lambda xp, a, out=None, dt=None: xp.fmax(a, 0, out=out, dtype=dt.np, casting="unsafe"),
    backward=lambda c, g: masked_grad(g, c["result"] > 0))
RELU.select = lambda args, kw: _PADDLE_RELU if is_paddle(getattr(args[0], "_pol", None)) else None


def _hardtanh_fwd(xp, a, out=None, dt=None, min_val=-1.0, max_val=1.0):
    return backend.clip(xp, a, min_val, max_val, out, dt.np)


def _clip_grad(c, g, lo, hi):
    """hardtanh_backward: torch zeroes the gradient where x <= lo or x >= hi, so a NaN passes
    it on; Paddle's kernel passes it where lo < x < hi (a NaN gets 0)."""
    x = c["self"]
    if c.policy is not None and is_paddle(c.policy):
        return masked_grad(g, (x > lo).logical_and(x < hi))
    return masked_grad(g, (x <= lo).logical_or(x >= hi).logical_not())


def _hardtanh_bw(c, g):
    return _clip_grad(c, g, c["min_val"], c["max_val"])


def _hardtanh_rule(spec, ins, params):
    """ATen's hardtanh checks: no bools, no negative limits for an unsigned type."""
    dt = ins[0]._dtype
    if dt.category == 0:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if dt.name == "uint8" and min(params.get("min_val", 0), params.get("max_val", 0)) < 0:
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return dt


act("hardtanh", _hardtanh_fwd, _hardtanh_bw, params={"min_val": -1.0, "max_val": 1.0}, t=True, p=True,
    dtype_rule=_hardtanh_rule)
act("relu6", lambda xp, a, out=None, dt=None: _hardtanh_fwd(xp, a, out, dt, 0.0, 6.0),
    lambda c, g: _clip_grad(c, g, 0, 6),
    node_name="HardtanhBackward0", dtype_rule=_hardtanh_rule)


def _threshold_fwd(xp, a, out=None, dt=None, threshold=0.0, value=0.0):
    """``value if x <= threshold else x`` (torch's F.threshold; Paddle's thresholded_relu):
    nan stays nan."""
    cut = xp.less_equal(a, threshold)  # (one bool mask, a quarter of a float32 target)
    if out is not None:  # in place (out aliases a): overwrite only the cut elements
        xp.copyto(out, value, where=cut, casting="unsafe")
        return out
    return xp.where(cut, xp.asarray(value, dtype=dt.np), a)


def _threshold_bw(c, g):
    """threshold_backward: ``x <= threshold ? 0 : g`` (a NaN input passes its gradient)."""
    return masked_grad(g, (c["self"] <= c["threshold"]).logical_not())


THRESHOLD = act("threshold", _threshold_fwd, _threshold_bw, params={"threshold": 0.0, "value": 0.0},
                t=True, internal_overlap_ok=True,  # PyTorch allows an expanded target
                dtype_rule=not_implemented_for("threshold_cpu", ("bool",)))
THRESHOLD.inplace_spec = overload(THRESHOLD, "ThresholdBackward1")
act("thresholded_relu", _threshold_fwd, _threshold_bw, params={"threshold": 1.0, "value": 0.0},
    p=True)


def _leaky_fwd(xp, a, out=None, dt=None, negative_slope=0.01):
    neg = a <= 0
    if out is not None:  # in place (out aliases a): scale only the negative elements
        if xp is not backend.np:  # (cupy's ufuncs take no where=)
            xp.copyto(out, xp.multiply(a, negative_slope, dtype=out.dtype), where=neg)
            return out
        return xp.multiply(a, negative_slope, out=out, where=neg, casting="unsafe")
    return assign(xp, out, xp.where(neg, xp.multiply(a, negative_slope, dtype=dt.np), a))


def _leaky_grad(g, x, slope, c=None):
    """ATen's leaky_relu_backward, a select: ``x > 0 ? g : g * slope`` (a NaN input takes the
    slope, an infinite gradient stays infinite). Paddle's LeakyReluGradFunctor multiplies by
    ``slope * (x < 0) + (x >= 0)``: 1 at x = 0, 0 at a NaN."""
    if c is not None and c.policy is not None and is_paddle(c.policy):
        return g * ((x < 0).to(g.dtype) * slope + (x >= 0).to(g.dtype))
    return g.where(x > 0, g * slope)


LEAKY = act("leaky_relu", _leaky_fwd,
            lambda c, g: _leaky_grad(g, c["self"], c["negative_slope"], c),
            params={"negative_slope": 0.01}, t=True, p=True,
            dtype_rule=not_implemented_for("leaky_relu_cpu", ("bool", "int")))
LEAKY.inplace_spec = overload(
    LEAKY, "LeakyReluBackward1", saves=("result",),
    backward=lambda c, g: _leaky_grad(g, c["result"], c["negative_slope"], c))


def _elu_fwd(xp, a, out=None, dt=None, alpha=1.0, scale=1.0, input_scale=1.0):
    neg = xp.expm1(xp.multiply(xp.minimum(a, 0), input_scale, dtype=dt.np))
    neg *= alpha * scale
    r = xp.where(a > 0, xp.multiply(a, scale, dtype=dt.np), neg)
    return assign(xp, out, r.astype(dt.np, copy=False))


def _elu_grad(g, x, a, s, i, is_result):
    """ATen's elu_backward, a select: ``x <= 0 ? g * i * (a * s) * exp(x * i) : g * s`` (from
    the result: ``g * i * (r + a * s)``), so a NaN input takes the positive branch and an
    infinite one stays out of the other (masks multiplied in would give NaN)."""
    neg = g * i * (x + a * s) if is_result else g * i * (a * s) * (x * i).exp()
    return neg.where(x <= 0, g * s)


def _elu_bw(c, g):
    return _elu_grad(g, c["self"], c["alpha"], c["scale"], c["input_scale"], False)


def _elu_result_bw(c, g):
    return _elu_grad(g, c["result"], c["alpha"], c["scale"], c["input_scale"], True)


_ELU_DT = not_implemented_for("elu_cpu", ("bool", "int"))


def _elu_like(name, params, t, p):
    spec = act(name, _elu_fwd, _elu_bw, params=params, t=t, p=p, node_name="EluBackward0",
               dtype_rule=_ELU_DT)
    spec.inplace_spec = overload(spec, "EluBackward1", saves=("result",), backward=_elu_result_bw)
    return spec


_elu_like("elu", {"alpha": 1.0, "scale": 1.0, "input_scale": 1.0}, t=True, p=True)
_elu_like("selu", {"alpha": _SELU_ALPHA, "scale": _SELU_SCALE, "input_scale": 1.0}, t=True, p=False)


def _celu_fwd(xp, a, out=None, dt=None, alpha=1.0):
    return _elu_fwd(xp, a, out, dt, alpha=alpha, scale=1.0, input_scale=1.0 / alpha)


CELU = act("celu", _celu_fwd,  # (ATen's celu is elu with scale 1, input_scale 1 / alpha)
           lambda c, g: _elu_grad(g, c["self"], c["alpha"], 1.0, 1.0 / c["alpha"], False),
           params={"alpha": 1.0}, t=True, node_name="CeluBackward0", dtype_rule=_ELU_DT)
CELU.inplace_spec = overload(
    CELU, "CeluBackward1", saves=("result",),
    backward=lambda c, g: _elu_grad(g, c["result"], c["alpha"], 1.0, 1.0 / c["alpha"], True))


def _gelu_fwd(xp, a, out=None, dt=None, approximate="none"):
    x = xp.asarray(a, dtype=dt.np)
    if approximate == "tanh":
        r = 0.5 * x * (1 + xp.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    else:
        r = 0.5 * x * (1 + special_for(xp).erf(x * 0.7071067811865476))
    return assign(xp, out, r.astype(dt.np, copy=False))


def _gelu_bw(c, g):
    x = c["self"]
    if c["approximate"] == "tanh":
        k = 0.7978845608028654
        inner = (x + x * x * x * 0.044715) * k
        t = inner.tanh()
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x))
    cdf = (x * 0.7071067811865476).erf() * 0.5 + 0.5
    pdf = (-(x * x) * 0.5).exp() * 0.3989422804014327
    return g * (cdf + x * pdf)


act("gelu", _gelu_fwd, _gelu_bw, params={"approximate": "none"},
    dtype_rule=not_implemented_for("GeluKernelImpl", ("bool", "int")))


def _silu_fwd(xp, a, out=None, dt=None):
    s = special_for(xp).expit(xp.asarray(a, dtype=dt.np))
    return xp.multiply(a, s, out=out, dtype=dt.np, casting="unsafe")


act("silu", _silu_fwd,
    lambda c, g: g * c["self"].sigmoid() * (1 + c["self"] * (1 - c["self"].sigmoid())),
    dtype_rule=not_implemented_for("silu_cpu", ("bool", "int")))


def _softplus_np(xp, x, beta, threshold):
    bx = x * beta
    return xp.where(bx > threshold, x, xp.logaddexp(0, bx) / beta)


def _softplus_fwd(xp, a, out=None, dt=None, beta=1.0, threshold=20.0):
    x = xp.asarray(a, dtype=dt.np)
    return assign(xp, out, _softplus_np(xp, x, beta, threshold).astype(dt.np, copy=False))


def _softplus_bw(c, g):
    x, b, th = c["self"], c["beta"], c["threshold"]
    d = (x * b).sigmoid()
    return g * d.where(x * b <= th, d * 0 + 1)


act("softplus", _softplus_fwd, _softplus_bw, params={"beta": 1.0, "threshold": 20.0},
    dtype_rule=not_implemented_for("softplus_cpu", ("bool", "int")))


def _hardsigmoid_fwd(xp, a, out=None, dt=None):
    r = xp.add(a, 3, out=out, dtype=dt.np, casting="unsafe")
    r = xp.clip(r, 0, 6, out=scratch(r))
    return xp.true_divide(r, 6, out=scratch(r))


_ONE_SIXTH = 0.1666666716337204  # (float(numpy.float32(1) / 6))
act("hardsigmoid", _hardsigmoid_fwd,  # (ATen's constant: 1.0f / 6.0f, a float32, times g)
    lambda c, g: masked_grad(g * _ONE_SIXTH, (c["self"] > -3).logical_and(c["self"] < 3)),
    dtype_rule=not_implemented_for("hardsigmoid_cpu", ("bool", "int")))


def _hardswish_fwd(xp, a, out=None, dt=None):
    x = xp.asarray(a, dtype=dt.np)
    r = xp.clip(x + 3, 0, 6)
    r *= x
    r /= 6
    return assign(xp, out, r)


def _hardswish_bw(c, g):
    """ATen's: ``x <= -3 ? 0 : x < 3 ? g * (x / 3 + 0.5) : g`` (NaN and inf pass g)."""
    x = c["self"]
    return masked_grad((g * (x / 3 + 0.5)).where(x < 3, g), (x <= -3).logical_not())


act("hardswish", _hardswish_fwd, _hardswish_bw,
    dtype_rule=not_implemented_for("hardswish_cpu", ("bool", "int")))


def _mish_fwd(xp, a, out=None, dt=None):
    x = xp.asarray(a, dtype=dt.np)
    return assign(xp, out, (x * xp.tanh(xp.logaddexp(0, x))).astype(dt.np, copy=False))


def _mish_bw(c, g):
    x = c["self"]
    tsp = _call("softplus", x).tanh()
    return g * (tsp + x * x.sigmoid() * (1 - tsp * tsp))


act("mish", _mish_fwd, _mish_bw, dtype_rule=not_implemented_for("mish_cpu", ("bool", "int")))


def _tanhshrink_fwd(xp, a, out=None, dt=None):
    return xp.subtract(a, xp.tanh(a, dtype=dt.np), out=out, dtype=dt.np, casting="unsafe")


# PyTorch composes it (x - tanh(x)), so its node is SubBackward0.
act("tanhshrink", _tanhshrink_fwd, lambda c, g: g * c["self"].tanh() ** 2,
    dtype_rule=float_rule, node_name="SubBackward0")


def _call(name, *args, **kw):
    from .dispatch import call
    from .table import OPS

    return call(OPS[name], args, kw)


# F.silu / mish / hardswish / hardsigmoid(inplace=True) call torch._C._nn's silu_ ...: PyTorch
# has no Tensor.silu_ or torch.silu_ (so torch_inplace stays False), but nn.functional needs
# the in-place form: one version bump, the same node (SiluBackward0 ...), and, since the
# backward reads the input, the dispatcher clones it before the overwrite.
for _name in ("silu", "mish", "hardswish", "hardsigmoid"):
    from .table import OPS as _OPS

    _OPS[_name].inplace = True
