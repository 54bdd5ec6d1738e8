"""Neural-network kernels that cannot be composed from other table ops cheaply.

``_conv2d`` (ConvolutionBackward0), ``_max_pool2d`` (MaxPool2DWithIndicesBackward0),
``_batch_norm`` (NativeBatchNormBackward0), ``_embedding`` (EmbeddingBackward0) and the
losses ``_nll_loss`` / ``_mse_loss`` / ``_bce_with_logits``. ``inplace_lab.nn.functional``
calls them with PyTorch's signatures; the leading underscore keeps them out of the
framework facades' name lists (whose signatures differ), while the node names are
PyTorch's, so a trace of a training step reads like one of PyTorch.

What each one saves is the lesson: convolution saves its input and weight (so a
``ReLU(inplace=True)`` *after* a conv is free, one that overwrote the conv's input
would not be); max-pooling saves its input; batch norm in training mode saves only
its input and weight (the running statistics are updated in place *after* the
forward, under no_grad, so they must not be saved); the losses save their inputs.

Backward formulas are written with table ops where that is natural (they are then
differentiable twice); the convolution and pooling gradients are two helper kernels
(``_conv2d_grad_input`` ...) that also go through the dispatcher.
"""
from __future__ import annotations

import numpy as np

import dataclasses

from ..autograd import grad_mode
from . import dispatch
from .table import OPS, OpSpec, register


def _pair(v, name="kernel_size"):
    if isinstance(v, int):
        return (v, v)
    v = tuple(int(e) for e in v)
    if len(v) == 1:
        return (v[0], v[0])
    if len(v) != 2:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of 2 values")
    return v


def _dt_name(a) -> str:
    from ..dtypes import from_numpy_dtype

    return from_numpy_dtype(a.dtype).torch_name


def _same_float(spec, ins, params):
    """Input and weight must share one floating dtype (PyTorch does not promote here). A
    convolution's bias is not looked at: its front end (``check_convolution``) has, and the
    kernel casts an accepted bias of another dtype to the input's, as ATen's does."""
    a = ins[0]._dtype
    x = ins[1]
    if x is not None and hasattr(x, "_dtype") and x._dtype is not a and \
            x._dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type {a.torch_name} but found {x._dtype.torch_name}")
    return a


def _helper(name, fwd, dtype_rule="self", args=("self",), **kw):
    """A kernel only backward formulas call (no public name, no backward of its own)."""
    spec = register(OpSpec(name=name, forward=fwd, args=args, dtype_rule=dtype_rule,
                           method=False, function=False, out=False, **kw))

    def call(*a, **p):
        return dispatch.call(spec, a, p)

    return call


# ---- convolution ----------------------------------------------------------------------------

def _conv_geometry(xshape, wshape, stride, padding, dilation, groups):
    """``(stride, padding, dilation, output size)`` as pairs. The arguments were checked
    before the call, with ATen's words and order (``nn_conv_more.check_convolution``, which
    the functionals run first): this only computes."""
    kh, kw = wshape[2:]
    (sh, sw), (ph, pw), (dh, dw) = (_pair(stride, "stride"), _pair(padding, "padding"),
                                    _pair(dilation, "dilation"))
    ho = (xshape[2] + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (xshape[3] + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    return (sh, sw), (ph, pw), (dh, dw), (ho, wo)


def _windows(xp, x, k, s, p, d, out_hw, fill=0.0):
    """(N, C, Ho, Wo, kh, kw) view of every receptive field of the padded input (no copy)."""
    if p[0] or p[1]:
        x = xp.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=fill)
    st = x.strides
    shape = x.shape[:2] + tuple(out_hw) + tuple(k)
    strides = (st[0], st[1], st[2] * s[0], st[3] * s[1], st[2] * d[0], st[3] * d[1])
    return xp.lib.stride_tricks.as_strided(x, shape, strides)


def _cols(xp, x, k, s, p, d, hw):
    """im2col: (N, C*kh*kw, Ho*Wo), every receptive field as a column (one copy)."""
    n, c = x.shape[:2]
    win = _windows(xp, x, k, s, p, d, hw)  # (N, C, Ho, Wo, kh, kw) view
    return win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * k[0] * k[1], hw[0] * hw[1])


