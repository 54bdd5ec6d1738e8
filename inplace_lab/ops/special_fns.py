"""The ops behind ``torch.special`` that the rest of the table does not have (Bessel and
gamma-family functions, the orthogonal polynomials, ndtri/log_ndtr, erfcx, entr,
xlog1py, zeta...), registered in the op table like every other op.

PyTorch has none of them as a Tensor method nor as a ``torch.<name>`` function
(``torch.special.<name>`` only), so every entry here has ``method=False,
function=False``; ``inplace_lab/torch/special.py`` calls them through the dispatcher.

Kernels: scipy.special on the CPU, cupyx.scipy.special on a GPU where it has the
function; where it has not, the kernel runs on a host copy and the result goes back to
the device. Where scipy's answer differs from ATen's beyond rounding, the kernel is
ATen's own code (ATen/native/Math.h) vectorised over the arrays, with the same branches
in the result dtype (so float32 rounds as torch's float32 kernel does): Airy's Ai, the
Bessel functions J0/J1/Y0/Y1, log_ndtr, trigamma, the orthogonal polynomials (their
recurrences, each cell stopping at its own degree); elsewhere scipy's value gets ATen's
edges (zeta at q = inf, igamma at 0/inf/NaN, i0/i1 overflowing in float32).

The Bessel functions, Airy's Ai and the polynomials have no derivative in PyTorch
(``output_differentiability: [False]``): their results never require grad.

>>> import inplace_lab.torch as torch
>>> torch.special.chebyshev_polynomial_t(torch.tensor([0.5]), 3)
tensor([-1.])
"""
from __future__ import annotations

import math

import numpy as np

from .. import backend, dtypes
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


def sp_bessel(fname, exp_overflow=""):
    """scipy's ``fname`` (i0, i1) with ATen's edges; the table's i0 and special_i1 use it."""
    return _sp_unary(fname, exp_overflow)


def polygamma_values(xp, n, a, dt):
    """ATen's polygamma: digamma (n = 0), its own trigamma (n = 1: the reflection
    ``-pi^2 / sin^2(pi x)`` below 0.5, six recurrence steps, an asymptotic series; in float32
    the reflection is finite near the poles), else ``+-n! * zeta(n + 1, x)`` with ATen's
    zeta (NaN at x = +inf)."""
    with np.errstate(all="ignore"):
        x = _calc(xp, a, dt)  # (float16 computes in float32, as ATen's opmath)
        T = x.dtype.type
        if n < 0:  # (refused by torch's front ends; scipy's answer for the others)
            r = _sf(xp, "polygamma")(n, x)
        elif n == 0:
            r = _sf(xp, "psi")(x)
        elif n == 1:
            low = x < T(0.5)
            s = xp.sin(T(math.pi) * x)
            res = xp.where(low, -(T(math.pi) * T(math.pi)) / (s * s), T(0.0))
            x = xp.where(low, T(1.0) - x, x)
            for _ in range(6):
                res = res + T(1.0) / (x * x)
                x = x + T(1.0)
            ixx = T(1.0) / (x * x)
            res = res + (T(1.0) + T(1.0) / (T(2.0) * x) + ixx * (
                T(1.0 / 6) - ixx * (T(1.0 / 30) - ixx * T(1.0 / 42)))) / x
            r = xp.where(low, -res, res)
        else:
            z = _zeta_fwd(xp, xp.asarray(float(n + 1), dtype=dt.np), x, dt=dt)
            r = (1.0 if n % 2 else -1.0) * math.exp(math.lgamma(n + 1.0)) * z
    return xp.asarray(r).astype(dt.np, copy=False)


