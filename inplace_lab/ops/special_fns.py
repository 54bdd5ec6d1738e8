"""The ops behind ``torch.special`` that the rest of the table does not have (Bessel and
gamma-family functions, the orthogonal polynomials, ndtri/log_ndtr, erfcx, entr,
xlog1py, zeta...), registered in the op table like every other op.

PyTorch has none of them as a Tensor method nor as a ``torch.<name>`` function
(``torch.special.<name>`` only), so every entry here has ``method=False,
function=False``; ``inplace_lab/torch/special.py`` calls them through the dispatcher.

Kernels: scipy.special on the CPU, cupyx.scipy.special on a GPU where it has the
function; where it has not (``airy``), the kernel runs on a host copy and the result
goes back to the device. The orthogonal polynomials are PyTorch's own recurrences
(ATen/native/Math.h), vectorised: the same branches, in the result dtype, so float32
rounds as PyTorch's float32 kernel does.

The Bessel functions, Airy's Ai and the polynomials have no derivative in PyTorch
(``output_differentiability: [False]``): their results never require grad.

>>> import inplace_lab.torch as torch
>>> torch.special.chebyshev_polynomial_t(torch.tensor([0.5]), 3)
tensor([-1.])
"""
from __future__ import annotations

import math

import numpy as np

from .. import backend
from ..backend import special_for
from .elementwise import arg, assign, float_rule, is_tensor, overload, red
from .table import OpSpec, register

_INT64_MIN = -(2 ** 63)


# ---- kernels ---------------------------------------------------------------------------------

def _sf(xp, name):
    """``name`` of scipy.special for ``xp``'s arrays: cupyx.scipy.special's where it has it,
    else scipy's run on a host copy (the result comes back to the device)."""
    mod = special_for(xp)
    f = getattr(mod, name, None)
    if f is not None:
        return f
    import scipy.special as sp

    g = getattr(sp, name)

    def on_host(*a):
        r = g(*[backend.to_numpy(v) if hasattr(v, "shape") else v for v in a])
        return tuple(xp.asarray(v) for v in r) if isinstance(r, tuple) else xp.asarray(r)

    return on_host


def _calc(xp, a, dt):
    """The input in the dtype scipy computes in (float16 has few scipy loops: float32)."""
    return xp.asarray(a, dtype=np.float32 if dt.np == np.float16 else dt.np)


def _sp_unary(fname, pick=None):
    """Forward of a scipy.special function of one argument (``pick``: one of a tuple result)."""

    def fwd(xp, a, out=None, dt=None):
        with np.errstate(all="ignore"):
            r = _sf(xp, fname)(_calc(xp, a, dt))
        if pick is not None:
            r = r[pick]
        return assign(xp, out, xp.asarray(r).astype(dt.np, copy=False))

    fwd.__name__ = fname
    return fwd


def _sp_binary(fname):
    def fwd(xp, a, b, out=None, dt=None):
        with np.errstate(all="ignore"):
            r = _sf(xp, fname)(_calc(xp, a, dt), _calc(xp, b, dt))
        return assign(xp, out, xp.asarray(r).astype(dt.np, copy=False))

    fwd.__name__ = fname
    return fwd


def _spherical_j0_fwd(xp, a, out=None, dt=None):
    """ATen's spherical_bessel_j0: a Taylor polynomial below 0.5, sin(x)/x above, 0 at inf."""
    x = xp.asarray(a, dtype=dt.np)
    x2 = x * x
    c = [1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0,
         -1.0 / 6.0]
    poly = xp.full_like(x2, c[0])
    for k in c[1:]:
        poly = x2 * poly + dt.np.type(k)
    poly = 1 + x2 * poly
    with np.errstate(all="ignore"):
        r = xp.where(xp.isinf(x), 0, xp.where(xp.abs(x) < 0.5, poly, xp.sin(x) / x))
    return assign(xp, out, r.astype(dt.np, copy=False))


# ---- orthogonal polynomials (ATen's recurrences) ---------------------------------------------

def _degree(xp, n, dt, shape):
    """PyTorch's ``static_cast<int64_t>(n)`` of ``n`` in the result dtype: truncation; NaN,
    infinities and out-of-range values give INT64_MIN (x86's answer), hence 0."""
    nf = xp.broadcast_to(xp.asarray(n, dtype=dt.np), shape)
    ok = xp.isfinite(nf) & (xp.abs(nf) < 2.0 ** 63)
    return xp.where(ok, xp.where(ok, nf, 0).astype(np.int64), _INT64_MIN)


