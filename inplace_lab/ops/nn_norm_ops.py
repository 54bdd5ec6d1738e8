"""Layer norm and group norm kernels: ``_layer_norm`` (NativeLayerNormBackward0) and
``_group_norm`` (NativeGroupNormBackward0), with PyTorch's argument checks.

Both normalise over a block of elements (the trailing ``normalized_shape`` dims; each
group of channels of one sample) with the biased variance, then apply a per-element
(layer norm) or per-channel (group norm) affine map. As PyTorch's native_layer_norm and
native_group_norm they keep what backward reads: their input, weight (and layer norm's
bias), and the mean and 1/std of each block, two small tensors of their own
(``_saved_result1``, ``_saved_result2``: bytes a memory lesson counts). Overwriting the
input in place after the forward breaks the backward.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from .table import OpSpec, register


def _normalise(xp, x, axes, eps):
    """(normalised x, mean, 1/std), the statistics with the reduced axes kept (on the CPU,
    float32/float64 rows of up to ``_WELFORD_MAX`` elements: ATen's RowwiseMoments)."""
    n = math.prod(x.shape[a] for a in axes)
    if xp is np and x.dtype in _LANES and 0 < n <= _WELFORD_MAX and \
            axes == tuple(range(x.ndim - len(axes), x.ndim)):
        keep = x.shape[:x.ndim - len(axes)] + (1,) * len(axes)
        mean, var = row_moments(np.ascontiguousarray(x).reshape(-1, n))
        mean, var = mean.reshape(keep), var.reshape(keep)
    else:
        mean = x.mean(axis=axes, keepdims=True)
        var = x.var(axis=axes, keepdims=True)
    rstd = 1 / xp.sqrt(var + eps)
    return (x - mean) * rstd, mean, rstd


# ATen's AVX2 Vectorized<float>/<double> lanes (its CPU norm kernels are not built for AVX512:
# rows shorter than one vector are moments of the scalar loop alone, checked against torch)
_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
_CHUNK = 16  # kChunkSize: vectors per Welford chunk, chunks merged by a cascade
_WELFORD_MAX = 1024  # longer rows: numpy's two-pass statistics (the replay loops per vector)


def fma(a, b, c):
    """``a * b + c`` rounded once (a vector fmadd), elementwise: float32 through float64 (the
    product is exact there; the one sum rounds twice only on a float32 tie, vanishingly rare),
    float64 through an exact product (Veltkamp's split) and an error-free sum."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    if c.dtype == np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) + c).astype(np.float32)
    p = a * b
    sa, sb = a * 134217729.0, b * 134217729.0  # 2**27 + 1
    ah, bh = sa - (sa - a), sb - (sb - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # a * b - p, exactly
    s = p + c
    z = s - p
    t = (p - (s - z)) + (c - z)  # p + c - s, exactly
    return s + (t + e)


def row_moments(x):
    """(mean, biased variance) of each row of the C-ordered 2-D ``x``, as ATen's
    ``RowwiseMomentsImpl`` computes them (layer and group norm on the CPU): Welford's update
    per lane of ``_LANES`` elements over chunks of ``_CHUNK`` vectors, the chunks merged by a
    binary cascade (AddMomentsVec), the tail elements by the scalar Welford loop, then the
    lanes merged into it one by one; the vector steps use fused multiply-adds, as ATen's
    (``fma``). Vectorised over the rows."""
    dt = x.dtype.type
    rows, n_el = x.shape
    lanes = _LANES[x.dtype]
    n = n_el // lanes
    m = -(-n // _CHUNK)
    depth = 1 if m <= 2 else (m - 1).bit_length()
    zero = np.zeros((rows, lanes), x.dtype)
    m0s, m1s, m2s = [0] * depth, [zero] * depth, [zero] * depth

    def merge(k_add, m1_add, m2_add, slot):  # AddMomentsVec into stack slot ``slot``
        k = m0s[slot] + k_add
        c = dt(0) if k == 0 else dt(k_add) / dt(k)
        delta = m1_add - m1s[slot]
        m2_tmp = m2s[slot] + m2_add
        c_delta = c * delta
        m1s[slot] = m1s[slot] + c_delta
        m2s[slot] = fma(delta * dt(m0s[slot]), c_delta, m2_tmp)
        m0s[slot] = k

    for i in range(m):
        base, count = i * _CHUNK * lanes, min(_CHUNK, n - i * _CHUNK)
        m1, m2 = zero, zero
        for j in range(count):
            xv = x[:, base + j * lanes:base + (j + 1) * lanes]
            delta = xv - m1
            m1 = fma(dt(1) / dt(j + 1), delta, m1)
            m2 = fma(delta, xv - m1, m2)
        merge(count, m1, m2, 0)
        mask, j = i + 1, 1
        while j < depth and mask & 1 == 0:
            merge(m0s[j - 1], m1s[j - 1], m2s[j - 1], j)
            m0s[j - 1], m1s[j - 1], m2s[j - 1] = 0, zero, zero
            mask >>= 1
            j += 1
    for j in range(1, depth):
        merge(m0s[j], m1s[j], m2s[j], 0)
    k, m1, m2 = 0, np.zeros(rows, x.dtype), np.zeros(rows, x.dtype)
    for i in range(n * lanes, n_el):  # the scalar tail
        xi = x[:, i]
        delta = xi - m1
        k += 1
        m1 = m1 + delta / dt(k)
        m2 = m2 + delta * (xi - m1)
    for lane in range(lanes):  # AddMoments of each lane's moments (n elements each; the
        k_new = k + n          # compiler contracts its products into fused multiply-adds)
        c = dt(0) if k_new == 0 else dt(n) / dt(k_new)
        delta = m1s[0][:, lane] - m1
        m1 = fma(c, delta, m1)
        m2 = m2 + fma(delta * delta * c, dt(k), m2s[0][:, lane])
        k = k_new
    return m1, m2 / dt(n_el)


def _norm_grad(g_hat, xhat, invstd, axes):
    """d/dx of xhat = (x - mean) * invstd, given dL/dxhat, over the normalised axes."""
    return invstd * (g_hat - g_hat.mean(axes, keepdim=True)
                     - xhat * (g_hat * xhat).mean(axes, keepdim=True))


def check_mixed_dtypes(x, *params):
    """ATen's CPU norms (mixed_dtype.h): parameters of another dtype than the input are
    allowed only as float32 parameters of a float16/bfloat16 input; else "mixed dtype" errors,
    the parameters' first. Parameters that disagree among themselves, the first matching the
    input, fail in the kernel ("expected scalar type ..."). PyTorch's facade on the CPU only."""
    from .elementwise import under_torch

    given = [p for p in params if p is not None]
    if not given or x.device.type != "cpu" or not under_torch((x,)):
        return
    dt = x._dtype
    if given[0]._dtype is not dt:
        if any(p._dtype is not dtypes.float32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if dt is not dtypes.float16 and dt.name != "bfloat16":
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for p in given:
        if p._dtype is not dt:
            raise RuntimeError(f"expected scalar type {dt.torch_name} but found "
                               f"{p._dtype.torch_name}")


# ---- layer norm ------------------------------------------------------------------------------

def _ln_rule(spec, ins, params):
    x, w, b = ins
    check_mixed_dtypes(x, w, b)  # (layer_norm_cpu: before the shape checks)
    ns = list(params["normalized_shape"])
    for name, t in (("weight", w), ("bias", b)):
        if t is not None and list(t.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(t.shape)} and normalized_shape = {ns}")
    if x.ndim < len(ns) or list(x.shape[x.ndim - len(ns):]) != ns:
        raise RuntimeError(f"Given normalized_shape={ns}, expected input with shape "
                           f"[*, {', '.join(str(n) for n in ns)}], but got input of size"
                           f"{list(x.shape)}")
    return x._dtype


def _ln_axes(ndim, ns):
    return tuple(range(ndim - len(ns), ndim))


def _ln_fwd(xp, x, w, b, out=None, dt=None, normalized_shape=(), eps=1e-5):
    y, mean, rstd = _normalise(xp, x, _ln_axes(x.ndim, normalized_shape), eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return (y.astype(dt.np, copy=False), mean.astype(dt.np, copy=False),
            rstd.astype(dt.np, copy=False))


def _ln_grad_input(g, x, w, mean, rstd, axes):
    """ATen's layer_norm_backward_frame, its operations in its order: per row
    ``ds = sum(dy * gamma * x)``, ``db = sum(dy * gamma)``, then ``dx = a * dy * gamma + b * x
    + c`` with ``a = rstd``, ``b = (db * mean - ds) * a^3 / N``, ``c = -b * mean - db * a / N``
    (the row's gradient cancels to ~0, so the grouping shows in float32's last digits)."""
    gw = g if w is None else g * w
    ds = (gw * x).sum(axes, keepdim=True)
    db = gw.sum(axes, keepdim=True)
    scale = 1.0 / math.prod(x.shape[a] for a in axes)
    b = (db * mean - ds) * rstd * rstd * rstd * scale
    c = -b * mean - db * rstd * scale
    return (rstd * g if w is None else rstd * g * w) + b * x + c


def _ln_bw(c, g):
    x, ns = c["input"], c["normalized_shape"]
    mean, rstd = c["result1"], c["result2"]
    axes = _ln_axes(x.ndim, ns)
    lead = tuple(range(x.ndim - len(ns)))
    w = c["weight"] if "weight" in c.saved else None
    xhat = (x - mean) * rstd
    gx = _ln_grad_input(g, x, w, mean, rstd, axes) if c.needs_input_grad[0] else None
    gw = ((g * xhat).sum(lead) if lead else g * xhat) if c.needs_input_grad[1] else None
    gb = (g.sum(lead) if lead else g) if c.needs_input_grad[2] else None
    return (gx, gw, gb)


register(OpSpec(name="_layer_norm", forward=_ln_fwd, backward=_ln_bw,
                args=("input", "weight", "bias"), optional_args=("weight", "bias"),
                params={"normalized_shape": (), "eps": 1e-5},
                saves=("input", "weight", "bias", "result1", "result2"),
                saved_results=("result1", "result2"),
                dtype_rule=_ln_rule, method=False, function=False, out=False,
                node_name="NativeLayerNormBackward0",
                doc="layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5): "
                    "saves its input, weight, bias and each row's mean and 1/std."))


# ---- group norm ------------------------------------------------------------------------------

def _gn_rule(spec, ins, params):
    x, w, b = ins
    g = params["num_groups"]
    c = x.shape[1] if x.ndim > 1 else 0
    if x.ndim < 2 or c % g:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(x.shape)} and num_groups={g}")
    for name, t in (("weight", w), ("bias", b)):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} and "
                               f"input of shape {list(x.shape)}")
    check_mixed_dtypes(x, w, b)  # (group_norm_cpu: after the composite's shape checks)
    return x._dtype