def igamma_edges(xp, a, x, r, upper, dt):
    """ATen's calc_igamma/calc_igammac before their series: NaN for a negative argument,
    a = 0 gives 1 (upper: 0) for x > 0, x = 0 gives 0 (1), an infinite a 0 (1) unless x is
    infinite too, an infinite x 1 (0); the first rule that holds wins (NaN a with x = 0 is
    0, as in ATen; scipy says NaN)."""
    T = dt.np.type
    a, x = xp.asarray(a, dtype=dt.np), xp.asarray(x, dtype=dt.np)
    lo, hi = (T(1.0), T(0.0)) if upper else (T(0.0), T(1.0))
    shape = np.broadcast_shapes(a.shape, x.shape, xp.asarray(r).shape)
    sel = _Select(xp, shape, T)
    with np.errstate(invalid="ignore"):
        sel.put((x < 0) | (a < 0), np.nan)
        sel.put(a == 0, xp.where(x > 0, hi, T(np.nan)))
        sel.put(x == 0, lo)
        sel.put(xp.isinf(a), xp.where(xp.isinf(x), T(np.nan), lo))
        sel.put(xp.isinf(x), hi)
        sel.put(sel.free, r)
    return sel.res.astype(dt.np, copy=False)


def _sp_unary(fname, exp_overflow=""):
    """Forward of a scipy.special function of one argument. ``exp_overflow`` ("even" or
    "odd"): ATen's float32 kernel multiplies by ``exp(|x|)`` in float32, so where that
    overflows its answer is an infinity (signed as x for an odd function), not scipy's
    float64 value rounded; at +-inf it is NaN (inf / sqrt(inf))."""

    def fwd(xp, a, out=None, dt=None):
        with np.errstate(all="ignore"):
            x = _calc(xp, a, dt)
            r = xp.asarray(_sf(xp, fname)(x)).astype(dt.np, copy=False)
            if exp_overflow and dt.np.itemsize <= 4:
                big = xp.isinf(xp.exp(xp.abs(x.astype(np.float32))))
                inf = xp.copysign(np.inf, x) if exp_overflow == "odd" else np.inf
                r = xp.where(big & ~xp.isnan(x), inf, r).astype(dt.np, copy=False)
            if exp_overflow:  # (exp(inf) * c / sqrt(inf): NaN)
                r = xp.where(xp.isinf(x), np.nan, r).astype(dt.np, copy=False)
        return assign(xp, out, r)

    fwd.__name__ = fname
    return fwd


# ATen's airy_ai_forward (Cephes): asymptotic forms below -2.09 and from 2.09 up, the power
# series in between; +-inf is NaN, above 103.892 zero.
_AN = (+3.46538101525629032477e-01, +1.20075952739645805542e+01, +7.62796053615234516538e+01,
       +1.68089224934630576269e+02, +1.59756391350164413639e+02, +7.05360906840444183113e+01,
       +1.40264691163389668864e+01, +9.99999999999999995305e-01)
_AD = (+5.67594532638770212846e-01, +1.47562562584847203173e+01, +8.45138970141474626562e+01,
       +1.77318088145400459522e+02, +1.64234692871529701831e+02, +7.14778400825575695274e+01,
       +1.40959135607834029598e+01, +1.00000000000000000470e+00)
_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
        -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
        -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
_AFD = (+1.33560420706553243746e+01, +3.26825032795224613948e+01, +2.67367040941499554804e+01,
        +9.18707402907259625840e+00, +1.47529146771666414581e+00, +1.15687173795188044134e-01,
        +4.40291641615211203805e-03, +7.54720348287414296618e-05, +4.51850092970580378464e-07)
_AGN = (+1.97339932091685679179e-02, +3.91103029615688277255e-01, +1.06579897599595591108e+00,
        +9.39169229816650230044e-01, +3.51465656105547619242e-01, +6.33888919628925490927e-02,
        +5.85804113048388458567e-03, +2.82851600836737019778e-04, +6.98793669997260967291e-06,
        +8.11789239554389293311e-08, +3.41551784765923618484e-10)
