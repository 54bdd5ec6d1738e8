"""Unary math: exp/log families, trigonometry, rounding, special functions.

Kernels are numpy/cupy ufuncs or scipy.special functions (cupyx.scipy.special on
a GPU, via ``backend.special_for``) called with ``out=``, so an in-place form writes
straight into the target's buffer. What each backward saves decides which in-place
ops break a later backward (SEMANTICS.md section 5): ``exp`` saves its result, so
``y = x.exp(); y.add_(1)`` fails at backward; ``sin`` saves its input, so ``x.sin_()``
on a graph tensor first clones the input it is about to overwrite.

>>> import inplace_lab as il
>>> il.tensor([0.0]).exp().grad_fn is None
True
"""
from __future__ import annotations

import math

from .. import policy as _policy
from .. import backend, dtypes
from ..backend import special_for
from .elementwise import (assign, scratch, bool_rule, flags, float_rule, not_implemented_for, overload,
                          promote, refuse_complex, uf, ufunc, under_torch, zeros_grad)
from .table import OPS, OpSpec, register


def unary(name, fwd, backward=None, saves=(), dtype_rule=float_rule, t=True, p=False, **kw):
    kw.setdefault("out_direct", not callable(fwd))  # ufunc kernels write any out= directly
    return register(OpSpec(name=name, forward=fwd if callable(fwd) else uf(fwd), backward=backward,
                           saves=saves, dtype_rule=dtype_rule, **flags(t, p), **kw))


def sp(fname):
    """Forward from scipy.special (cupyx.scipy.special on a GPU), into ``out`` when it fits."""

    def fwd(xp, a, out=None, dt=None):
        f = getattr(special_for(xp), fname)
        if out is not None and out.dtype == dt.np:
            return f(a, out=out)
        return assign(xp, out, f(xp.asarray(a, dtype=dt.np)).astype(dt.np, copy=False))
        # (scipy computes float16 in float64: the result comes back in the op's dtype)

    fwd.__name__ = fname
    return fwd


_EXPIT = sp("expit")


def _same_or_copy(fname):
    """Rounding: identity on integers (numpy would return floats), the ufunc on floats."""

    def fwd(xp, a, out=None, dt=None):
        if dt.category < 2:
            return a.copy() if out is None else assign(xp, out, a)
        return getattr(xp, fname)(a, out=out)

    return fwd


def _keep_dtype(kernel, refuse=("bool",)):
    """dtype rule for ops that keep self's dtype and refuse some categories."""
    return not_implemented_for(kernel, refuse)


def _neg_rule(spec, ins, params):
    dt = promote(ins)
    if dt.category == 0:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return dt


def self_rule(spec, ins, params):
    return ins[0]._dtype


def _sigmoid_fwd(xp, a, out=None, dt=None):
    """scipy's expit; a complex input (no expit loop) as ATen's ``1 / (1 + exp(-x))``."""
    if dt.category == dtypes.COMPLEX:
        with backend.np.errstate(all="ignore"):
            r = 1 / (1 + xp.exp(-xp.asarray(a, dtype=dt.np)))
        return assign(xp, out, r.astype(dt.np, copy=False))
    return _EXPIT(xp, a, out=out, dt=dt)


