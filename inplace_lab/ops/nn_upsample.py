"""The upsampling kernels behind ``F.interpolate``: one table op per ATen kernel.

==============================  =================================  ==========================
op                              node                               taps per output cell, dim
==============================  =================================  ==========================
``upsample_nearest{1,2,3}d``    UpsampleNearest{1,2,3}DBackward0   1: ``floor(dst * scale)``
``_upsample_nearest_exact*d``   UpsampleNearestExact*DBackward0    1: ``floor((dst + .5) * s)``
``upsample_linear1d``           UpsampleLinear1DBackward0          2 (linear)
``upsample_bilinear2d``         UpsampleBilinear2DBackward0        2 x 2
``upsample_trilinear3d``        UpsampleTrilinear3DBackward0       2 x 2 x 2
``upsample_bicubic2d``          UpsampleBicubic2DBackward0         4 x 4 (A = -0.75, clamped)
``_upsample_bilinear2d_aa``     UpsampleBilinear2DAaBackward0      a window (antialias=True)
``_upsample_bicubic2d_aa``      UpsampleBicubic2DAaBackward0       a window (A = -0.5)
``_upsample_lanczos2d_aa``      UpsampleLanczos2DAaBackward0       a window (Lanczos-3)
==============================  =================================  ==========================

uint8 bilinear (with or without antialias), antialiased bicubic and lanczos run ATen's integer kernel
(int16 weights, ``(sum + 2**(p-1)) >> p``, clamped), bit for bit; uint8 bicubic without
antialias is refused (``functional_resample``) rather than approximated.

Each is separable: per spatial dim ATen computes, once, the source index (or indices) and
weight of every output position (``compute_indices_weights_*`` in UpSampleKernel.cpp, with
``area_pixel_compute_scale`` / ``area_pixel_compute_source_index`` of UpSample.h, in the
dtype's opmath type: float for float16 and float32, double for float64), then each output
cell is the weighted sum of its taps, the last dim innermost. The kernels below do the same
sums in the same order, with the fused multiply-adds the compiled kernels use (``_fma``), so
nearest / linear / bilinear / trilinear results, and every non-'area' gradient but the
Lanczos one in float32, agree with torch 2.13 (CPU) to the last bit in float16/32/64;
bicubic and the antialiased forwards agree to a few ulps (their summation order is not
reproduced).

The parameters are PyTorch's saved attributes (``_saved_output_size``, ``_saved_scales_h``,
``_saved_align_corners``, ``_saved_self_sym_sizes``). The backward (ATen's
``upsample_*_backward``) is the adjoint of the forward: each output gradient added into the
input cells it was read from, with the same weights. Results follow the input's suggested
memory format (channels-last in, channels-last out), as ATen's ``empty`` with
``suggest_memory_format`` does.
"""
from __future__ import annotations

import numpy as np

from inplace_lab import backend
from inplace_lab import layout as _layout

from . import dispatch
from .table import OpSpec, register

_A = -0.75  # the cubic convolution's A (ATen's get_cubic_upsample_coefficients)


# ---- per-dim indices and weights (host numpy, in ATen's arithmetic) ---------------------------

def _opmath(np_dtype):
    return np.float64 if np.dtype(np_dtype) == np.float64 else np.float32


def _scales_value(acc, scale, n_in, n_out):
    """``compute_scales_value``: 1 / scale when one was given (> 0), else in / out."""
    if scale is not None and scale > 0:
        return acc(1.0 / scale)
    return acc(n_in) / acc(n_out)


def _area_scale(acc, n_in, n_out, align_corners, scale):
    """``area_pixel_compute_scale``."""
    if align_corners:
        return acc(n_in - 1) / acc(n_out - 1) if n_out > 1 else acc(0)
    return _scales_value(acc, scale, n_in, n_out)


def _source_index(acc, s, n_out, align_corners, cubic, fused=True):
    """``area_pixel_compute_source_index`` for every destination index (``fused``: as the
    vectorised kernels compile it, with a fused multiply-add; bicubic's backward, compiled
    outside them, rounds the product)."""
    dst = np.arange(n_out, dtype=acc)
    if align_corners:
        return s * dst
    if not fused:
        src = s * (dst + acc(0.5)) - acc(0.5)
        return src if cubic else np.maximum(src, acc(0))
    # ``scale * (dst + 0.5) - 0.5`` is one fused multiply-add in the compiled kernel: the
    # product unrounded (exact in the next wider float), one rounding at the end
    wide = np.float64 if acc is np.float32 else np.longdouble
    src = (wide(s) * (dst + acc(0.5)).astype(wide) - wide(0.5)).astype(acc)
    return src if cubic else np.maximum(src, acc(0))


