"""Elementwise ops: unary and binary math, comparisons, logic, activations.

Each entry is a forward kernel (a numpy/cupy ufunc writing into ``out`` when
given, so in-place forms allocate nothing) and a backward formula written with
tensor ops (so ``create_graph=True`` differentiates it again). ``saves`` says
what the formula reads; SEMANTICS.md section 5 is the reference.
"""
from __future__ import annotations

from ..backend import special_for
from .table import OpSpec, register


def _red(ctx, i, g):
    """Reduce a broadcast gradient back to argument ``i``'s shape."""
    meta = ctx.input_meta[i]
    if meta is None or not ctx.needs_input_grad[i]:
        return None
    shape, dt, _ = meta
    if g.shape != shape:
        g = g.sum_to_size(shape)
    if g.dtype is not dt and (dt.is_floating_point or dt.is_complex):
        g = g.to(dt)
    return g


def _uf(fname):
    """Forward from a ufunc name: ``xp.<fname>(*args, out=out, dtype=dt)``."""

    def fwd(xp, *a, out=None, dt=None):
        return getattr(xp, fname)(*a, out=out, dtype=dt.np, casting="unsafe")

    fwd.__name__ = fname
    return fwd


def _sp(fname):
    """Forward from scipy.special (cupyx.scipy.special on a GPU)."""

    def fwd(xp, a, out=None, dt=None):
        f = getattr(special_for(xp), fname)
        if out is None:
            return f(a.astype(dt.np, copy=False))
        return f(a, out=out)

    fwd.__name__ = fname
    return fwd


def unary(name, fwd, backward=None, saves=(), dtype_rule="float", inplace=True, **kw):
    return register(OpSpec(name=name, forward=fwd if callable(fwd) else _uf(fwd), backward=backward,
                           saves=saves, dtype_rule=dtype_rule, inplace=inplace, **kw))


def binary(name, fwd, backward=None, saves=(), dtype_rule="promote", inplace=True, **kw):
    return register(OpSpec(name=name, forward=fwd if callable(fwd) else _uf(fwd), backward=backward,
                           args=("self", "other"), saves=saves, dtype_rule=dtype_rule,
                           inplace=inplace, **kw))


# ---- arithmetic -------------------------------------------------------------------------------

def _add_fwd(xp, a, b, out=None, dt=None, alpha=1):
    if alpha != 1:
        b = xp.multiply(b, alpha)
    return xp.add(a, b, out=out, dtype=dt.np, casting="unsafe")


def _sub_fwd(xp, a, b, out=None, dt=None, alpha=1):
    if alpha != 1:
        b = xp.multiply(b, alpha)
    return xp.subtract(a, b, out=out, dtype=dt.np, casting="unsafe")


binary("add", _add_fwd, lambda c, g: (_red(c, 0, g), _red(c, 1, g if c["alpha"] == 1 else g * c["alpha"])),
       params={"alpha": 1}, paddle_inplace=True)
binary("sub", _sub_fwd, lambda c, g: (_red(c, 0, g), _red(c, 1, -g if c["alpha"] == 1 else g * -c["alpha"])),
       params={"alpha": 1}, paddle_inplace=True, aliases=("subtract",))
binary("mul", "multiply",
       lambda c, g: (_red(c, 0, g * c["other"]) if c.needs_input_grad[0] else None,
                     _red(c, 1, g * c["self"]) if c.needs_input_grad[1] else None),
       saves=("self", "other"), save_if={"self": "other", "other": "self"},
       paddle_inplace=True, aliases=("multiply",))


def _div_fwd(xp, a, b, out=None, dt=None, rounding_mode=None):
    if rounding_mode is None:
        return xp.true_divide(a, b, out=out, dtype=dt.np, casting="unsafe")
    r = xp.true_divide(a, b, dtype="float64" if dt.category < 2 else dt.np)
    r = xp.floor(r) if rounding_mode == "floor" else xp.trunc(r)
    if out is None:
        return r.astype(dt.np)
    out[...] = r
    return out