def _conv_fwd(xp, x, w, b, out=None, dt=None, stride=1, padding=0, dilation=1, groups=1):
    s, p, d, hw = _conv_geometry(x.shape, w.shape, stride, padding, dilation, groups)
    if groups == 1:  # im2col + one batched GEMM: (O, C*k*k) @ (N, C*k*k, L) -> (N, O, L), NCHW
        o = w.shape[0]
        y = xp.matmul(w.reshape(o, -1), _cols(xp, x, w.shape[2:], s, p, d, hw))
        if b is not None:
            y += b.reshape(1, o, 1).astype(y.dtype, copy=False)
        return y.reshape(x.shape[0], o, *hw).astype(dt.np, copy=False)
    cols = _windows(xp, x, w.shape[2:], s, p, d, hw)
    n, c = x.shape[:2]
    o = w.shape[0]
    cols = cols.reshape(n, groups, c // groups, *hw, *w.shape[2:])
    wg = w.reshape(groups, o // groups, c // groups, *w.shape[2:])
    y = xp.einsum("ngchwij,gocij->ngohw", cols, wg, optimize=True).reshape(n, o, *hw)
    y = xp.ascontiguousarray(y)  # (einsum's own layout is not ATen's NCHW result)
    if b is not None:
        y += b.reshape(1, o, 1, 1).astype(y.dtype, copy=False)
    return y.astype(dt.np, copy=False)


def _conv_grad_input_fwd(xp, g, w, out=None, dt=None, input_shape=None, stride=1, padding=0,
                         dilation=1, groups=1):
    s, p, d, hw = _conv_geometry(input_shape, w.shape, stride, padding, dilation, groups)
    n, c, h, wd = input_shape
    o, cg, kh, kw = w.shape
    if groups == 1:  # col2im of W.T @ g: (C*k*k, O) @ (N, O, L) -> (N, C, kh, kw, Ho, Wo)
        cols = xp.matmul(w.reshape(o, -1).T, g.reshape(n, o, -1)).reshape(n, c, kh, kw, *hw)
        def tap(i, j):
            return cols[:, :, i, j]
    else:
        gg = g.reshape(n, groups, o // groups, *hw)
        wg = w.reshape(groups, o // groups, cg, kh, kw)
        contrib = xp.einsum("ngohw,gocij->ngchwij", gg, wg, optimize=True).reshape(n, c, *hw, kh, kw)
        def tap(i, j):
            return contrib[..., i, j]
    gp = xp.zeros((n, c, h + 2 * p[0], wd + 2 * p[1]), dtype=g.dtype)
    for i in range(kh):  # scatter every kernel tap back to the pixels it read
        for j in range(kw):
            r0, c0 = i * d[0], j * d[1]
            gp[:, :, r0:r0 + s[0] * (hw[0] - 1) + 1:s[0], c0:c0 + s[1] * (hw[1] - 1) + 1:s[1]] += \
                tap(i, j)
    return gp[:, :, p[0]:p[0] + h, p[1]:p[1] + wd]


def _conv_grad_weight_fwd(xp, g, x, out=None, dt=None, weight_shape=None, stride=1, padding=0,
                          dilation=1, groups=1):
    s, p, d, hw = _conv_geometry(x.shape, weight_shape, stride, padding, dilation, groups)
    o, cg, kh, kw = weight_shape
    n = x.shape[0]
    if groups == 1:  # sum over the batch of g (O, L) @ cols.T (L, C*k*k): batched GEMM
        cols = _cols(xp, x, (kh, kw), s, p, d, hw)
        return xp.matmul(g.reshape(n, o, -1), cols.transpose(0, 2, 1)).sum(0).reshape(weight_shape)
    cols = _windows(xp, x, (kh, kw), s, p, d, hw).reshape(n, groups, cg, *hw, kh, kw)
    gg = g.reshape(n, groups, o // groups, *hw)
    return xp.einsum("ngohw,ngchwij->gocij", gg, cols, optimize=True).reshape(weight_shape)


_conv_grad_input = _helper("_conv2d_grad_input", _conv_grad_input_fwd, args=("self", "weight"),
                           params={"input_shape": None, "stride": 1, "padding": 0, "dilation": 1,
                                   "groups": 1})
_conv_grad_weight = _helper("_conv2d_grad_weight", _conv_grad_weight_fwd, args=("self", "input"),
                            params={"weight_shape": None, "stride": 1, "padding": 0, "dilation": 1,
                                    "groups": 1})


def _conv_bw(c, g):
    geo = {k: c[k] for k in ("stride", "padding", "dilation", "groups")}
    x, w = c["self"], c["weight"]
    gx = _conv_grad_input(g, w, input_shape=tuple(x.shape), **geo) if c.needs_input_grad[0] else None
    gw = _conv_grad_weight(g, x, weight_shape=tuple(w.shape), **geo) if c.needs_input_grad[1] else None
    gb = g.sum((0, 2, 3)) if c.needs_input_grad[2] else None
    return (gx, gw, gb)


register(OpSpec(name="_conv2d", forward=_conv_fwd, backward=_conv_bw,
                args=("self", "weight", "bias"), optional_args=("bias",),
                params={"stride": 1, "padding": 0, "dilation": 1, "groups": 1},
                saves=("self", "weight"), dtype_rule=_same_float, method=False, function=False,
                out=False, node_name="ConvolutionBackward0",
                doc="conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1): "
                    "saves input and weight."))


# ---- max pooling ----------------------------------------------------------------------------

def _pool_geometry(shape, kernel_size, stride, padding, dilation, ceil_mode):
    k = _pair(kernel_size)
    s = _pair(stride if stride not in (None, ()) else kernel_size, "stride")
    p = _pair(padding, "padding")
    d = _pair(dilation, "dilation")
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[0]}, "
                           f"kernel_size={k[0]} and dilation={d[0]}")
    out = []
    for n, kk, ss, pp, dd in zip(shape[-2:], k, s, p, d):
        span = n + 2 * pp - dd * (kk - 1) - 1
        o = (-(-span // ss) if ceil_mode else span // ss) + 1
        if ceil_mode and (o - 1) * ss >= n + pp:  # the last window must start inside the input
            o -= 1
        out.append(o)
    if out[0] < 1 or out[1] < 1:
        c = shape[-3] if len(shape) > 2 else 1
        raise RuntimeError(f"Given input size: ({c}x{shape[-2]}x{shape[-1]}). Calculated output "
                           f"size: ({c}x{out[0]}x{out[1]}). Output size is too small")
    return k, s, p, d, tuple(out)


def _pool_taps(xp, x4, k, s, p, d, hw, fill=None):
    """(padded input, [(i, j, view)]): one strided view per kernel tap, in argmax order.

    The padding holds ``fill`` (-inf by default: max pooling; average pooling pads zeros)."""
    need = [(o - 1) * ss + dd * (kk - 1) + 1 for o, ss, dd, kk in zip(hw, s, d, k)]
    extra = [max(0, nd - (n + 2 * pp)) for nd, n, pp in zip(need, x4.shape[-2:], p)]
    xpad = x4
    if p[0] or p[1] or extra[0] or extra[1]:
        xpad = xp.pad(x4, ((0, 0), (0, 0), (p[0], p[0] + extra[0]), (p[1], p[1] + extra[1])),
                      constant_values=-xp.inf if fill is None else fill)
    taps = []
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * d[0], j * d[1]
            taps.append((r0, c0, xpad[:, :, r0:r0 + s[0] * (hw[0] - 1) + 1:s[0],
                                      c0:c0 + s[1] * (hw[1] - 1) + 1:s[1]]))
    return xpad, taps


def _taps_max(xp, x, taps, zero_signs=True):
    """The windows' maximum, tap by tap, by PyTorch's rule ``val > max or isnan(val)``: the
    first of equal values wins (the sign of a zero is the first zero's), NaN propagates.

    ``maximum`` gives the same values (NaN included) except, maybe, the sign of a zero
    maximum between -0.0 and 0.0; the masked rule (several times slower) runs only when
    some maximum is zero and the input holds a -0.0.
    """
    y = taps[0][2].copy()
    for _, _, t in taps[1:]:
        xp.maximum(y, t, out=y)
    if not zero_signs or x.dtype.kind != "f" or not (y == 0).any() or \
            not ((x == 0) & xp.signbit(x)).any():
        return y
    y = taps[0][2].copy()
    for _, _, t in taps[1:]:
        m = t > y
        m |= xp.isnan(t)
        xp.copyto(y, t, where=m)
    return y


def _max_pool_fwd(xp, x, out=None, dt=None, kernel_size=2, stride=None, padding=0, dilation=1,
                  ceil_mode=False, return_indices=False):
    if return_indices:
        raise NotImplementedError("this kernel recomputes the argmax in backward; "
                                  "return_indices=True is the op _max_pool2d_with_indices "
                                  "(ops/nn_pool_more.py)")
    x4 = x if x.ndim == 4 else x[None]
    k, s, p, d, hw = _pool_geometry(x4.shape, kernel_size, stride, padding, dilation, ceil_mode)
    y = _taps_max(xp, x4, _pool_taps(xp, x4, k, s, p, d, hw)[1])
    return y if x.ndim == 4 else y[0]


def _max_pool_grad_fwd(xp, g, x, out=None, dt=None, kernel_size=2, stride=None, padding=0,
                       dilation=1, ceil_mode=False, return_indices=False):
    unbatched = x.ndim == 3
    x4, g4 = (x[None], g[None]) if unbatched else (x, g)
    k, s, p, d, hw = _pool_geometry(x4.shape, kernel_size, stride, padding, dilation, ceil_mode)
    xpad, taps = _pool_taps(xp, x4, k, s, p, d, hw)
    y = _taps_max(xp, x4, taps, zero_signs=False)  # compared with ==: the sign of 0 is moot
    nan = y.dtype.kind in "fc" and bool(xp.isnan(y).any())
    g4 = g4.astype(x4.dtype, copy=False)
    gp = xp.zeros(xpad.shape, dtype=x4.dtype)
    free = xp.ones(y.shape, dtype=bool)  # windows whose argmax is still to be found
    inside = None  # padding never takes the gradient (a window of -inf: its first real cell)
    if xpad is not x4:
        inside = xp.zeros(xpad.shape[-2:], dtype=bool)
        inside[p[0]:p[0] + x4.shape[2], p[1]:p[1] + x4.shape[3]] = True
    for r0, c0, t in taps:  # the first tap equal to the max (or the first NaN) takes the grad
        hit = t == y
        if nan:
            hit |= xp.isnan(t)
        if inside is not None:
            hit &= inside[r0:r0 + s[0] * (hw[0] - 1) + 1:s[0], c0:c0 + s[1] * (hw[1] - 1) + 1:s[1]]
        hit &= free
        free ^= hit
        gp[:, :, r0:r0 + s[0] * (hw[0] - 1) + 1:s[0], c0:c0 + s[1] * (hw[1] - 1) + 1:s[1]] += \
            g4 * hit
    gx = gp[:, :, p[0]:p[0] + x4.shape[2], p[1]:p[1] + x4.shape[3]]
    return gx[0] if unbatched else gx


_POOL_PARAMS = {"kernel_size": 2, "stride": None, "padding": 0, "dilation": 1, "ceil_mode": False,
                "return_indices": False}
_max_pool_grad = _helper("_max_pool2d_grad", _max_pool_grad_fwd, args=("self", "input"),
                         params=dict(_POOL_PARAMS))


def _max_pool_bw(c, g):
    return (_max_pool_grad(g, c["self"], **{k: c[k] for k in _POOL_PARAMS}),)


register(OpSpec(name="_max_pool2d", forward=_max_pool_fwd, backward=_max_pool_bw,
                params=dict(_POOL_PARAMS), saves=("self",), dtype_rule="self", method=False,
                function=False, out=False, node_name="MaxPool2DWithIndicesBackward0",
                doc="max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, "
                    "ceil_mode=False): saves its input (the argmax is recomputed in backward)."))


# ---- batch norm -----------------------------------------------------------------------------

def _bn_axes(ndim):
    return (0,) + tuple(range(2, ndim))


def _bn_shape(ndim, c):
    return (1, c) + (1,) * (ndim - 2)


_BN_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_BN_EXACT = 1 << 16  # larger inputs: numpy's plain formula (the fused one costs ~3x there)


def _bn_aten(x, w, b, rm, rv, dt, training, eps):
    """ATen's CPU batch norm, its roundings in its order: per channel mean = sum / n and the
    sum of squared deviations, 1/std in double (its acc_type), then the linear terms ``alpha =
    invstd * weight``, ``beta = bias - mean * alpha`` and ``y = x * alpha + beta``, the last
    two fused multiply-adds as its compiled kernel runs them."""
    from .nn_norm_ops import fma

    c = x.shape[1]
    t = x.dtype.type
    if training:  # (numpy's sums: ATen's vectorised order is not replayed, so beyond two
        axes = _bn_axes(x.ndim)  # values per channel the statistics' last bits may differ)
        n = t(x.size // c)
        mean = x.sum(axis=axes) / n
        d = x - mean.reshape(_bn_shape(x.ndim, c))
        var_sum = (d * d).sum(axis=axes)
        invstd = (1.0 / np.sqrt((var_sum / n).astype(np.float64) + eps)).astype(x.dtype)
    else:
        mean = rm.astype(x.dtype, copy=False)
        invstd = t(1) / np.sqrt(rv.astype(x.dtype, copy=False) + t(eps))
    alpha = invstd if w is None else invstd * w
    beta = -mean * alpha if b is None else fma(-mean, alpha, b)
    shp = _bn_shape(x.ndim, c)
    y = fma(x, alpha.reshape(shp), beta.reshape(shp)).astype(dt.np, copy=False)
    if not training:
        return y, np.empty((0,), dt.np), np.empty((0,), dt.np)
    return y, mean.astype(dt.np, copy=False), invstd.astype(dt.np, copy=False)


def _bn_fwd(xp, x, w, b, rm, rv, out=None, dt=None, training=True, eps=1e-5, copy_one=False):
    """(y, save_mean, save_invstd): ATen's native_batch_norm keeps the batch statistics per
    channel for backward in training, two empty tensors in eval. ``copy_one`` (Paddle's
    kernel): one value per channel in training is copied through, not normalised."""
    if copy_one and training and x.size == x.shape[1]:
        return (x.astype(dt.np, copy=True), xp.zeros(x.shape[1], dt.np),
                xp.zeros(x.shape[1], dt.np))
    axes, shp = _bn_axes(x.ndim), _bn_shape(x.ndim, x.shape[1])
    if xp is np and x.dtype in _BN_FLOATS and 0 < x.size <= _BN_EXACT:
        return _bn_aten(x, w, b, rm, rv, dt, training, eps)
    if training:
        mean = x.mean(axis=axes, keepdims=True)
        invstd = 1 / xp.sqrt(x.var(axis=axes, keepdims=True) + eps)
    else:
        mean, invstd = rm.reshape(shp), 1 / xp.sqrt(rv.reshape(shp) + eps)
    y = (x - mean) * invstd
    if w is not None:
        y = y * w.reshape(shp)
    if b is not None:
        y = y + b.reshape(shp)
    if not training:
        return y.astype(dt.np, copy=False), xp.empty((0,), dt.np), xp.empty((0,), dt.np)
    return (y.astype(dt.np, copy=False), mean.reshape(-1).astype(dt.np, copy=False),
            invstd.reshape(-1).astype(dt.np, copy=False))


def _bn_bw(c, g):
    """Training: the classic formula from the saved input and batch statistics; eval: a
    per-channel scale from the running variance."""
    x, eps = c["input"], c["eps"]
    if c["copy_one"] and c["training"] and x.numel() == x.shape[1]:  # (Paddle: dx = dy)
        z = [None if not c.needs_input_grad[i] else g.new_zeros(x.shape[1]) for i in (1, 2)]
        return (g if c.needs_input_grad[0] else None, z[0], z[1], None, None)
    axes, shp = _bn_axes(x.ndim), _bn_shape(x.ndim, x.shape[1])
    w = c["weight"] if "weight" in c.saved else None
    if c["training"]:
        mean, invstd = c["result1"].reshape(shp), c["result2"].reshape(shp)
    else:
        mean = c["running_mean"].reshape(shp)
        invstd = (c["running_var"].reshape(shp) + eps).rsqrt()
    xhat = (x - mean) * invstd
    gb = g.sum(axes)
    gw = (g * xhat).sum(axes)
    gx = None
    if c.needs_input_grad[0]:
        scale = invstd if w is None else invstd * w.reshape(shp)
        if c["training"]:
            m = x.numel() // x.shape[1]
            gx = scale * (g - gb.reshape(shp) / m - xhat * gw.reshape(shp) / m)
        else:
            gx = g * scale
    return (gx, gw if c.needs_input_grad[1] else None, gb if c.needs_input_grad[2] else None,
            None, None)


register(OpSpec(name="_batch_norm", forward=_bn_fwd, backward=_bn_bw,
                args=("input", "weight", "bias", "running_mean", "running_var"),
                optional_args=("weight", "bias", "running_mean", "running_var"),
                params={"training": True, "eps": 1e-5, "copy_one": False},
                saves=("input", "weight", "running_mean", "running_var", "result1", "result2"),
                saved_results=("result1", "result2"), dtype_rule="self",
                nondiff=("running_mean", "running_var"),  # (three edges, as torch's node)
                method=False, function=False, out=False, node_name="NativeBatchNormBackward0",
                doc="batch norm over dim 1; training uses batch statistics, kept per channel for "
                    "backward (running stats are updated by the caller, in place, under "
                    "no_grad)."))


# ---- embedding ------------------------------------------------------------------------------

def _emb_dtype(spec, ins, params):
    if ins[1].ndim != 2:  # (ATen's embedding checks the weight first)
        raise RuntimeError("'weight' must be 2-D")
    idx = ins[0]._dtype
    if idx.category != 1:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got torch.{idx.torch_name}Tensor instead "
                           "(while checking arguments for embedding)")
    return ins[1]._dtype


def _emb_fwd(xp, idx, w, out=None, dt=None, padding_idx=None, max_norm=None, norm_type=2.0,
             scale_grad_by_freq=False, sparse=False):
    if max_norm is not None or sparse:
        raise NotImplementedError("embedding(max_norm=..., sparse=True) is not supported here")
    if idx.size and (idx.min() < 0 or idx.max() >= w.shape[0]):
        raise IndexError("index out of range in self")
    return w[idx]


def _emb_bw(c, g):
    from .. import creation

    idx = c["self"]
    shape, dt, dev = c.input_meta[1]
    flat_idx = idx.reshape(-1)
    gflat = g.reshape(-1, shape[1])
    if c["scale_grad_by_freq"]:
        counts = creation.zeros(shape[0], dtype=dt, device=dev).index_add(
            0, flat_idx, creation.ones(flat_idx.shape[0], dtype=dt, device=dev))
        gflat = gflat / counts.index_select(0, flat_idx).unsqueeze(1)
    pad = c["padding_idx"]
    if pad is not None:  # (ATen's kernel skips the padding rows: no write after the sum, the
        gflat = gflat.where((flat_idx != pad).unsqueeze(1), 0.0)  # gradient at version 0)
    gw = creation.zeros(shape, dtype=g._dtype, device=dev).index_add(0, flat_idx, gflat)
    return (None, gw)


register(OpSpec(name="_embedding", forward=_emb_fwd, backward=_emb_bw, args=("self", "weight"),
                params={"padding_idx": None, "max_norm": None, "norm_type": 2.0,
                        "scale_grad_by_freq": False, "sparse": False},
                saves=("self",), dtype_rule=_emb_dtype, method=False, function=False, out=False,
                nondiff=("self",),  # (the indices: EmbeddingBackward0's one edge is weight's)
                node_name="EmbeddingBackward0", doc="embedding(input, weight): rows of weight."))


# ---- losses ---------------------------------------------------------------------------------

def _reduce(xp, v, reduction):
    if reduction == "mean":
        return v.mean()
    if reduction == "sum":
        return v.sum()
    if reduction == "none":
        return v
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce_t(v, reduction):
    return v.mean() if reduction == "mean" else v.sum() if reduction == "sum" else v


def _expand_grad(c, g, shape):
    r = c["reduction"]
    n = 1
    for s in shape:
        n *= s
    return g / n if r == "mean" else g


def _mse_fwd(xp, a, b, out=None, dt=None, reduction="mean"):
    d = a - b
    return xp.asarray(_reduce(xp, d * d, reduction), dtype=dt.np)


def _mse_bw(c, g):
    a, b = c["self"], c["target"]
    d = a - b
    gd = _expand_grad(c, g, d.shape) * 2 * d
    return (gd if c.needs_input_grad[0] else None,
            (-gd).sum_to_size(b.shape) if c.needs_input_grad[1] else None)


register(OpSpec(name="_mse_loss", forward=_mse_fwd, backward=_mse_bw, args=("self", "target"),
                params={"reduction": "mean"}, saves=("self", "target"), dtype_rule="float",
                method=False, function=False, out=False, node_name="MseLossBackward0",
                doc="mse_loss(input, target, reduction='mean'): saves both inputs."))


def _nll_dtype(spec, ins, params):
    t = ins[1]._dtype
    if t.category != 1 or t.torch_name not in ("Long", "Byte"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {t.torch_name}")
    x, w = ins[0]._dtype, ins[2]
    if w is not None and w._dtype is not x:
        raise RuntimeError(f"expected scalar type {x.torch_name} but found {w._dtype.torch_name}")
    return x


def _nll_pick(xp, x, t):
    """Gather x[n, t[n], ...] along dim 1 (targets equal to ignore_index read class 0)."""
    return xp.take_along_axis(x, xp.expand_dims(t, 1), axis=1).squeeze(1)


def _nll_fwd(xp, x, t, w, out=None, dt=None, ignore_index=-100, reduction="mean"):
    unbatched = x.ndim == 1  # (C,) input, () target: reduction='none' gives a 0-dim loss
    if unbatched:
        x, t = x[None], t.reshape(1)
    if x.shape[0] != t.shape[0]:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({t.shape[0]}).")
    keep = t != ignore_index
    if t.size and bool(keep.all()) and 0 <= int(t.min()) and int(t.max()) < x.shape[1]:
        tt = t  # the common batch: every target kept and in range (two small reductions)
    else:
        bad = keep & ((t < 0) | (t >= x.shape[1]))
        if bad.any():
            raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
        tt = xp.where(keep, t, 0)
    # the weight of each kept target, 0 for an ignored one (``keep`` as 1.0/0.0 is
    # ``ones * keep`` without the ones)
    wt = w[tt] * keep if w is not None else keep.astype(x.dtype)
    picked = x[xp.arange(x.shape[0]), tt] if x.ndim == 2 else _nll_pick(xp, x, tt)
    loss = -picked * wt
    # (ATen's nll_loss_forward also returns total_weight, a 0-dim tensor its node keeps:
    # the weights of the kept targets, 0 for reduction='none')
    total = xp.asarray(wt.sum() if reduction != "none" else 0, dtype=dt.np)
    if reduction == "mean":
        return xp.asarray(loss.sum() / wt.sum(), dtype=dt.np), total
    if reduction == "none" and unbatched:
        loss = loss.reshape(())
    return xp.asarray(_reduce(xp, loss, reduction), dtype=dt.np), total


def _nll_weights(c, x, t):
    from .. import creation

    w = c["weight"] if "weight" in c.saved else None
    keep = t != c["ignore_index"]
    tt = t.where(keep, 0)
    wt = w.index_select(0, tt.reshape(-1)).reshape(tt.shape) if w is not None else \
        creation.ones(tt.shape, dtype=x._dtype, device=x.device)
    return tt, wt * keep


def _nll_bw(c, g):
    from .. import creation

    x, t = c["self"], c["target"]
    one_d = x.ndim == 1
    if one_d:
        x, t = x.unsqueeze(0), t.reshape(1)
    tt, wt = _nll_weights(c, x, t)
    r = c["reduction"]
    scale = -wt / wt.sum() if r == "mean" else -wt
    gw = (g * scale) if r != "none" else g.reshape(scale.shape) * scale
    gx = creation.zeros(x.shape, dtype=x._dtype, device=x.device).scatter(
        1, tt.unsqueeze(1), gw.unsqueeze(1))
    return (gx.squeeze(0) if one_d else gx, None, None)


register(OpSpec(name="_nll_loss", forward=_nll_fwd, backward=_nll_bw,
                args=("self", "target", "weight"), optional_args=("weight",),
                params={"ignore_index": -100, "reduction": "mean"},
                saves=("self", "target", "weight", "total_weight"),
                saved_results=("total_weight",), dtype_rule=_nll_dtype, method=False,
                nondiff=("target", "weight"),  # (derivatives.yaml: self alone has a formula)
                function=False, out=False, node_name="NllLossBackward0",
                doc="nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean')."))
# nll_loss2d: the same kernels over (N, C, H, W) (they gather and scatter along dim 1), the
# node PyTorch names NllLoss2DBackward0 (F.nll_loss / cross_entropy of an image's classes)
NLL_LOSS_2D = dataclasses.replace(OPS["_nll_loss"], name="_nll_loss2d",
                                  node_name="NllLoss2DBackward0", backward_array=None)


def _bce_fwd(xp, x, y, w, pw, out=None, dt=None, reduction="mean"):
    if x.shape != y.shape:
        raise ValueError(f"Target size (torch.Size({list(y.shape)})) must be the same as input size "
                         f"(torch.Size({list(x.shape)}))")
    log_sig_neg = xp.logaddexp(0, -x)  # -log(sigmoid(x)), stable
    if pw is not None:
        loss = (1 - y) * x + (1 + (pw - 1) * y) * log_sig_neg
    else:
        loss = (1 - y) * x + log_sig_neg
    if w is not None:
        loss = loss * w
    return xp.asarray(_reduce(xp, loss, reduction), dtype=dt.np)


def _bce_bw(c, g):
    x, y = c["self"], c["target"]
    w = c["weight"] if "weight" in c.saved else None
    pw = c["pos_weight"] if "pos_weight" in c.saved else None
    s = x.sigmoid()
    d = s - y if pw is None else (pw * y + 1 - y) * s - pw * y
    gx = d * g  # ATen's order (and the input's layout: x.sigmoid() comes first)
    if w is not None:
        gx = gx * w
    if c["reduction"] == "mean":
        gx = gx / x.numel()
    if not grad_mode.state.enabled:  # ATen's formula works in place: sigmoid().sub_(target)
        # .mul_(grad), then .mul_(weight) and .div_(numel) for 'mean' (with pos_weight:
        # add(1).sub_(target).mul_(sigmoid).sub_(t) first)
        gx._vc.bump((2 if pw is None else 4) + (w is not None) + (c["reduction"] == "mean"))
    gy = None
    if c.needs_input_grad[1]:
        gy = -x if pw is None else (pw - 1) * -(x.sigmoid().log()) - x
        gy = _expand_grad(c, g, x.shape) * (gy if w is None else gy * w)
    return (gx if c.needs_input_grad[0] else None, gy, None, None)


register(OpSpec(name="_bce_with_logits", forward=_bce_fwd, backward=_bce_bw,
                args=("self", "target", "weight", "pos_weight"),
                optional_args=("weight", "pos_weight"), params={"reduction": "mean"},
                saves=("self", "target", "weight", "pos_weight"), dtype_rule="self",
                method=False, function=False, out=False,
                node_name="BinaryCrossEntropyWithLogitsBackward0",
                doc="binary_cross_entropy_with_logits(input, target, weight=None, "
                    "pos_weight=None, reduction='mean')."))

NN_OPS = {n: OPS[n] for n in ("_conv2d", "_max_pool2d", "_batch_norm", "_embedding", "_nll_loss",
                              "_mse_loss", "_bce_with_logits")}

from . import nn_norm_ops  # noqa: E402,F401  (_layer_norm, _group_norm)