def _guard(acc, real, n_in):
    """``guard_index_and_lambda``: floorf (a float, even for double) and a clamped lambda."""
    idx = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), n_in - 1)
    lam = np.minimum(np.maximum(real - idx.astype(acc), acc(0)), acc(1))
    return idx, lam.astype(acc)


def _nearest_taps(n_in, n_out, scale, exact, generic, acc):
    """The source index of each output position.

    2-d (the channels-last loop, used for every layout): ``nearest_idx`` /
    ``nearest_exact_idx``, a float scale, ``floorf(dst * scale)`` or ``floorf((dst + 0.5) *
    scale)``, with ``nearest_idx``'s shortcuts for sizes equal and doubled. 1-d and 3-d
    (``HelperInterpNearest[Exact]``): the scale in opmath, ``floorf(scale * dst)`` or
    ``floorf(area_pixel_compute_source_index(scale, dst) + 0.5)``."""
    dst = np.arange(n_out, dtype=np.int64)
    if generic:
        s = _scales_value(acc, scale, n_in, n_out)
        if exact:
            real = _source_index(acc, s, n_out, False, False) + acc(0.5)
        else:
            real = s * dst.astype(acc)
        real = real.astype(np.float32)
    else:
        if not exact and n_out == n_in:
            return [(dst, None)]
        if not exact and n_out == 2 * n_in:
            return [(dst >> 1, None)]
        s = _scales_value(np.float32, scale, n_in, n_out)
        if exact:  # (dst + 0.5) * scale in double, floorf of it as a float
            real = ((dst + 0.5) * np.float64(s)).astype(np.float32)
        else:
            real = dst.astype(np.float32) * s
    return [(np.minimum(np.floor(real).astype(np.int64), n_in - 1), None)]


def _linear_taps(acc, wdt, n_in, n_out, align_corners, scale):
    """``compute_source_index_and_lambda``: (i0, lambda0), (i1, lambda1); the weights are
    stored in the tensor's own dtype (``wdt``)."""
    if n_out == n_in:
        dst = np.arange(n_out, dtype=np.int64)
        return [(dst, np.ones(n_out, wdt)), (dst, np.zeros(n_out, wdt))]
    s = _area_scale(acc, n_in, n_out, align_corners, scale)
    i0, lam1 = _guard(acc, _source_index(acc, s, n_out, align_corners, False), n_in)
    i1 = i0 + (i0 < n_in - 1)
    lam1 = lam1.astype(wdt)
    lam0 = (wdt(1) - lam1).astype(wdt)
    return [(i0, lam0), (i1, lam1)]


def _cubic_coefficients(acc, t):
    a = acc(_A)

    def conv1(x):
        return ((a + acc(2)) * x - (a + acc(3))) * x * x + acc(1)

    def conv2(x):
        return ((a * x - acc(5) * a) * x + acc(8) * a) * x - acc(4) * a

    x2 = acc(1) - t
    return [conv2(t + acc(1)), conv1(t), conv1(x2), conv2(x2 + acc(1))]


def _cubic_taps(acc, wdt, n_in, n_out, align_corners, scale, fused=True):
    """HelperInterpCubic: four taps around ``floor(src)``, clamped to the border."""
    s = _area_scale(acc, n_in, n_out, align_corners, scale)
    idx, t = _guard(acc, _source_index(acc, s, n_out, align_corners, True, fused), n_in)
    coeffs = _cubic_coefficients(acc, t)
    return [(np.clip(idx - 1 + j, 0, n_in - 1), coeffs[j].astype(wdt)) for j in range(4)]