def _gn_fwd(xp, x, w, b, out=None, dt=None, num_groups=1, eps=1e-5):
    n, c = x.shape[:2]
    y, mean, rstd = _normalise(xp, x.reshape(n, num_groups, -1), (2,), eps)
    y = y.reshape(x.shape)
    shp = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(shp)
    if b is not None:
        y = y + b.reshape(shp)
    return (y.astype(dt.np, copy=False), mean.reshape(n, num_groups).astype(dt.np, copy=False),
            rstd.reshape(n, num_groups).astype(dt.np, copy=False))


def _gn_bw(c, g):
    x, groups = c["input"], c["num_groups"]
    n, ch = x.shape[0], x.shape[1]
    shp = (1, ch) + (1,) * (x.ndim - 2)
    others = (0,) + tuple(range(2, x.ndim))
    w = c["weight"] if "weight" in c.saved else None
    rstd = c["result2"].reshape(n, groups, 1)
    xhat = (x.reshape(n, groups, -1) - c["result1"].reshape(n, groups, 1)) * rstd
    xhat_full = xhat.reshape(x.shape)
    gx = None
    if c.needs_input_grad[0]:
        g_hat = (g if w is None else g * w.reshape(shp)).reshape(n, groups, -1)
        gx = _norm_grad(g_hat, xhat, rstd, (2,)).reshape(x.shape)
    gw = (g * xhat_full).sum(others) if c.needs_input_grad[1] else None
    gb = g.sum(others) if c.needs_input_grad[2] else None
    return (gx, gw, gb)


register(OpSpec(name="_group_norm", forward=_gn_fwd, backward=_gn_bw,
                args=("input", "weight", "bias"), optional_args=("weight", "bias"),
                params={"num_groups": 1, "eps": 1e-5},
                saves=("input", "weight", "result1", "result2"),
                saved_results=("result1", "result2"),
                dtype_rule=_gn_rule, method=False, function=False, out=False,
                node_name="NativeGroupNormBackward0",
                doc="group_norm(input, num_groups, weight=None, bias=None, eps=1e-5): "
                    "saves its input, weight and each group's mean and 1/std."))