def _div_dtype(spec, ins, params):
    from ..dtypes import FLOAT, get_default_dtype
    from .dispatch import result_dtype

    dt = result_dtype(_PROMOTE, ins, params)
    if params.get("rounding_mode") is None and dt.category < FLOAT:
        return get_default_dtype()
    return dt


_PROMOTE = OpSpec(name="_promote", forward=None)
binary("div", _div_fwd,
       lambda c, g: (_red(c, 0, g / c["other"]),
                     _red(c, 1, -g * c["self"] / (c["other"] * c["other"])) if c.needs_input_grad[1] else None),
       saves=("self", "other"), save_if={"self": "other"}, dtype_rule=_div_dtype,
       params={"rounding_mode": None}, paddle_inplace=True, aliases=("divide", "true_divide"))


def _pow_fwd(xp, a, b, out=None, dt=None):
    return xp.power(a, b, out=out, dtype=dt.np, casting="unsafe")


def _pow_bw(c, g):
    e = c["exponent"]
    x = c["self"]
    if isinstance(e, (int, float)):
        if e == 0:
            return (g * 0, None)
        return (_red(c, 0, g * e * x.pow(e - 1)), None)
    r = c["result"]
    gx = _red(c, 0, g * e * x.pow(e - 1)) if c.needs_input_grad[0] else None
    ge = _red(c, 1, g * r * x.log().masked_fill(x == 0, 0)) if c.needs_input_grad[1] else None
    return (gx, ge)


register(OpSpec(name="pow", forward=_pow_fwd, backward=_pow_bw, args=("self", "exponent"),
                saves=("self", "exponent", "result"), inplace=True, paddle_inplace=True))
binary("atan2", "arctan2",
       lambda c, g: (_red(c, 0, g * c["other"] / (c["self"] ** 2 + c["other"] ** 2)),
                     _red(c, 1, -g * c["self"] / (c["self"] ** 2 + c["other"] ** 2))),
       saves=("self", "other"), dtype_rule="float")


def _minmax_bw(pick_self):
    def bw(c, g):
        x, y = c["self"], c["other"]
        m = pick_self(x, y)
        eq = (x == y)
        half = g * 0.5
        gx = g.where(m, g * 0).where(~eq, half)
        gy = g.where(~m, g * 0).where(~eq, half)
        return (_red(c, 0, gx), _red(c, 1, gy))

    return bw


binary("maximum", "maximum", _minmax_bw(lambda x, y: x > y), saves=("self", "other"), inplace=False)
binary("minimum", "minimum", _minmax_bw(lambda x, y: x < y), saves=("self", "other"), inplace=False)
binary("fmax", "fmax", None, inplace=False)
binary("fmin", "fmin", None, inplace=False)
binary("remainder", "remainder", lambda c, g: (_red(c, 0, g), None), paddle_inplace=True,
       aliases=("mod", "floor_mod"))
binary("fmod", "fmod", lambda c, g: (_red(c, 0, g), None))
binary("floor_divide", "floor_divide", None, paddle_inplace=True)
binary("hypot", "hypot", lambda c, g: (_red(c, 0, g * c["self"] / c["result"]),
                                       _red(c, 1, g * c["other"] / c["result"])),
       saves=("self", "other", "result"), dtype_rule="float", paddle_inplace=True)
binary("copysign", "copysign", None, dtype_rule="float", paddle_inplace=True)
binary("logaddexp", "logaddexp", lambda c, g: (_red(c, 0, g * (c["self"] - c["result"]).exp()),
                                               _red(c, 1, g * (c["other"] - c["result"]).exp())),
       saves=("self", "other", "result"), dtype_rule="float", inplace=False)

# ---- comparisons and logic (results are bool; in-place forms keep self's dtype) -------------


def _cmp(fname):
    def fwd(xp, a, b, out=None, dt=None):
        return getattr(xp, fname)(a, b, out=out, casting="unsafe")

    return fwd


def _bool_rule(spec, ins, params):
    from ..dtypes import bool_

    return bool_