def _aa_filter(cubic, x):
    """Pillow's filters, as ATen's ``aa_filter``: the triangle, or the cubic with A = -0.5;
    computed in double, returned in the weights' float type."""
    if cubic is True:  # (ATen's cubic_convolution1/2 in the weights' type, fused)
        return _fused_cubic_filter(np.abs(x), x.dtype.type)
    x = np.abs(x.astype(np.float64))
    if cubic == "lanczos":  # sinc(x) sinc(x / 3) on |x| < 3
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(x < 3.0, np.sinc(x) * np.sinc(x / 3.0), 0.0)
    if not cubic:
        return np.where(x < 1.0, 1.0 - x, 0.0)
    a = -0.5
    return np.where(x < 1.0, ((a + 2.0) * x - (a + 3.0)) * x * x + 1,
                    np.where(x < 2.0, (((x - 5) * x + 8) * x - 4) * a, 0.0))


def _fused_cubic_filter(x, acc):
    """Keys' cubic (A = -0.5) in ``acc`` with the kernel's fused multiply-adds."""
    a = acc(-0.5)
    c1 = _fma(np, _fma(np, np.full_like(x, a + acc(2)), x, np.full_like(x, -(a + acc(3))))
              * x, x, np.full_like(x, acc(1)))
    c2 = _fma(np, _fma(np, _fma(np, np.full_like(x, a), x, np.full_like(x, -(acc(5) * a))), x,
                       np.full_like(x, acc(8) * a)), x, np.full_like(x, -(acc(4) * a)))
    return np.where(x < 1, c1, np.where(x < 2, c2, acc(0)))