_AGD = (+9.30892908077441974853e+00, +1.98352928718312140417e+01, +1.55646628932864612953e+01,
        +5.47686069422975497931e+00, +9.54293611618961883998e-01, +8.64580826352392193095e-02,
        +4.12656523824222607191e-03, +1.01259085116509135510e-04, +1.17166733214413521882e-06,
        +4.91834570062930015649e-09)


def _horner(xp, coeffs, z, T):
    acc = xp.zeros_like(z)
    for c in coeffs:
        acc = acc * z + T(c)
    return acc


def _airy_ai_fwd(xp, a, out=None, dt=None):
    T = dt.np.type
    x = xp.asarray(a, dtype=dt.np)
    with np.errstate(all="ignore"):
        # x < -2.09: the oscillating asymptotic form
        sq = xp.sqrt(-x)
        z = T(1.0) / (T(-2.0) * x * sq / T(3.0))
        zz = z * z
        afn, afd = _horner(xp, _AFN, zz, T), _horner(xp, _AFD, zz, T)
        agn, agd = _horner(xp, _AGN, zz, T), _horner(xp, _AGD, zz, T)
        t = T(-2.0) * x * sq / T(3.0) + T(0.25) * T(math.pi)
        neg = T(5.64189583547756286948e-01) / xp.sqrt(sq) * (
            xp.sin(t) * (T(1.0) + zz * afn / afd) - xp.cos(t) * (z * agn / agd))
        # x >= 2.09: the decaying asymptotic form
        zeta = T(2.0) * x * xp.sqrt(x) / T(3.0)
        an, ad = _horner(xp, _AN, T(1.0) / zeta, T), _horner(xp, _AD, T(1.0) / zeta, T)
        pos = T(5.64189583547756286948e-01) * (an / ad) / (
            T(2.0) * xp.sqrt(xp.sqrt(x)) * xp.exp(zeta))
        # in between: the power series, each cell until its term is below eps
        f, g, k = xp.ones_like(x), x.copy(), xp.ones_like(x)
        m, n, z3 = xp.ones_like(x), x.copy(), x * x * x
        live = (xp.abs(x) < T(2.09)) | xp.isnan(x)
        eps = T(np.finfo(dt.np).eps)
        while bool(live.any()):
            m2 = m * z3
            k2 = k + T(1.0)
            m2 = m2 / k2
            n2 = n * z3
            k2 = k2 + T(1.0)
            n2 = n2 / k2
            m2 = m2 / k2
            f2 = f + m2
            k2 = k2 + T(1.0)
            n2 = n2 / k2
            g2 = g + n2
            m, n, k = xp.where(live, m2, m), xp.where(live, n2, n), xp.where(live, k2, k)
            f, g = xp.where(live, f2, f), xp.where(live, g2, g)
            live = live & (xp.abs(m / f) > eps)
        series = T(0.355028053887817239260) * f - T(0.258819403792806798405) * g
        r = xp.where(x < T(-2.09), neg, xp.where(x >= T(2.09), pos, series))
        r = xp.where(x > T(103.892), T(0.0), r)
        r = xp.where(xp.isinf(x), T(np.nan), r)
    return assign(xp, out, r.astype(dt.np, copy=False))


# ATen's bessel_j0/j1/y0/y1_forward (Cephes' rational approximations as ATen writes them:
# every polynomial a plain Horner loop over its table): a rational function up to 5, the
# asymptotic modulus-phase form above.
_J0_PP = (+7.96936729297347051624e-04, +8.28352392107440799803e-02, +1.23953371646414299388e+00,
    +5.44725003058768775090e+00, +8.74716500199817011941e+00, +5.30324038235394892183e+00,
    +9.99999999999999997821e-01)
_J0_PQ = (+9.24408810558863637013e-04, +8.56288474354474431428e-02, +1.25352743901058953537e+00,
    +5.47097740330417105182e+00, +8.76190883237069594232e+00, +5.30605288235394617618e+00,
    +1.00000000000000000218e+00)
_J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
    -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
    -5.14105326766599330220e+01, -6.05014350600728481186e+00)