for _n, _f, _al in [("eq", "equal", ("equal",)), ("ne", "not_equal", ("not_equal",)),
                    ("lt", "less", ("less", "less_than")), ("le", "less_equal", ("less_equal",)),
                    ("gt", "greater", ("greater", "greater_than")),
                    ("ge", "greater_equal", ("greater_equal",))]:
    binary(_n, _cmp(_f), None, dtype_rule=_bool_rule, paddle_inplace=True, aliases=_al)

for _n in ("logical_and", "logical_or", "logical_xor"):
    binary(_n, _cmp(_n), None, dtype_rule=_bool_rule, paddle_inplace=True)
unary("logical_not", lambda xp, a, out=None, dt=None: xp.logical_not(a, out=out, casting="unsafe"),
      dtype_rule=_bool_rule, paddle_inplace=True)

for _n, _f in [("bitwise_and", "bitwise_and"), ("bitwise_or", "bitwise_or"),
               ("bitwise_xor", "bitwise_xor"), ("bitwise_left_shift", "left_shift"),
               ("bitwise_right_shift", "right_shift")]:
    binary(_n, _f, None, paddle_inplace=True)
unary("bitwise_not", lambda xp, a, out=None, dt=None: xp.invert(a, out=out),
      dtype_rule="self", paddle_inplace=True, aliases=("bitwise_invert",))

# ---- unary math ---------------------------------------------------------------------------------
# (name, forward, backward(ctx, g), saves, paddle has name_)
_F = "float"
_UNARY = [
    ("exp", "exp", lambda c, g: g * c["result"], ("result",), True),
    ("exp2", "exp2", lambda c, g: g * c["result"] * 0.6931471805599453, ("result",), False),
    ("expm1", "expm1", lambda c, g: g * (c["result"] + 1), ("result",), True),
    ("log", "log", lambda c, g: g / c["self"], ("self",), True),
    ("log2", "log2", lambda c, g: g / (c["self"] * 0.6931471805599453), ("self",), True),
    ("log10", "log10", lambda c, g: g / (c["self"] * 2.302585092994046), ("self",), True),
    ("log1p", "log1p", lambda c, g: g / (c["self"] + 1), ("self",), True),
    ("sqrt", "sqrt", lambda c, g: g / (c["result"] * 2), ("result",), True),
    ("sin", "sin", lambda c, g: g * c["self"].cos(), ("self",), True),
    ("cos", "cos", lambda c, g: -g * c["self"].sin(), ("self",), True),
    ("tan", "tan", lambda c, g: g * (c["result"] * c["result"] + 1), ("result",), True),
    ("asin", "arcsin", lambda c, g: g * (1 - c["self"] * c["self"]).rsqrt(), ("self",), True),
    ("acos", "arccos", lambda c, g: -g * (1 - c["self"] * c["self"]).rsqrt(), ("self",), True),
    ("atan", "arctan", lambda c, g: g / (c["self"] * c["self"] + 1), ("self",), True),
    ("sinh", "sinh", lambda c, g: g * c["self"].cosh(), ("self",), True),
    ("cosh", "cosh", lambda c, g: g * c["self"].sinh(), ("self",), True),
    ("tanh", "tanh", lambda c, g: g * (1 - c["result"] * c["result"]), ("result",), True),
    ("asinh", "arcsinh", lambda c, g: g * (c["self"] * c["self"] + 1).rsqrt(), ("self",), True),
    ("acosh", "arccosh", lambda c, g: g * (c["self"] * c["self"] - 1).rsqrt(), ("self",), True),
    ("atanh", "arctanh", lambda c, g: g / (1 - c["self"] * c["self"]), ("self",), True),
    ("sigmoid", _sp("expit"), lambda c, g: g * c["result"] * (1 - c["result"]), ("result",), True),
    ("erf", _sp("erf"), lambda c, g: g * 1.1283791670955126 * (-(c["self"] * c["self"])).exp(), ("self",), False),
    ("erfc", _sp("erfc"), lambda c, g: -g * 1.1283791670955126 * (-(c["self"] * c["self"])).exp(), ("self",), False),
    ("erfinv", _sp("erfinv"), lambda c, g: g * 0.886226925452758 * (c["result"] * c["result"]).exp(), ("result",), True),
    ("lgamma", _sp("gammaln"), lambda c, g: g * c["self"].digamma(), ("self",), True),
    ("digamma", _sp("psi"), lambda c, g: g * _polygamma(1, c["self"]), ("self",), True),
    ("i0", _sp("i0"), lambda c, g: g * c["self"].special_i1(), ("self",), True),
    ("special_i1", _sp("i1"), None, (), False),
    ("reciprocal", "reciprocal", lambda c, g: -g * c["result"] * c["result"], ("result",), True),
]
for _n, _f, _b, _s, _p in _UNARY:
    unary(_n, _f, _b, saves=_s, paddle_inplace=_p)