def _aa_taps(cubic, acc, n_in, n_out, align_corners, scale):
    """``_compute_indices_weights_aa`` (antialias=True): each output position reads the
    window ``[xmin, xmin + xsize)`` around ``center = scale * (i + 0.5)``, its filter
    stretched by the scale when downsampling, the weights normalised to sum 1. Padded to
    ``max_interp_size`` taps of weight 0."""
    s = _area_scale(acc, n_in, n_out, align_corners, scale)
    interp = 6 if cubic == "lanczos" else 4 if cubic else 2
    support = acc(interp * 0.5 * np.float64(s)) if s >= 1.0 else acc(interp * 0.5)
    width = int(np.ceil(support)) * 2 + 1
    invscale = acc(1.0 / np.float64(s)) if s >= 1.0 else acc(1.0)
    i = np.arange(n_out)
    center = ((i + 0.5) * np.float64(s)).astype(acc)
    xmin = np.maximum(np.trunc((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    xmax = np.minimum(np.trunc((center + support).astype(np.float64) + 0.5).astype(np.int64),
                      n_in)
    xsize = np.clip(xmax - xmin, 0, width)
    j = np.arange(width)[:, None]
    arg = ((j + xmin).astype(acc) - center).astype(np.float64) + 0.5
    w = _aa_filter(cubic, (arg * np.float64(invscale)).astype(acc)).astype(acc)
    w = np.where(j < xsize, w, acc(0))
    total = np.zeros(n_out, acc)
    for k in range(width):  # (summed in order, in the weights' type)
        total = (total + w[k]).astype(acc)
    w = np.where(total != 0, w / np.where(total != 0, total, acc(1)), w).astype(acc)
    idx = np.minimum(j + xmin, n_in - 1)
    return [(idx[k], w[k]) for k in range(width)]


def _int16_taps(method, n_in, n_out, align_corners, scale):
    """``_compute_indices_int16_weights_aa`` (uint8 bilinear / bicubic, with or without
    antialias): the window weights in double, then scaled by ``2**precision`` (the largest
    that keeps the biggest weight under 2**15) and rounded half away from zero."""
    aa = method.startswith("aa-")
    cubic = method.endswith("cubic")
    lanczos = method == "aa-lanczos"
    s = float(_area_scale(np.float64, n_in, n_out, align_corners, scale))
    interp = 6 if lanczos else 4 if cubic else 2
    delta = 0.5 if align_corners and not aa else 0.0
    if aa:
        support = interp * 0.5 * s if s >= 1.0 else interp * 0.5
        width = int(np.ceil(support)) * 2 + 1
    else:
        support, width = interp * 0.5, interp
    invscale = 1.0 / s if s >= 1.0 and aa else 1.0
    i = np.arange(n_out)
    center = s * (i + 0.5 - delta)
    xmin = np.maximum(np.trunc(center - support + 0.5 + delta).astype(np.int64), 0)
    xsize = np.clip(np.minimum(np.trunc(center + support + 0.5 + delta).astype(np.int64), n_in)
                    - xmin, 0, width)
    j = np.arange(width)[:, None]
    x = np.abs((j + xmin - center + 0.5 - delta) * invscale)
    if lanczos:
        w = _aa_filter("lanczos", x)
    elif cubic:
        a = -0.5 if aa else -0.75
        w = np.where(x < 1.0, ((a + 2.0) * x - (a + 3.0)) * x * x + 1,
                     np.where(x < 2.0, (((x - 5) * x + 8) * x - 4) * a, 0.0))
    else:
        w = np.where(x < 1.0, 1.0 - x, 0.0)
    w = np.where(j < xsize, w, 0.0)
    total = np.zeros(n_out)
    for k in range(width):
        total = total + w[k]
    w = np.where(total != 0, w / np.where(total != 0, total, 1.0), w)
    w_max = w.max() if w.size else 0.0
    prec = 0
    while prec < 22 and int(0.5 + w_max * (1 << (prec + 1))) < (1 << 15):
        prec += 1
    wi = np.where(w < 0, np.trunc(-0.5 + w * (1 << prec)), np.trunc(0.5 + w * (1 << prec)))
    idx = np.minimum(j + xmin, n_in - 1)
    return [(idx[k], wi[k].astype(np.int64)) for k in range(width)], prec


def _uint8_resample(xp, x, output_size, align_corners, sc, method):
    """The uint8 kernel: integer sums ``(sum(x * w) + 2**(p-1)) >> p`` clamped to [0, 255],
    the last dim first, each pass rounded back to uint8; a dim not resized is skipped."""
    y = x
    for k in (1, 0):
        axis = 2 + k
        if y.shape[axis] == output_size[k]:
            continue
        taps, prec = _int16_taps(method, y.shape[axis], output_size[k], align_corners, sc[k])
        total = xp.full(y.shape[:axis] + (output_size[k],) + y.shape[axis + 1:],
                        (1 << (prec - 1)) if prec > 0 else 0, dtype=np.int64)
        for idx, w in taps:
            total = total + xp.take(y, xp.asarray(idx), axis=axis).astype(np.int64) * \
                xp.asarray(w).reshape(_bshape(y.ndim, axis, -1))
        y = xp.clip(total >> prec, 0, 255).astype(np.uint8)
    return y


def _taps(method, n_in, n_out, align_corners, scale, np_dtype, nd=1, fused=True):
    acc = _opmath(np_dtype)
    wdt = acc if np.dtype(np_dtype).kind != "f" else np.dtype(np_dtype).type
    if method.startswith("aa-"):
        kind = {"aa-linear": False, "aa-cubic": True, "aa-lanczos": "lanczos"}[method]
        return _aa_taps(kind, acc, n_in, n_out, align_corners, scale)
    if method in ("nearest", "nearest-exact"):
        return _nearest_taps(n_in, n_out, scale, method == "nearest-exact", nd != 2, acc)
    if method == "linear":
        return _linear_taps(acc, wdt, n_in, n_out, align_corners, scale)
    return _cubic_taps(acc, wdt, n_in, n_out, align_corners, scale, fused)


def _dim_scales(params, nd):
    if nd == 1:
        return (params.get("scales"),)
    if nd == 2:
        return params.get("scales_h"), params.get("scales_w")
    return params.get("scales_d"), params.get("scales_h"), params.get("scales_w")


def _bshape(ndim, axis, n):
    shape = [1] * ndim
    shape[axis] = n
    return tuple(shape)


# ---- kernels ----------------------------------------------------------------------------------

def _make_forward(method, nd):
    def forward(xp, x, out=None, dt=None, output_size=None, align_corners=False,
                self_sym_sizes=None, **scales):
        acc = _opmath(x.dtype)
        sc = _dim_scales(scales, nd)
        if x.dtype == np.uint8 and method not in ("nearest", "nearest-exact"):
            y = _uint8_resample(xp, x, output_size, align_corners, sc, method)
            return xp.ascontiguousarray(y)
        y = x
        if method not in ("nearest", "nearest-exact"):
            y = x.astype(acc, copy=False)
        if method == "linear" and nd == 2:
            y = _bilinear(xp, y, x.shape, output_size, align_corners, sc, x.dtype)
            return xp.ascontiguousarray(y.astype(x.dtype if dt is None else dt.np, copy=False))
        for k in range(nd - 1, -1, -1):  # the last dim innermost, as ATen's nested sums
            axis = 2 + k
            if method.startswith("aa-") and x.shape[axis] == output_size[k]:
                continue  # (the separable aa kernel skips a dim it does not resize)
            taps = _taps(method, x.shape[axis], output_size[k], align_corners, sc[k], x.dtype,
                         nd)
            parts = [xp.take(y, xp.asarray(idx), axis=axis) for idx, _ in taps]
            if taps[0][1] is None:
                y = parts[0]
                continue
            ws = [xp.asarray(w.astype(acc)).reshape(_bshape(y.ndim, axis, -1)) for _, w in taps]
            if len(parts) == 2:  # ``t0 * w0 + t1 * w1``, compiled as fma(t0, w0, t1 * w1)
                y = _fma(xp, parts[0], ws[0], parts[1] * ws[1])
            else:  # ``out = t0 * w0; out += tj * wj``: fma(tj, wj, out)
                y = parts[0] * ws[0]
                for p, w in zip(parts[1:], ws[1:]):
                    y = _fma(xp, p, w, y)
        return xp.ascontiguousarray(y.astype(x.dtype if dt is None else dt.np, copy=False))
    return forward


def _fma(xp, a, b, c):
    """``a * b + c`` rounded once (the compiled kernels' fused multiply-add). float32: in
    float64, then rounded back (exact). float64: error-free transformations (Dekker's
    product, Knuth's sum), the two errors added to the rounded sum; NaN and infinities as
    a plain ``a * b + c``."""
    if a.dtype == np.float32:
        with np.errstate(invalid="ignore", over="ignore"):  # (inf * 0: NaN, as the kernel's)
            return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)) \
                .astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        a, b, c = xp.broadcast_arrays(a, b, c)
        p = a * b
        plain = p + c
        split = 134217729.0  # 2**27 + 1 (Veltkamp)
        ta, tb = split * a, split * b
        ah, bh = ta - (ta - a), tb - (tb - b)
        al, bl = a - ah, b - bh
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # p + e == a * b exactly
        sv = p + c
        bb = sv - p
        t = (p - (sv - bb)) + (c - bb)  # sv + t == p + c exactly
        out = sv + (e + t)
        return xp.where(xp.isfinite(out) & xp.isfinite(e), out, plain)


def _bilinear(xp, y, shape, output_size, align_corners, sc, np_dtype):
    """upsample_bilinear2d's CPU loop: four taps weighted by the products ``h_lambda *
    w_lambda``, summed as the compiled kernel does (measured against torch 2.13:
    ``x01 w01``, then fused multiply-adds of ``x00 w00``, ``x10 w10``, ``x11 w11``)."""
    acc = _opmath(np_dtype)  # (its lambdas stay in opmath, float16's too)
    (h0, a0), (h1, a1) = _taps("linear", shape[2], output_size[0], align_corners, sc[0], acc)
    (w0, b0), (w1, b1) = _taps("linear", shape[3], output_size[1], align_corners, sc[1], acc)
    rows = [xp.take(y, xp.asarray(h), axis=2) for h in (h0, h1)]
    a = [xp.asarray(v.astype(acc)).reshape(-1, 1) for v in (a0, a1)]
    b = [xp.asarray(v.astype(acc)).reshape(1, -1) for v in (b0, b1)]

    def term(i, j):
        return xp.take(rows[i], xp.asarray((w0, w1)[j]), axis=3), a[i] * b[j]

    x01, w01 = term(0, 1)
    out = x01 * w01
    for i, j in ((0, 0), (1, 0), (1, 1)):
        out = _fma(xp, *term(i, j), out)
    return out


def _adjoint_matrix(xp, taps, n_in, n_out, dtype):
    """(n_in, n_out): the weight of each output position on each input cell."""
    m = np.zeros((n_in, n_out), dtype=dtype)
    cols = np.arange(n_out)
    for idx, w in taps:
        np.add.at(m, (idx, cols), 1 if w is None else w.astype(dtype))
    return xp.asarray(m)


def _sequential_adjoint(xp, g, taps_per_dim, input_size, acc, cubic=False):
    """ATen's backward loop: for each output cell in row-major order, for each tap
    combination (the first dim's taps outermost), ``grad_input[src] += (w_0 * w_1 ...) * g``,
    one add after the other (``np.add.at`` keeps that order). Bicubic's loop runs the W taps
    outermost and adds ``(g * w_h) * w_w``."""
    nd = len(taps_per_dim)
    sp_in = tuple(input_size[2:])
    sp_out = tuple(len(t[0][0]) for t in taps_per_dim)
    idx_full, w_full, w_h = 0, None, None
    for k, taps in enumerate(taps_per_dim):
        shape = [1] * (2 * nd)
        shape[k], shape[(2 * nd - 1 - k) if cubic else nd + k] = sp_out[k], len(taps)
        stride = int(np.prod(sp_in[k + 1:], dtype=np.int64))
        idx_full = idx_full + np.stack([t[0] for t in taps], axis=-1).reshape(shape) * stride
        if taps[0][1] is not None:
            w = np.stack([t[1].astype(acc) for t in taps], axis=-1).reshape(shape)
            if cubic and k == 0:
                w_h = w
            w_full = w if w_full is None else w_full * w
    full = sp_out + tuple(len(t) for t in (taps_per_dim[::-1] if cubic else taps_per_dim))
    n_taps = int(np.prod(full[nd:]))
    idx_full = np.broadcast_to(idx_full, full).reshape(-1)
    lead = int(np.prod(g.shape[:2]))
    out = xp.zeros((lead, int(np.prod(sp_in, dtype=np.int64))), dtype=acc)
    g2 = g.reshape(lead, -1)
    if w_full is None or cubic:  # (nearest; bicubic: ``(g * w_h) * w_w``, plain adds)
        vals = xp.broadcast_to(g2[:, :, None], (lead, g2.shape[1], n_taps))
        if cubic:
            wh = xp.asarray(np.broadcast_to(w_h, full).reshape(1, -1, n_taps))
            ww = xp.asarray(np.broadcast_to(np.stack(
                [t[1].astype(acc) for t in taps_per_dim[1]], axis=-1).reshape(
                1, sp_out[1], len(taps_per_dim[1]), 1), full).reshape(1, -1, n_taps))
            vals = (vals * wh) * ww
        rows = xp.arange(lead).reshape(-1, 1)
        backend.add_at(xp, out, (rows, xp.asarray(idx_full).reshape(1, -1)),
                       vals.reshape(lead, -1))
        return out.reshape(tuple(input_size))
    # ``grad_input[src] += w * g`` compiled as fma(w, g, grad_input[src]): applied in rounds,
    # the r-th contribution to every cell in round r (a cell's contributions keep their order)
    w_flat = np.broadcast_to(w_full, full).reshape(-1)
    pos = np.repeat(np.arange(int(np.prod(sp_out))), n_taps)
    order = np.argsort(idx_full, kind="stable")
    cells = idx_full[order]
    first = np.r_[0, np.flatnonzero(np.diff(cells)) + 1]
    rank = np.arange(cells.size) - np.repeat(first, np.diff(np.r_[first, cells.size]))
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        sel = order[rank == r]
        c = xp.asarray(idx_full[sel])
        out[:, c] = _fma(xp, xp.asarray(w_flat[sel]).reshape(1, -1), g2[:, xp.asarray(pos[sel])],
                         out[:, c])
    return out.reshape(tuple(input_size))


def _make_backward_kernel(method, nd):
    def grad_kernel(xp, g, out=None, dt=None, output_size=None, align_corners=False,
                    input_size=None, **scales):
        acc = _opmath(g.dtype)
        sc = _dim_scales(scales, nd)
        # (ATen's backward loops index with ``nearest_idx`` at every rank, not the forward's
        # 1-d/3-d helper: where they differ, the gradient is not its adjoint)
        taps = [_taps(method, input_size[2 + k], output_size[k], align_corners, sc[k],
                      g.dtype, 2, fused=method != "cubic") for k in range(nd)]
        y = _sequential_adjoint(xp, g.astype(acc, copy=False), taps, input_size, acc,
                                cubic=method == "cubic")
        return xp.ascontiguousarray(y.astype(g.dtype, copy=False))
    return grad_kernel


# ---- layout: ATen's suggest_memory_format ----------------------------------------------------

def _cl_strides(shape):
    """channels_last (4-d) / channels_last_3d (5-d) strides of ``shape``."""
    n, c, *sp = shape
    strides = [0] * len(shape)
    s = 1
    for d in (1, *range(len(shape) - 1, 1, -1), 0):
        strides[d] = s
        s *= max(shape[d], 1)
    return tuple(strides)


def suggests_channels_last(shape, strides) -> bool:
    """``suggest_memory_format()`` as the upsample kernels read it: channels_last (4-d) or
    channels_last_3d (5-d) by ATen's ``is_channels_last_strides_{2,3}d`` alone (C fastest,
    then W, H, [D,] N; ambiguous cases say no): a channels-last-contiguous tensor whose
    size-1 dim has a small stride is not one (measured against torch 2.13 on permutations
    of shapes in {1, 2, 3}^4 and ^5)."""
    return _layout.is_channels_last(shape, strides) or \
        _layout.is_channels_last_3d(shape, strides)


def _suggest_layout(ins, params, shape):
    x = ins[0]
    if len(shape) in (4, 5) and suggests_channels_last(x._shape, x._strides):
        return _cl_strides(shape)
    return None


# ---- the table --------------------------------------------------------------------------------

_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h",
                                                                  "scales_w")}