class _Select:
    """First-match assignment: each ``put(mask, value)`` fills the cells no earlier one took
    (the ``if ... return`` chain of ATen's scalar kernel)."""

    def __init__(self, xp, shape, dt):
        self.xp, self.dt = xp, dt
        self.res = xp.full(shape, np.nan, dtype=dt)
        self.free = xp.ones(shape, dtype=bool)

    def put(self, mask, value):
        m = mask & self.free
        self.res = self.xp.where(m, self.xp.asarray(value, dtype=self.dt), self.res)
        self.free = self.free & ~m


def _recurrence(xp, sel, x, n, q0, step, k_from, k_last):
    """``for k in range(k_from, k_last(n) + 1): p, q = q, step(k, x, p, q)`` on the cells
    still free, vectorised over them (each stops at its own degree)."""
    cells = sel.free
    if not bool(cells.any()):
        return
    xs, ns, q = x[cells], n[cells], q0[cells]
    p = xp.ones_like(q)
    last = k_last(ns)
    top = int(last.max()) if last.size else 0
    for k in range(k_from, top + 1):
        on = k <= last
        r = step(k, xs, p, q)
        p, q = xp.where(on, q, p), xp.where(on, r, q)
    res = sel.res.copy()
    res[cells] = q
    sel.res = res
    sel.free = sel.free & ~cells


def _chebyshev(kind, shifted):
    """Chebyshev T/U/V/W (shifted: of ``2x - 1``), as ATen's chebyshev_polynomial_*_forward."""
    thr = (6 if kind == "t" else 8) if not shifted else (4 if kind == "w" else 6)

    def fwd(xp, a, b, out=None, dt=None):
        with np.errstate(all="ignore"):
            r = _chebyshev_eval(xp, a, b, dt, kind, shifted, thr)
        return assign(xp, out, r)

    fwd.__name__ = f"{'shifted_' if shifted else ''}chebyshev_polynomial_{kind}"
    return fwd


def _chebyshev_eval(xp, a, b, dt, kind, shifted, thr):
    T = dt.np.type
    x = xp.asarray(a, dtype=T)
    shape = np.broadcast_shapes(x.shape, xp.asarray(b).shape)
    x = xp.broadcast_to(x, shape)
    n = _degree(xp, b, dt, shape)
    nf = n.astype(T)  # (n in a float expression: converted to T, as in C++)
    one = T(1.0)
    y = (x + x - one) if shifted else x
    even = n % 2 == 0
    sel = _Select(xp, shape, T)
    sel.put(n < 0, 0)
    # the end points: x == 1 and x == -1 (shifted: x == 1 and x == 0)
    hi, lo = (x == one), ((x == 0) if shifted else (x == -one))
    n1, n2 = (nf + 1), (nf + nf + 1)
    sel.put(hi, {"t": one, "u": n1, "v": one, "w": n2}[kind])
    sel.put(lo, {"t": xp.where(even, one, -one), "u": xp.where(even, n1, -n1),
                 "v": xp.where(even, n2, -n2), "w": xp.where(even, one, -one)}[kind])
    # high degrees inside (-1, 1): the trigonometric closed forms
    inside = (n > thr) & (xp.abs(y) < one)
    ac = xp.arccos(y)
    if kind == "t":
        closed = xp.cos(nf * ac)
    elif kind == "u":
        s = xp.sin(ac)
        closed = xp.where(s != 0, xp.sin(n1 * ac) / s, n1 * xp.cos(n1 * ac) / y)
    elif kind == "v":
        closed = xp.where(xp.sin(ac / T(2.0)) != one,
                          xp.cos((nf + T(0.5)) * ac) / xp.cos(ac / T(2.0)),
                          xp.where(even, n2, -n2))
    else:
        fallback = xp.where(even, one, -one) if shifted else \
            xp.where(x > 0, n2, xp.where(even, one, -one))
        closed = xp.where(xp.cos(ac / T(2.0)) != one,
                          xp.sin((nf + T(0.5)) * ac) / xp.sin(ac / T(2.0)), fallback)
    sel.put(inside, closed)
    q0 = {"t": y, "u": y + y, "v": y + y - one, "w": y + y + one}[kind]
    sel.put(n == 0, one)
    sel.put(n == 1, q0)
    _recurrence(xp, sel, y, n, q0, lambda k, ys, p, q: (ys + ys) * q - p, 2, lambda ns: ns)
    return sel.res