_J0_QQ = (+6.43178256118178023184e+01, +8.56430025976980587198e+02, +3.88240183605401609683e+03,
    +7.24046774195652478189e+03, +5.93072701187316984827e+03, +2.06209331660327847417e+03,
    +2.42005740240291393179e+02)
_J0_RP = (-4.79443220978201773821e+09, +1.95617491946556577543e+12, -2.49248344360967716204e+14,
    +9.70862251047306323952e+15)
_J0_RQ = (+4.99563147152651017219e+02, +1.73785401676374683123e+05, +4.84409658339962045305e+07,
    +1.11855537045356834862e+10, +2.11277520115489217587e+12, +3.10518229857422583814e+14,
    +3.18121955943204943306e+16, +1.71086294081043136091e+18)
_J1_PP = (+7.62125616208173112003e-04, +7.31397056940917570436e-02, +1.12719608129684925192e+00,
    +5.11207951146807644818e+00, +8.42404590141772420927e+00, +5.21451598682361504063e+00,
    +1.00000000000000000254e+00)
_J1_PQ = (+5.71323128072548699714e-04, +6.88455908754495404082e-02, +1.10514232634061696926e+00,
    +5.07386386128601488557e+00, +8.39985554327604159757e+00, +5.20982848682361821619e+00,
    +9.99999999999999997461e-01)
_J1_QP = (+5.10862594750176621635e-02, +4.98213872951233449420e+00, +7.58238284132545283818e+01,
    +3.66779609360150777800e+02, +7.10856304998926107277e+02, +5.97489612400613639965e+02,
    +2.11688757100572135698e+02, +2.52070205858023719784e+01)
_J1_QQ = (+7.42373277035675149943e+01, +1.05644886038262816351e+03, +4.98641058337653607651e+03,
    +9.56231892404756170795e+03, +7.99704160447350683650e+03, +2.82619278517639096600e+03,
    +3.36093607810698293419e+02)
_J1_RP = (-8.99971225705559398224e+08, +4.52228297998194034323e+11, -7.27494245221818276015e+13,
    +3.68295732863852883286e+15)
_J1_RQ = (+6.20836478118054335476e+02, +2.56987256757748830383e+05, +8.35146791431949253037e+07,
    +2.21511595479792499675e+10, +4.74914122079991414898e+12, +7.84369607876235854894e+14,
    +8.95222336184627338078e+16, +5.32278620332680085395e+18)
_Y0_PP = _J0_PP  # (the same tables in ATen)
_Y0_PQ = _J0_PQ  # (the same tables in ATen)
_Y0_QP = _J0_QP  # (the same tables in ATen)
_Y0_QQ = _J0_QQ  # (the same tables in ATen)
_Y0_YP = (+1.55924367855235737965e+04, -1.46639295903971606143e+07, +5.43526477051876500413e+09,
    -9.82136065717911466409e+11, +8.75906394395366999549e+13, -3.46628303384729719441e+15,
    +4.42733268572569800351e+16, -1.84950800436986690637e+16)
_Y0_YQ = (+1.04128353664259848412e+03, +6.26107330137134956842e+05, +2.68919633393814121987e+08,
    +8.64002487103935000337e+10, +2.02979612750105546709e+13, +3.17157752842975028269e+15,
    +2.50596256172653059228e+17)
_Y1_PP = _J1_PP  # (the same tables in ATen)
_Y1_PQ = _J1_PQ  # (the same tables in ATen)
_Y1_QP = _J1_QP  # (the same tables in ATen)
_Y1_QQ = _J1_QQ  # (the same tables in ATen)
_Y1_YP = (+1.26320474790178026440e+09, -6.47355876379160291031e+11, +1.14509511541823727583e+14,
    -8.12770255501325109621e+15, +2.02439475713594898196e+17, -7.78877196265950026825e+17)