def _rsqrt(xp, a, out=None, dt=None):
    r = xp.sqrt(a, out=out, dtype=dt.np, casting="unsafe")
    return xp.reciprocal(r, out=r)


unary("rsqrt", _rsqrt, lambda c, g: g * c["result"] ** 3 * -0.5, saves=("result",), paddle_inplace=True)


def _polygamma(n, x):
    from .dispatch import call

    return call(OPS_POLYGAMMA, (x,), {"n": n})


def _polygamma_fwd(xp, a, out=None, dt=None, n=0):
    r = special_for(xp).polygamma(n, a)
    if out is None:
        return r.astype(dt.np, copy=False)
    out[...] = r
    return out


OPS_POLYGAMMA = register(OpSpec(
    name="polygamma", forward=_polygamma_fwd, params={"n": 0}, dtype_rule="float",
    backward=lambda c, g: g * _polygamma(c["n"] + 1, c["self"]), saves=("self",),
    inplace=True, paddle_inplace=True))


def _same(fname):
    def fwd(xp, a, out=None, dt=None):
        return getattr(xp, fname)(a, out=out)

    return fwd


def _sign_of(x):
    return x.sign()


unary("neg", "negative", lambda c, g: -g, dtype_rule="self", paddle_inplace=True, aliases=("negative",))
unary("abs", "absolute", lambda c, g: g * c["self"].sign(), saves=("self",), dtype_rule="self",
      paddle_inplace=True, aliases=("absolute",))
unary("sign", "sign", lambda c, g: g * 0, dtype_rule="self", paddle_inplace=False)
unary("floor", _same("floor"), lambda c, g: g * 0, dtype_rule="self", paddle_inplace=True)
unary("ceil", _same("ceil"), lambda c, g: g * 0, dtype_rule="self", paddle_inplace=True)
unary("trunc", _same("trunc"), lambda c, g: g * 0, dtype_rule="self", paddle_inplace=True, aliases=("fix",))
unary("frac", lambda xp, a, out=None, dt=None: xp.subtract(a, xp.trunc(a), out=out),
      lambda c, g: g, dtype_rule="self", paddle_inplace=True)


def _round_fwd(xp, a, out=None, dt=None, decimals=0):
    return xp.round(a, decimals, out=out)


unary("round", _round_fwd, lambda c, g: g * 0, dtype_rule="self", params={"decimals": 0},
      paddle_inplace=True)
unary("square", "square", lambda c, g: g * 2 * c["self"], saves=("self",), dtype_rule="self",
      paddle_inplace=True, node_name="PowBackward0")
unary("positive", lambda xp, a, out=None, dt=None: a, None, dtype_rule="self", inplace=False)


def _sinc_fwd(xp, a, out=None, dt=None):
    r = xp.sinc(a.astype(dt.np, copy=False))  # numpy's sinc is normalised, like PyTorch's
    if out is None:
        return r.astype(dt.np, copy=False)
    out[...] = r
    return out