def _hermite(physicists):
    """Hermite H (physicists') and He (probabilists'): NaN above degree 128 (float32) or
    512 (float64), as ATen's getHermitianLimit."""

    def fwd(xp, a, b, out=None, dt=None):
        T = dt.np.type
        x = xp.asarray(a, dtype=T)
        shape = np.broadcast_shapes(x.shape, xp.asarray(b).shape)
        x = xp.broadcast_to(x, shape)
        n = _degree(xp, b, dt, shape)
        q0 = x + x if physicists else x
        sel = _Select(xp, shape, T)
        with np.errstate(all="ignore"):
            sel.put(n < 0, 0)
            sel.put(n == 0, 1)
            sel.put(n == 1, q0)
            sel.put(n > (128 if T == np.float32 else 512), np.nan)
            if physicists:  # for (k = 2; k < n + n; k += 2): r = (x + x) q - k p
                _recurrence(xp, sel, x, n, q0, lambda k, xs, p, q: (xs + xs) * q - (2 * k - 2) * p,
                            2, lambda ns: ns)
            else:  # for (k = 1; k < n; k++): r = x q - k p
                _recurrence(xp, sel, x, n, q0, lambda k, xs, p, q: xs * q - (k - 1) * p, 2,
                            lambda ns: ns)
        return assign(xp, out, sel.res)

    fwd.__name__ = "hermite_polynomial_h" if physicists else "hermite_polynomial_he"
    return fwd


def _laguerre_fwd(xp, a, b, out=None, dt=None):
    T = dt.np.type
    x = xp.asarray(a, dtype=T)
    shape = np.broadcast_shapes(x.shape, xp.asarray(b).shape)
    x = xp.broadcast_to(x, shape)
    n = _degree(xp, b, dt, shape)
    one = T(1.0)
    sel = _Select(xp, shape, T)
    with np.errstate(all="ignore"):
        sel.put(n < 0, 0)
        sel.put(x == 0, one)
        sel.put(n == 0, one)
        sel.put(n == 1, one - x)
        # for (k = 1; k < n; k++): r = ((k + k) + (1 - x)) q - k p) / (k + 1)
        _recurrence(xp, sel, x, n, one - x,
                    lambda k, xs, p, q: (((2 * k - 2) + (one - xs)) * q - (k - 1) * p) / k,
                    2, lambda ns: ns)
    return assign(xp, out, sel.res)


def _legendre_fwd(xp, a, b, out=None, dt=None):
    T = dt.np.type
    x = xp.asarray(a, dtype=T)
    shape = np.broadcast_shapes(x.shape, xp.asarray(b).shape)
    x = xp.broadcast_to(x, shape)
    n = _degree(xp, b, dt, shape)
    one = T(1.0)
    sel = _Select(xp, shape, T)
    with np.errstate(all="ignore"):
        sel.put(n < 0, 0)
        unit = xp.abs(x) == one
        sel.put(unit & ((x > 0) | (n % 2 == 0)), one)
        sel.put(unit, -one)
        sel.put(n == 0, one)
        sel.put(n == 1, x)
        # for (k = 1; k < n; k++): r = ((k + k + 1) x q - k p) / (k + 1)
        _recurrence(xp, sel, x, n, x,
                    lambda k, xs, p, q: ((2 * k - 1) * xs * q - (k - 1) * p) / k,
                    2, lambda ns: ns)
    return assign(xp, out, sel.res)


# ---- backward formulas (derivatives.yaml) ----------------------------------------------------

def _entr_bw(c, g):
    return g * (-(1 + c["self"].log()))


def _erfcx_bw(c, g):
    return (2.0 * c["self"] * c["result"] - 2.0 / math.sqrt(math.pi)) * g


def _ndtri_bw(c, g):
    return g * math.sqrt(2 * math.pi) * (c["result"].square() / 2).exp()


def _log_ndtr_bw(c, g):
    x = c["self"]
    return g / math.sqrt(2 * math.pi) * (c["result"] + x.pow(2) / 2).neg().exp()


def _call(spec, *args):
    from .dispatch import call

    return call(spec, args, {})


def _i0e_bw(c, g):
    x = c["self"]
    return g * (_call(I1E, x) - x.sgn() * c["result"])


def _i1e_bw(c, g):
    """ATen's i1e_backward: ``i0e(x) - (sgn(x) + 1/x) * i1e(x)``, 0.5 at x == 0."""
    x, r = c["self"], c["result"]
    d = _call(I0E, x) - (x.sgn() + x.reciprocal()) * r
    return g * d.where(x != 0, d * 0 + 0.5)