# op name -> (interpolation method, spatial dims, node name)
KERNELS = {
    "upsample_nearest1d": ("nearest", 1, "UpsampleNearest1DBackward0"),
    "upsample_nearest2d": ("nearest", 2, "UpsampleNearest2DBackward0"),
    "upsample_nearest3d": ("nearest", 3, "UpsampleNearest3DBackward0"),
    "_upsample_nearest_exact1d": ("nearest-exact", 1, "UpsampleNearestExact1DBackward0"),
    "_upsample_nearest_exact2d": ("nearest-exact", 2, "UpsampleNearestExact2DBackward0"),
    "_upsample_nearest_exact3d": ("nearest-exact", 3, "UpsampleNearestExact3DBackward0"),
    "upsample_linear1d": ("linear", 1, "UpsampleLinear1DBackward0"),
    "upsample_bilinear2d": ("linear", 2, "UpsampleBilinear2DBackward0"),
    "upsample_trilinear3d": ("linear", 3, "UpsampleTrilinear3DBackward0"),
    "upsample_bicubic2d": ("cubic", 2, "UpsampleBicubic2DBackward0"),
    "_upsample_bilinear2d_aa": ("aa-linear", 2, "UpsampleBilinear2DAaBackward0"),
    "_upsample_bicubic2d_aa": ("aa-cubic", 2, "UpsampleBicubic2DAaBackward0"),
    "_upsample_lanczos2d_aa": ("aa-lanczos", 2, "UpsampleLanczos2DAaBackward0"),
}