def _sinc_bw(c, g):
    import math

    x = c["self"]
    px = x * math.pi
    d = ((px.cos() * px - px.sin()) / (px * x)).masked_fill(x == 0, 0)
    return g * d


unary("sinc", _sinc_fwd, _sinc_bw, saves=("self",), paddle_inplace=True)


def _logit_fwd(xp, a, out=None, dt=None, eps=None):
    x = a if eps is None else xp.clip(a, eps, 1 - eps)
    r = xp.log(xp.divide(x, xp.subtract(1, x, dtype=dt.np), dtype=dt.np))
    if out is None:
        return r
    out[...] = r
    return out


unary("logit", _logit_fwd, lambda c, g: g / (c["self"] * (1 - c["self"])), saves=("self",),
      params={"eps": None}, paddle_inplace=True)

# ---- activations and clamps -------------------------------------------------------------------


def _relu_fwd(xp, a, out=None, dt=None):
    return xp.maximum(a, 0, out=out, dtype=dt.np, casting="unsafe")


unary("relu", _relu_fwd, lambda c, g: g * (c["result"] > 0), saves=("result",), dtype_rule="self",
      paddle_inplace=False)


def _clamp_fwd(xp, a, out=None, dt=None, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    lo = min._a if hasattr(min, "_a") else min
    hi = max._a if hasattr(max, "_a") else max
    if lo is not None and hi is not None:
        return xp.clip(a, lo, hi, out=out, dtype=dt.np, casting="unsafe")
    if lo is not None:
        return xp.maximum(a, lo, out=out, dtype=dt.np, casting="unsafe")
    return xp.minimum(a, hi, out=out, dtype=dt.np, casting="unsafe")


def _clamp_bw(c, g):
    x = c["self"]
    lo, hi = c["min"], c["max"]
    keep = None
    if lo is not None:
        keep = x >= lo
    if hi is not None:
        k2 = x <= hi
        keep = k2 if keep is None else keep.logical_and(k2)
    return g * keep


def _clamp_dtype(spec, ins, params):
    from .dispatch import result_dtype

    extra = [v for v in (params.get("min"), params.get("max")) if v is not None]
    return result_dtype(_PROMOTE, [ins[0], *extra], {})


unary("clamp", _clamp_fwd, _clamp_bw, saves=("self",), dtype_rule=_clamp_dtype,
      params={"min": None, "max": None}, node_name="ClampBackward1", paddle_inplace=True,
      aliases=("clip",))


def _leaky_fwd(xp, a, out=None, dt=None, negative_slope=0.01):
    neg = xp.multiply(a, negative_slope, dtype=dt.np)
    return xp.where(a > 0, a, neg) if out is None else _assign(xp, out, xp.where(a > 0, a, neg))


def _assign(xp, out, r):
    out[...] = r
    return out


unary("leaky_relu", _leaky_fwd,
      lambda c, g: g * (c["self"] > 0) + g * (c["self"] <= 0) * c["negative_slope"],
      saves=("self",), dtype_rule="self", params={"negative_slope": 0.01}, method=False)


def _elu_fwd(xp, a, out=None, dt=None, alpha=1.0):
    r = xp.where(a > 0, a, xp.multiply(alpha, xp.expm1(xp.minimum(a, 0)), dtype=dt.np))
    return r.astype(dt.np, copy=False) if out is None else _assign(xp, out, r)


unary("elu", _elu_fwd,
      lambda c, g: g * (c["self"] > 0) + g * (c["self"] <= 0) * (c["self"].exp() * c["alpha"]),
      saves=("self",), dtype_rule="self", params={"alpha": 1.0}, method=False)


def _hardtanh_fwd(xp, a, out=None, dt=None, min_val=-1.0, max_val=1.0):
    return xp.clip(a, min_val, max_val, out=out)


unary("hardtanh", _hardtanh_fwd,
      lambda c, g: g * (c["self"] > c["min_val"]).logical_and(c["self"] < c["max_val"]),
      saves=("self",), dtype_rule="self", params={"min_val": -1.0, "max_val": 1.0}, method=False)


def _gelu_fwd(xp, a, out=None, dt=None, approximate="none"):
    sp = special_for(xp)
    if approximate == "tanh":
        r = 0.5 * a * (1 + xp.tanh(0.7978845608028654 * (a + 0.044715 * a ** 3)))
    else:
        r = 0.5 * a * (1 + sp.erf(a * 0.7071067811865476))
    r = r.astype(dt.np, copy=False)
    return r if out is None else _assign(xp, out, r)


def _gelu_bw(c, g):
    x = c["self"]
    cdf = (x * 0.7071067811865476).erf() * 0.5 + 0.5
    pdf = (-(x * x) * 0.5).exp() * 0.3989422804014327
    return g * (cdf + x * pdf)


unary("gelu", _gelu_fwd, _gelu_bw, saves=("self",), dtype_rule="self",
      params={"approximate": "none"}, inplace=False, method=False)


def _silu_fwd(xp, a, out=None, dt=None):
    r = a * special_for(xp).expit(a)
    return r.astype(dt.np, copy=False) if out is None else _assign(xp, out, r)


unary("silu", _silu_fwd,
      lambda c, g: g * c["self"].sigmoid() * (1 + c["self"] * (1 - c["self"].sigmoid())),
      saves=("self",), dtype_rule="self", method=False)


def _thresholded_fwd(xp, a, out=None, dt=None, threshold=1.0, value=0.0):
    r = xp.where(a > threshold, a, xp.asarray(value, dtype=a.dtype))
    return r if out is None else _assign(xp, out, r)


unary("thresholded_relu", _thresholded_fwd, lambda c, g: g * (c["self"] > c["threshold"]),
      saves=("self",), dtype_rule="self", params={"threshold": 1.0, "value": 0.0}, method=False)


def _nan_to_num_fwd(xp, a, out=None, dt=None, nan=0.0, posinf=None, neginf=None):
    r = xp.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)
    return r if out is None else _assign(xp, out, r)