_Y1_YQ = (+5.94301592346128195359e+02, +2.35564092943068577943e+05, +7.34811944459721705660e+07,
    +1.87601316108706159478e+10, +3.88231277496238566008e+12, +6.20557727146953693363e+14,
    +6.87141087355300489866e+16, +3.97270608116560655612e+18)

_PI_4, _3PI_4, _SQRT_2_PI = 0.785398163397448309615660845819875721, \
    2.356194490192344928846982537459627163, 0.797884560802865355879892119868763737
_TWO_PI = 0.636619772367581343075535053490057448


def _j0(xp, x, T):
    x = xp.abs(x)
    z = x * x
    small = xp.where(x < T(0.00001), T(1.0) - z / T(4.0),
                     (z - T(5.78318596294678452118e+00)) * (z - T(3.04712623436620863991e+01))
                     * _horner(xp, _J0_RP, z, T) / _horner(xp, _J0_RQ, z, T))
    w = T(25.0) / z
    pp, pq = _horner(xp, _J0_PP, w, T), _horner(xp, _J0_PQ, w, T)
    qp, qq = _horner(xp, _J0_QP, w, T), _horner(xp, _J0_QQ, w, T)
    large = (pp / pq * xp.cos(x - T(_PI_4)) - T(5.0) / x * (qp / qq) * xp.sin(x - T(_PI_4))) \
        * T(_SQRT_2_PI) / xp.sqrt(x)
    return xp.where(x <= T(5.0), small, large)


def _j1(xp, x, T):
    neg = x < T(0.0)
    x = xp.where(neg, -x, x)
    z = x * x
    small = _horner(xp, _J1_RP, z, T) / _horner(xp, _J1_RQ, z, T) * x \
        * (z - T(1.46819706421238932572e+01)) * (z - T(4.92184563216946036703e+01))
    w = T(5.0) / x * (T(5.0) / x)
    pp, pq = _horner(xp, _J1_PP, w, T), _horner(xp, _J1_PQ, w, T)
    qp, qq = _horner(xp, _J1_QP, w, T), _horner(xp, _J1_QQ, w, T)
    large = (pp / pq * xp.cos(x - T(_3PI_4)) - T(5.0) / x * (qp / qq) * xp.sin(x - T(_3PI_4))) \
        * T(_SQRT_2_PI) / xp.sqrt(x)
    r = xp.where(x <= T(5.0), small, large)
    return xp.where(neg, -r, r)


def _y0(xp, x, T):
    z = x * x
    small = _horner(xp, _Y0_YP, z, T) / _horner(xp, _Y0_YQ, z, T) \
        + T(_TWO_PI) * xp.log(x) * _j0(xp, x, T)
    small = xp.where(x == 0, -np.inf, xp.where(x < 0, np.nan, small))
    w = T(25.0) / z
    pp, pq = _horner(xp, _Y0_PP, w, T), _horner(xp, _Y0_PQ, w, T)
    qp, qq = _horner(xp, _Y0_QP, w, T), _horner(xp, _Y0_QQ, w, T)
    large = (pp / pq * xp.sin(x - T(_PI_4)) + T(5.0) / x * (qp / qq) * xp.cos(x - T(_PI_4))) \
        * T(_SQRT_2_PI) / xp.sqrt(x)
    return xp.where(x <= T(5.0), small, large)


def _y1(xp, x, T):
    z = x * x
    small = x * (_horner(xp, _Y1_YP, z, T) / _horner(xp, _Y1_YQ, z, T)) \
        + T(_TWO_PI) * (_j1(xp, x, T) * xp.log(x) - T(1.0) / x)
    small = xp.where(x == 0, -np.inf, xp.where(x < 0, np.nan, small))
    w = T(5.0) / x * (T(5.0) / x)
    pp, pq = _horner(xp, _Y1_PP, w, T), _horner(xp, _Y1_PQ, w, T)
    qp, qq = _horner(xp, _Y1_QP, w, T), _horner(xp, _Y1_QQ, w, T)
    large = (pp / pq * xp.sin(x - T(_3PI_4)) + T(5.0) / x * (qp / qq) * xp.cos(x - T(_3PI_4))) \
        * T(_SQRT_2_PI) / xp.sqrt(x)
    return xp.where(x <= T(5.0), small, large)