# ---- exp / log / powers / trigonometry --------------------------------------------------------
# (name, kernel, backward(ctx, g), saves, torch has name_, paddle has name_, aliases)
_UNARY = [
    ("exp", "exp", lambda c, g: g * c["result"], ("result",), True, True, ()),
    ("exp2", "exp2", lambda c, g: g * c["result"] * math.log(2.0), ("result",), True, False, ()),
    ("expm1", "expm1", lambda c, g: g * (c["result"] + 1), ("result",), True, True, ()),
    ("log", "log", lambda c, g: g / c["self"], ("self",), True, True, ()),
    ("log2", "log2", lambda c, g: g / (c["self"] * math.log(2.0)), ("self",), True, True, ()),
    ("log10", "log10", lambda c, g: g / (c["self"] * math.log(10.0)), ("self",), True, True, ()),
    ("log1p", "log1p", lambda c, g: g / (c["self"] + 1), ("self",), True, True, ()),
    ("sqrt", "sqrt", lambda c, g: g / (c["result"] * 2), ("result",), True, True, ()),
    ("sin", "sin", lambda c, g: g * c["self"].cos(), ("self",), True, True, ()),
    ("cos", "cos", lambda c, g: -g * c["self"].sin(), ("self",), True, True, ()),
    ("tan", "tan", lambda c, g: g * (c["result"] * c["result"] + 1), ("result",), True, True, ()),
    ("asin", "arcsin", lambda c, g: g * (1 - c["self"] * c["self"]).rsqrt(), ("self",), True, True,
     ("arcsin",)),
    ("acos", "arccos", lambda c, g: -g * (1 - c["self"] * c["self"]).rsqrt(), ("self",), True, True,
     ("arccos",)),
    ("atan", "arctan", lambda c, g: g / (c["self"] * c["self"] + 1), ("self",), True, True,
     ("arctan",)),
    ("sinh", "sinh", lambda c, g: g * c["self"].cosh(), ("self",), True, True, ()),
    ("cosh", "cosh", lambda c, g: g * c["self"].sinh(), ("self",), True, True, ()),
    ("tanh", "tanh", lambda c, g: g * (1 - c["result"] * c["result"]), ("result",), True, True, ()),
    ("asinh", "arcsinh", lambda c, g: g * (c["self"] * c["self"] + 1).rsqrt(), ("self",), True, True,
     ("arcsinh",)),
    ("acosh", "arccosh", lambda c, g: g * (c["self"] * c["self"] - 1).rsqrt(), ("self",), True, True,
     ("arccosh",)),
    ("atanh", "arctanh", lambda c, g: g / (1 - c["self"] * c["self"]), ("self",), True, True,
     ("arctanh",)),
    ("sigmoid", _sigmoid_fwd, lambda c, g: g * c["result"] * (1 - c["result"]), ("result",), True, True,
     ()),
    ("deg2rad", "deg2rad", lambda c, g: g * (math.pi / 180), (), True, False, ()),
    ("rad2deg", "rad2deg", lambda c, g: g * (180 / math.pi), (), True, False, ()),
]
# PyTorch's words for a complex input, where its kernel has no complex loop
_COMPLEX_REFUSED = {
    "deg2rad": ("deg2rad is not supported for complex tensors.", RuntimeError),
    "rad2deg": ("rad2deg is not supported for complex tensors.", RuntimeError),
}
for _n, _f, _b, _s, _t, _p, _al in _UNARY:
    unary(_n, _f, _b, saves=_s, t=_t, p=_p, aliases=_al,
          dtype_rule=refuse_complex(float_rule, *_COMPLEX_REFUSED[_n]) if _n in _COMPLEX_REFUSED
          else float_rule,
          node_name={"log1p": "Log1PBackward0", "deg2rad": "Deg2RadBackward0",
                     "rad2deg": "Rad2DegBackward0"}.get(_n, ""))



def _not_implemented(what):
    def bw(c, g):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")

    return bw


# PyTorch has no derivative for these three in-place forms (a separate, non-saving overload).
for _n in ("acosh", "asinh", "atanh"):
    _s = OPS[_n]
    _s.inplace_spec = overload(_s, _n.capitalize() + "Backward1", saves=(),
                               backward=_not_implemented(f"inplace version of {_n}"))

def _reciprocal_fwd(xp, a, out=None, dt=None):
    # numpy's reciprocal on integers is integer division; compute 1 / a in the float dtype.
    return xp.true_divide(1, a, out=out, dtype=dt.np, casting="unsafe")


unary("reciprocal", _reciprocal_fwd, lambda c, g: -g * c["result"] * c["result"],
      saves=("result",), p=True)


def _rsqrt(xp, a, out=None, dt=None):
    r = xp.sqrt(a, out=out, dtype=dt.np, casting="unsafe")
    return xp.true_divide(1, r, out=scratch(r))


unary("rsqrt", _rsqrt, lambda c, g: g * c["result"] ** 3 * -0.5, saves=("result",), p=True)

# ---- special functions (scipy.special) -------------------------------------------------------

_SQRT_PI_2 = 2 / math.sqrt(math.pi)
unary("erf", sp("erf"), lambda c, g: g * _SQRT_PI_2 * (-(c["self"] * c["self"])).exp(),
      saves=("self",), p=True, dtype_rule=refuse_complex(float_rule, "erf_vml_cpu"))
unary("erfc", sp("erfc"), lambda c, g: -g * _SQRT_PI_2 * (-(c["self"] * c["self"])).exp(),
      saves=("self",), dtype_rule=refuse_complex(float_rule, "erfc_vml_cpu"))