unary("nan_to_num", _nan_to_num_fwd, lambda c, g: g * c["self"].isfinite(), saves=("self",),
      dtype_rule="self", params={"nan": 0.0, "posinf": None, "neginf": None}, paddle_inplace=True)
unary("isfinite", lambda xp, a, out=None, dt=None: xp.isfinite(a), dtype_rule=_bool_rule, inplace=False)
unary("isnan", lambda xp, a, out=None, dt=None: xp.isnan(a), dtype_rule=_bool_rule, inplace=False)
unary("isinf", lambda xp, a, out=None, dt=None: xp.isinf(a), dtype_rule=_bool_rule, inplace=False)


# ---- where, lerp -----------------------------------------------------------------------------


def _where_fwd(xp, cond, a, b, out=None, dt=None):
    r = xp.where(cond, a, b)
    r = r.astype(dt.np, copy=False)
    return r if out is None else _assign(xp, out, r)


def _where_dtype(spec, ins, params):
    from .dispatch import result_dtype

    return result_dtype(_PROMOTE, ins[1:], {})


register(OpSpec(
    name="where", forward=_where_fwd, args=("condition", "self", "other"),
    backward=lambda c, g: (None, _red(c, 1, g.where(c["condition"], g * 0)),
                           _red(c, 2, (g * 0).where(c["condition"], g))),
    saves=("condition",), dtype_rule=_where_dtype, method=False, inplace=False))


def _lerp_fwd(xp, a, b, w, out=None, dt=None):
    r = a + w * (b - a)
    r = xp.asarray(r).astype(dt.np, copy=False)
    return r if out is None else _assign(xp, out, r)


register(OpSpec(
    name="lerp", forward=_lerp_fwd, args=("self", "end", "weight"),
    backward=lambda c, g: (_red(c, 0, g * (1 - c["weight"])), _red(c, 1, g * c["weight"]),
                           _red(c, 2, g * (c["end"] - c["self"]))),
    saves=("self", "end", "weight"), inplace=True, paddle_inplace=True))