def _aten_bessel(f):
    def fwd(xp, a, out=None, dt=None):
        with np.errstate(all="ignore"):
            r = f(xp, xp.asarray(a, dtype=dt.np), dt.np.type)
        return assign(xp, out, xp.asarray(r).astype(dt.np, copy=False))

    fwd.__name__ = "bessel" + f.__name__
    return fwd


def _sp_binary(fname):
    def fwd(xp, a, b, out=None, dt=None):
        with np.errstate(all="ignore"):
            r = _sf(xp, fname)(_calc(xp, a, dt), _calc(xp, b, dt))
        return assign(xp, out, xp.asarray(r).astype(dt.np, copy=False))

    fwd.__name__ = fname
    return fwd


def _zeta_fwd(xp, a, b, out=None, dt=None):
    """scipy's Hurwitz zeta; ``q = +inf`` is NaN as in ATen (its series meets 0 * inf)."""
    with np.errstate(all="ignore"):
        x, q = _calc(xp, a, dt), _calc(xp, b, dt)
        r = _sf(xp, "zeta")(x, q)
        r = xp.where(xp.isposinf(q) & ~(x <= 1), np.nan, r)
    return assign(xp, out, xp.asarray(r).astype(dt.np, copy=False))


def _log_ndtr_fwd(xp, a, out=None, dt=None):
    """ATen's calc_log_ndtr in the result dtype: ``log(erfcx(-t) / 2) - t * t`` below -1,
    ``log1p(-erfc(t) / 2)`` above, t = x / sqrt(2) (float32 rounds as torch's there)."""
    T = dt.np.type
    x = xp.asarray(a, dtype=dt.np)
    with np.errstate(all="ignore"):
        t = x * T(math.sqrt(0.5))
        cx = xp.asarray(_sf(xp, "erfcx")(-t)).astype(dt.np, copy=False)
        c = xp.asarray(_sf(xp, "erfc")(t)).astype(dt.np, copy=False)
        r = xp.where(x < T(-1.0), xp.log(cx / T(2.0)) - t * t, xp.log1p(-c / T(2.0)))
    return assign(xp, out, r.astype(dt.np, copy=False))


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

def _poly_args(xp, a, b, dt):
    """(scalar type, x broadcast, integer degree n, shape) of a polynomial call P_n(x)."""
    T = dt.np.type
    x = xp.asarray(a, dtype=T)
    shape = np.broadcast_shapes(x.shape, xp.asarray(b).shape)
    return T, xp.broadcast_to(x, shape), _degree(xp, b, dt, shape), shape


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
    T, x, n, shape = _poly_args(xp, a, b, dt)
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
        T, x, n, shape = _poly_args(xp, a, b, dt)
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
    T, x, n, shape = _poly_args(xp, a, b, dt)
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
    T, x, n, shape = _poly_args(xp, a, b, dt)
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
    """ATen's i1e_backward: ``i0e(x) - (sgn(x) + 1/x) * i1e(x)`` where ``|x| > eps``, 0.5
    elsewhere (NaN included); the formula runs on ``x`` replaced by eps there."""
    x, r = c["self"], c["result"]
    eps = float(np.finfo(x._dtype.np).eps)
    big = x.abs() > eps
    safe = x.where(big, eps)
    d = _call(I0E, safe) - r * (safe.sgn() + safe.reciprocal())
    return g * d.where(big, 0.5)


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
    if c.needs_input_grad[0]:
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")
    x, q = c["self"], c["other"]
    gq = None
    if len(c.needs_input_grad) > 1 and c.needs_input_grad[1]:
        gq = red(c, 1, g * -x * _call(ZETA, x + 1.0, q))
    return (None, gq)