unary("erfinv", sp("erfinv"),
      lambda c, g: g * (math.sqrt(math.pi) / 2) * (c["self"].erfinv() ** 2).exp(),
      saves=("self",), p=True, dtype_rule=refuse_complex(float_rule, "erfinv_vml_cpu"))
def _lgamma_fwd(xp, a, out=None, dt=None):
    """scipy's gammaln, but log|Gamma(-inf)| is inf in PyTorch (and in C's lgamma)."""
    r = sp("gammaln")(xp, a, out=out, dt=dt)
    if dt.category == 2 and a.size:
        r = xp.asarray(r)  # (a 0-dim result is a numpy scalar)
        r[xp.isneginf(a)] = xp.inf
    return r


unary("lgamma", _lgamma_fwd, lambda c, g: g * c["self"].digamma(), saves=("self",), p=True,
      aliases=("gammaln",), dtype_rule=refuse_complex(float_rule, "lgamma_vml_cpu"))
unary("digamma", sp("psi"), lambda c, g: g * c["self"].polygamma(1), saves=("self",), p=True,
      dtype_rule=refuse_complex(float_rule, "digamma"))
def _bessel_i(fname, parity):
    """scipy's i0/i1 with ATen's edges (special_fns.sp_bessel: float32 overflow, NaN at inf)."""

    def fwd(xp, a, out=None, dt=None):
        from .special_fns import sp_bessel

        return sp_bessel(fname, parity)(xp, a, out=out, dt=dt)

    return fwd


def _i0_bw(c, g):
    from .dispatch import call

    return g * call(OPS["special_i1"], (c["self"],), {})


unary("i0", _bessel_i("i0", "even"), _i0_bw, saves=("self",), p=True,
      dtype_rule=refuse_complex(float_rule, "i0_vml_cpu"))


def _i1_bw(c, g):
    """ATen's i1_backward: ``i0(x) - i1(x) / x`` where ``|x| > eps``, 0.5 elsewhere."""
    x, r = c["self"], c["result"]
    eps = float(backend.np.finfo(x._dtype.np).eps)
    big = x.abs() > eps
    safe = x.where(big, eps)
    return g * (safe.i0() - r * safe.reciprocal()).where(big, 0.5)


# (torch.special.i1; PyTorch has no Tensor.special_i1: inplace_lab.special_i1 only)
unary("special_i1", _bessel_i("i1", "odd"), _i1_bw, saves=("self", "result"), t=False,
      method=False)


def _polygamma_fwd(xp, a, out=None, dt=None, n=0):
    from .special_fns import polygamma_values  # (ATen's trigamma and zeta edges)

    return assign(xp, out, polygamma_values(xp, n, a, dt))


def _polygamma_dtype(spec, ins, params):
    """float_rule; a complex input names the kernel ATen picks for n (digamma, trigamma)."""
    n = params.get("n", 0)
    kernel = "digamma" if n == 0 else "trigamma" if n == 1 else "polygamma"
    return refuse_complex(float_rule, kernel)(spec, ins, params)


POLYGAMMA = register(OpSpec(
    name="polygamma", forward=_polygamma_fwd, params={"n": 0}, dtype_rule=_polygamma_dtype,
    backward=lambda c, g: g * c["self"].polygamma(c["n"] + 1), saves=("self",),
    **flags(True, True)))
POLYGAMMA.inplace_spec = overload(POLYGAMMA, "PolygammaBackward1")