def _xlog1py_bw(c, g):
    x, y = c["self"], c["other"]
    gx = gy = None
    if c.needs_input_grad[0]:
        v = _call(XLOG1PY, g, y)
        if is_tensor(y):
            gx = red(c, 0, v.masked_fill((x == 0).logical_and(y <= -1), 0.0))
        else:
            gx = red(c, 0, v if y > -1 else v.masked_fill(x == 0, 0.0))
    if len(c.needs_input_grad) > 1 and c.needs_input_grad[1]:
        gy = red(c, 1, g * x / (y + 1))
    return (gx, gy)


def _zeta_bw(c, g):
    x, q = c["self"], c["other"]
    if c.needs_input_grad[0]:
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")
    gq = None
    if len(c.needs_input_grad) > 1 and c.needs_input_grad[1]:
        gq = red(c, 1, g * -x * _call(ZETA, x + 1.0, q))
    return (None, gq)


# ---- the table entries -----------------------------------------------------------------------

def _special(name, fwd, backward=None, saves=(), args=("self",), **kw):
    """A torch.special op: ``special_<name>``, no Tensor method, no ``torch.<name>``."""
    return register(OpSpec(name="special_" + name, forward=fwd, backward=backward, args=args,
                           saves=saves, dtype_rule=float_rule, method=False, function=False,
                           layout="ti", **kw))


ENTR = _special("entr", _sp_unary("entr"), _entr_bw, saves=("self",))
ERFCX = _special("erfcx", _sp_unary("erfcx"), _erfcx_bw, saves=("self", "result"))
NDTRI = _special("ndtri", _sp_unary("ndtri"), _ndtri_bw, saves=("result",))
LOG_NDTR = _special("log_ndtr", _sp_unary("log_ndtr"), _log_ndtr_bw, saves=("self", "result"))
I0E = _special("i0e", _sp_unary("i0e"), _i0e_bw, saves=("self", "result"),
               node_name="SpecialI0EBackward0")
I1E = _special("i1e", _sp_unary("i1e"), _i1e_bw, saves=("self", "result"),
               node_name="SpecialI1EBackward0")

# no derivative (PyTorch: output_differentiability [False])
for _name, _fwd in [
        ("airy_ai", _sp_unary("airy", pick=0)),
        ("bessel_j0", _sp_unary("j0")), ("bessel_j1", _sp_unary("j1")),
        ("bessel_y0", _sp_unary("y0")), ("bessel_y1", _sp_unary("y1")),
        ("modified_bessel_i0", _sp_unary("i0")), ("modified_bessel_i1", _sp_unary("i1")),
        ("modified_bessel_k0", _sp_unary("k0")), ("modified_bessel_k1", _sp_unary("k1")),
        ("scaled_modified_bessel_k0", _sp_unary("k0e")),
        ("scaled_modified_bessel_k1", _sp_unary("k1e")),
        ("spherical_bessel_j0", _spherical_j0_fwd)]:
    _special(_name, _fwd)

POLYNOMIALS = {}
for _kind in "tuvw":
    for _shifted in (False, True):
        _n = f"{'shifted_' if _shifted else ''}chebyshev_polynomial_{_kind}"
        POLYNOMIALS[_n] = _special(_n, _chebyshev(_kind, _shifted), args=("self", "n"))
POLYNOMIALS["hermite_polynomial_h"] = _special("hermite_polynomial_h", _hermite(True),
                                               args=("self", "n"))
POLYNOMIALS["hermite_polynomial_he"] = _special("hermite_polynomial_he", _hermite(False),
                                                args=("self", "n"))
POLYNOMIALS["laguerre_polynomial_l"] = _special("laguerre_polynomial_l", _laguerre_fwd,
                                                args=("self", "n"))
POLYNOMIALS["legendre_polynomial_p"] = _special("legendre_polynomial_p", _legendre_fwd,
                                                args=("self", "n"))


def _scalar_overloads(spec, stem):
    """Tensor-Tensor (Backward0), Scalar-Tensor (Backward1), Tensor-Scalar (Backward2): the
    Python number gets no edge, as xlogy's overloads."""
    one = overload(spec, stem + "Backward1", scalar_edges=False)
    two = overload(spec, stem + "Backward2", scalar_edges=False)
    spec.select = lambda args, kw: (one if args and not is_tensor(args[0]) else
                                    None if is_tensor(arg(args, kw, 1, "other")) else two)


XLOG1PY = _special("xlog1py", _sp_binary("xlog1py"), _xlog1py_bw, saves=("self", "other"),
                   args=("self", "other"), node_name="SpecialXlog1PyBackward0")
_scalar_overloads(XLOG1PY, "SpecialXlog1Py")
ZETA = _special("zeta", _sp_binary("zeta"), _zeta_bw, saves=("self", "other"),
                args=("self", "other"))
_scalar_overloads(ZETA, "SpecialZeta")