def _register(name, method, nd, node_name):
    has_align = method not in ("nearest", "nearest-exact")
    params = {"output_size": None}
    if has_align:
        params["align_corners"] = False
    params.update(dict.fromkeys(_SCALE_NAMES[nd]))
    forward_spec = []

    def double_backward(c, gg):  # (linear: the forward itself, on the gradient's gradient)
        p = {k: c.params[k] for k in params}
        return (dispatch.call(forward_spec[0], (gg,), {**p, "self_sym_sizes": tuple(
            c.params["input_size"])}),)

    grad_spec = register(OpSpec(
        name=f"{name}_backward", forward=_make_backward_kernel(method, nd), dtype_rule="self",
        backward=double_backward, method=False, function=False, out=False,
        layout=_suggest_layout, params={**params, "input_size": None},
        node_name=node_name.replace("Backward0", "BackwardBackward0"),
        doc=f"ATen's {name}_backward: the adjoint of {name}; its own backward is {name}."))

    def backward(c, g):
        p = {k: c.params[k] for k in params}
        return (dispatch.call(grad_spec, (g,), {**p, "input_size": tuple(
            c.params["self_sym_sizes"])}),)

    forward_spec.append(register(OpSpec(
        name=name, forward=_make_forward(method, nd), backward=backward, method=False,
        function=False, out=False, node_name=node_name, dtype_rule="self",
        layout=_suggest_layout, params={**params, "self_sym_sizes": None},
        doc=f"{name}(input, output_size{', align_corners' if has_align else ''}, scales): "
            f"saves nothing but the sizes (linear in the input).")))


for _name, (_method, _nd, _node) in KERNELS.items():
    _register(_name, _method, _nd, _node)