def _mvlgamma_fwd(xp, a, out=None, dt=None, p=1):
    """sum_j lgamma(a - j/2) + p(p-1)/4 log(pi), at any a (PyTorch 2.13 and Paddle 3.3.1 check
    no domain: below (p-1)/2 it is log|Gamma| of the terms)."""
    sp_ = special_for(xp)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    r = sum(sp_.gammaln(a - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)
    return assign(xp, out, xp.asarray(r).astype(dt.np, copy=False))


def _mvlgamma_bw(c, g):
    x, p = c["self"], c["p"]
    d = x.digamma()
    for j in range(1, p):
        d = d + (x - j / 2).digamma()
    return g * d


def _mvlgamma_dtype(spec, ins, params):
    """ATen's mvlgamma_check: a bool input first (before p's check), then the default float
    dtype for integers."""
    if ins[0]._dtype is dtypes.bool_ and under_torch(ins):
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    return refuse_complex(float_rule, "arange_cpu")(spec, ins, params)


def _mvlgamma_cast(ins, dt, target, inplace):
    """mvlgamma_ and out=: ATen's own words, which name self's dtype as the result type and
    the computed dtype as the desired one."""
    if dtypes.can_cast(dt, target) or not under_torch(ins):
        return None
    return (f"mvlgamma: result type {ins[0]._dtype.torch_name} can't be cast to the desired "
            f"output type {dt.torch_name}")


unary("mvlgamma", _mvlgamma_fwd, _mvlgamma_bw, saves=("self",), params={"p": 1}, p=True,
      aliases=("multigammaln",), dtype_rule=_mvlgamma_dtype, cast_error=_mvlgamma_cast)

# ---- sign, abs, rounding ---------------------------------------------------------------------------

def _neg_fwd(xp, a, out=None, dt=None):
    """``negative``, but never into a strided ``out``: numpy 2.4's negative loop for 4-byte
    types misreads a 16-byte-strided input then (``x[1::4].neg_()`` on float32 wrote the
    negated *neighbours*); such a call computes into a temporary and copies."""
    if out is not None and not out.flags.c_contiguous:
        return assign(xp, out, ufunc(xp.negative, (a,), None, dt))
    return ufunc(xp.negative, (a,), out, dt)


_neg_fwd.ufunc = "negative"  # (the lanes' plain call: contiguous targets only)
unary("neg", _neg_fwd, lambda c, g: -g, dtype_rule=_neg_rule, p=True, aliases=("negative",),
      out_direct=True)
def _abs_fwd(xp, a, out=None, dt=None):
    if a.dtype.kind == "c":  # (the modulus, in the real dtype)
        return assign(xp, out, xp.abs(a).astype(dt.np, copy=False))
    return ufunc(xp.absolute, (a,), out, dt)


_abs_fwd.ufunc = "absolute"
_ABS_KEEP = _keep_dtype("abs_cpu")


def _abs_rule(spec, ins, params):
    dt = ins[0]._dtype
    if dt.category == dtypes.COMPLEX:
        return dtypes.float64 if dt is dtypes.complex128 else dtypes.float32
    return _ABS_KEEP(spec, ins, params)


def _abs_cast(ins, dt, target, inplace):
    if inplace and target.category == dtypes.COMPLEX and under_torch(ins):
        return "In-place abs is not supported for complex tensors."
    return None


def _abs_bw(c, g):
    """PyTorch: ``g * sgn(x)`` (an inf gradient at x = 0 gives nan). Paddle's AbsGrad picks
    ``g``, ``-g`` or 0 by x's sign: 0 at x = 0 whatever the gradient (paddle seed 65224)."""
    x = c["self"]
    r = g * x.sign()
    if x._pol is not None and _policy.is_paddle(x._pol) and x._dtype.category == 2:
        r = r.masked_fill(x == 0, 0)
    return r


unary("abs", _abs_fwd, _abs_bw, saves=("self",),
      dtype_rule=_abs_rule, p=True, aliases=("absolute",), cast_error=_abs_cast, out_direct=True)


def _sign_fwd(xp, a, out=None, dt=None, nan=0):
    """PyTorch's ``(0 < a) - (a < 0)``: the sign of nan is 0 (Paddle's, as numpy's, is nan)."""
    if dt.category == 0:
        return a.copy() if out is None else assign(xp, out, a)
    r = xp.sign(a, out=out)
    if nan == 0 and dt.category == 2 and a.size:
        r = xp.asarray(r)  # (a 0-dim result is a numpy scalar)
        r[xp.isnan(a)] = 0
    return r


def _paddle_sign(spec):
    """``spec`` as Paddle runs it (nan stays nan), chosen for a Paddle tensor."""
    keep = overload(spec, spec.node_name, forward=lambda *a, **k: _sign_fwd(*a, nan=None, **k))
    spec.select = lambda args, kw: keep if _policy.is_paddle(getattr(args[0], "_pol", None)) \
        else None


for _s in (unary("sign", _sign_fwd, lambda c, g: zeros_grad(g), dtype_rule=refuse_complex(
        "self", "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                "torch.sgn instead.")),
           unary("sgn", _sign_fwd, lambda c, g: zeros_grad(g), saves=("self", "result"),
                 dtype_rule=self_rule)):
    _paddle_sign(_s)
for _n, _k in (("floor", "floor_vml_cpu"), ("ceil", "ceil_vml_cpu"), ("trunc", "trunc_vml_cpu")):
    unary(_n, _same_or_copy(_n), lambda c, g: zeros_grad(g), p=True, dtype_rule=refuse_complex(
        _keep_dtype(_k), f"{_n} is not supported for complex inputs"),
          aliases=("fix",) if _n == "trunc" else ())
unary("frac", lambda xp, a, out=None, dt=None: xp.subtract(a, xp.trunc(a), out=out),
      lambda c, g: g, dtype_rule=_keep_dtype("frac_cpu", ("bool", "int", "complex")), p=True)


def _round_fwd(xp, a, out=None, dt=None, decimals=0):
    if dt.category < 2:
        return a.copy() if out is None else assign(xp, out, a)
    with backend.np.errstate(all="ignore"):  # (numpy's Python round would warn from its own frame)
        return xp.round(a, decimals, out=out)


_ROUND_VML = _keep_dtype("round_vml_cpu", ("bool", "complex"))
_ROUND_DECIMALS = _keep_dtype("round_cpu", ("bool", "complex"))
ROUND = unary("round", _round_fwd, lambda c, g: zeros_grad(g), dtype_rule=_ROUND_VML,
              params={"decimals": 0}, p=True)
_ROUND1_TORCH = {k: _keep_dtype(k, ("bool", "int", "complex"))
                 for k in ("round_vml_cpu", "round_cpu")}


def _round1_rule(spec, ins, params):
    """ATen's round.decimals runs round_stub for decimals=0, round_decimals_stub ("round_cpu")
    otherwise; neither has an integer loop (Paddle's round keeps integers as they are)."""
    kernel = "round_cpu" if params.get("decimals") else "round_vml_cpu"
    pol = getattr(ins[0], "_pol", None) if ins else None
    if pol is not None and _policy.is_paddle(pol):
        return (_ROUND_DECIMALS if params.get("decimals") else _ROUND_VML)(spec, ins, params)
    return _ROUND1_TORCH[kernel](spec, ins, params)


_ROUND1 = overload(ROUND, "RoundBackward1", dtype_rule=_round1_rule)
ROUND.select = lambda args, kw: _ROUND1 if len(args) > 1 or "decimals" in kw else None


def _angle_fwd(xp, a, out=None, dt=None):
    """The argument of each value: ``angle`` of a complex value; a real one's is pi below
    zero, 0 elsewhere (-0.0 included), NaN for NaN (ATen's angle_impl), in the result dtype."""
    if a.dtype.kind == "c":
        return assign(xp, out, xp.angle(a.astype("complex128")).astype(dt.np, copy=False))
        # (ATen's atan2 of a complex64 value is correctly rounded: numpy's float32 one not)
    a = xp.asarray(a).astype(dt.np, copy=False)
    r = xp.where(a < 0, dt.np.type(math.pi), dt.np.type(0)).astype(dt.np, copy=False)
    return assign(xp, out, xp.where(a != a, a, r))


def _angle_rule(spec, ins, params):
    """Real dtype of a complex input; the default float dtype for bool and integer inputs."""
    dt = promote(ins)
    if dt.category == dtypes.COMPLEX:
        return dtypes.float64 if dt is dtypes.complex128 else dtypes.float32
    return float_rule(spec, ins, params)


def _angle_bw(c, g):
    """ATen's angle_backward: zeros like self for a real input; for a complex one
    ``grad * self / |self|^2 * i``, 0 where self is 0."""
    x = c["self"]
    if not x.dtype.is_complex:
        from ..creation import zeros_like

        return zeros_like(x)
    # (complex tensors here have no real/imag/abs views: the formula on the arrays, once)
    from ..tensor import Tensor

    xa, ga = x._a, g._a
    xp = backend.array_module(xa)
    with backend.np.errstate(all="ignore"):
        r = ga * xa / (xa.real * xa.real + xa.imag * xa.imag) * 1j
    r = xp.where(xa == 0, 0, r).astype(xa.dtype)
    return Tensor._wrap(r, x._storage.device, x._pol)


unary("angle", _angle_fwd, _angle_bw, saves=("self",), dtype_rule=_angle_rule, t=False,
      doc="torch.angle(input, *, out=None): the argument of each value (0 or pi for reals).")


def _square_rule(spec, ins, params):
    from ..dtypes import int64

    dt = promote(ins)
    return int64 if dt.category == 0 else dt


SQUARE = unary("square", "square", lambda c, g: g * 2 * c["self"], saves=("self",),
               dtype_rule=_square_rule, p=True, node_name="PowBackward0")


def positive(input):
    """``+x``: ``x`` itself, not a copy (PyTorch's and Paddle's ``positive`` return their
    input: same tensor, same grad_fn); a bool tensor is refused."""
    if input._dtype.category == 0:
        paddle = input._pol is not None and _policy.is_paddle(input._pol)
        raise (TypeError if paddle else RuntimeError)(
            "The `+` operator, on a bool tensor is not supported.")
    return input


register(OpSpec(name="positive", forward=positive, kind="composite", args=("self",),
                doc=positive.__doc__))


def _sinc_fwd(xp, a, out=None, dt=None):
    with backend.np.errstate(all="ignore"):  # (numpy's Python sinc would warn from its own frame)
        # normalised, like PyTorch's; half in float (ATen's opmath), rounded once
        # numpy's sinc written out (cupy's rounds otherwise): pi * x in x's dtype, sin(y) / y
        x = xp.asarray(a, dtype="float32" if dt is dtypes.float16 else dt.np)
        y = xp.multiply(x, x.dtype.type(math.pi))
        y = xp.where(y == 0, backend.np.finfo(x.dtype).eps, y)
        r = xp.true_divide(xp.sin(y), y)
    return assign(xp, out, r.astype(dt.np, copy=False))


def _sinc_bw(c, g):
    x = c["self"]
    px = x * math.pi
    d = (px.cos() * px - px.sin()) / (px * x)
    return g * d.where(x != 0, 0.0)  # (masked_fill_(x == 0, 0): 0 there, not NaN)


unary("sinc", _sinc_fwd, _sinc_bw, saves=("self",), p=True)


def _logit_fwd(xp, a, out=None, dt=None, eps=None):
    x = xp.asarray(a, dtype=dt.np)
    if eps is not None:
        x = xp.clip(x, eps, 1 - eps)
    r = xp.log(xp.true_divide(x, xp.subtract(1, x, dtype=dt.np), dtype=dt.np))
    return assign(xp, out, r)


def _logit_bw(c, g):
    x, eps = c["self"], c["eps"]
    d = g / (x * (1 - x))  # ATen: outside [lo, hi] NaN (no eps) or 0 (eps), a NaN x passes
    lo, hi = (0, 1) if eps is None else (eps, 1 - eps)
    return d.where((x < lo).logical_or(x > hi).logical_not(), float("nan") if eps is None else 0.0)


unary("logit", _logit_fwd, _logit_bw, saves=("self",), params={"eps": None}, p=True,
      dtype_rule=refuse_complex(float_rule, "logit_cpu"))


def _nan_to_num_fwd(xp, a, out=None, dt=None, nan=0.0, posinf=None, neginf=None):
    if dt.category < 2:
        return a.copy() if out is None else assign(xp, out, a)
    if out is not None and out is not a:
        out[...] = a
        a = out
    r = xp.nan_to_num(a, copy=out is None, nan=nan, posinf=posinf, neginf=neginf)
    return r


unary("nan_to_num", _nan_to_num_fwd, lambda c, g: g * c["self"].isfinite(), saves=("self",),
      dtype_rule=self_rule, params={"nan": 0.0, "posinf": None, "neginf": None}, p=True)
def _bool_out(name):
    """signbit's (isposinf's, isneginf's) out= must be bool (ATen's own check, whatever the
    cast rule allows)."""
    def check(ins, dt, target, inplace):
        if target is not dtypes.bool_ and under_torch(ins):
            return f"{name} does not support non-boolean outputs."
        return None

    return check


for _n in ("isfinite", "isnan", "isinf", "isposinf", "isneginf", "signbit"):
    unary(_n, (lambda f: lambda xp, a, out=None, dt=None: getattr(xp, f)(a))(_n),
          dtype_rule=refuse_complex(bool_rule, "signbit is not implemented for complex tensors.")
          if _n == "signbit" else bool_rule, t=False,
          # (torch.isnan, isinf and isfinite take no out=: the parser's TypeError)
          out=_n not in ("isfinite", "isnan", "isinf"),
          cast_error=_bool_out(_n) if _n in ("isposinf", "isneginf", "signbit") else None)