# ---- the table entries -----------------------------------------------------------------------

def _real_floats(name, half):
    """float_rule, refusing complex (ATen's ``<name>_cpu`` kernels have real loops only) and,
    where ``half`` is False, float16 on the CPU (no Half loop there either)."""
    kernel = name + "_cpu"

    def rule(spec, ins, params):
        dt = float_rule(spec, ins, params)
        on_cpu = all(x.device.type == "cpu" for x in ins if is_tensor(x))
        if dt.category == dtypes.COMPLEX or (not half and on_cpu and dt.np.itemsize == 2):
            raise NotImplementedError(f'"{kernel if on_cpu else name + "_cuda"}" not '
                                      f"implemented for '{dt.torch_name}'")
        return dt

    return rule


# ops with a float16 CPU kernel (the others, and every op without a derivative, have none)
_HALF_OK = {"entr", "i0e", "i1e", "xlog1py"}


def _special(name, fwd, backward=None, saves=(), args=("self",), **kw):
    """A torch.special op: ``special_<name>``, no Tensor method, no ``torch.<name>``."""
    return register(OpSpec(name="special_" + name, forward=fwd, backward=backward, args=args,
                           saves=saves, dtype_rule=_real_floats(name, name in _HALF_OK),
                           method=False, function=False, layout="ti", **kw))


ENTR = _special("entr", _sp_unary("entr"), _entr_bw, saves=("self",))
ERFCX = _special("erfcx", _sp_unary("erfcx"), _erfcx_bw, saves=("self", "result"))
NDTRI = _special("ndtri", _sp_unary("ndtri"), _ndtri_bw, saves=("result",))
LOG_NDTR = _special("log_ndtr", _log_ndtr_fwd, _log_ndtr_bw, saves=("self", "result"))
I0E = _special("i0e", _sp_unary("i0e"), _i0e_bw, saves=("self", "result"),
               node_name="SpecialI0EBackward0")
I1E = _special("i1e", _sp_unary("i1e"), _i1e_bw, saves=("self", "result"),
               node_name="SpecialI1EBackward0")

# no derivative (PyTorch: output_differentiability [False])
for _name, _fwd in [
        ("airy_ai", _airy_ai_fwd),
        ("bessel_j0", _aten_bessel(_j0)), ("bessel_j1", _aten_bessel(_j1)),
        ("bessel_y0", _aten_bessel(_y0)), ("bessel_y1", _aten_bessel(_y1)),
        ("modified_bessel_i0", _sp_unary("i0", "even")),
        ("modified_bessel_i1", _sp_unary("i1", "odd")),
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


def _scalar_overloads(spec, stem, saves2=None):
    """Tensor-Tensor (Backward0), Scalar-Tensor (Backward1), Tensor-Scalar (Backward2): the
    Python number gets no edge, as xlogy's overloads (``saves2``: what Backward2 keeps, if
    not the same as Backward0)."""
    one = overload(spec, stem + "Backward1", scalar_edges=False)
    two = overload(spec, stem + "Backward2", scalar_edges=False,
                   **({} if saves2 is None else {"saves": saves2}))
    spec.select = lambda args, kw: (one if args and not is_tensor(args[0]) else
                                    None if is_tensor(arg(args, kw, 1, "other")) else two)


XLOG1PY = _special("xlog1py", _sp_binary("xlog1py"), _xlog1py_bw, saves=("self", "other"),
                   args=("self", "other"), node_name="SpecialXlog1PyBackward0")
_scalar_overloads(XLOG1PY, "SpecialXlog1Py")
ZETA = _special("zeta", _zeta_fwd, _zeta_bw, saves=("self", "other"),
                save_if={"self": "other", "other": "other"},  # (self's: not implemented)
                args=("self", "other"))
_scalar_overloads(ZETA, "SpecialZeta", saves2=())  # (only self's gradient: not implemented)
