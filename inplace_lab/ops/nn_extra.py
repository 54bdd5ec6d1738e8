"""More neural-network kernels: average and adaptive pooling, conv1d, padding.

Each is one table op with PyTorch's node name (``AvgPool2DBackward0``,
``AdaptiveAvgPool2DBackward0``, ``AdaptiveMaxPool2DBackward0``, ``ConvolutionBackward0``,
``ConstantPadNdBackward0``, ``ReflectionPad2DBackward0`` ...), so a trace reads like one
of PyTorch. What they save is the lesson again: a pool's backward is linear in the
gradient and needs only shapes, yet PyTorch's pooling nodes save their input all the same
(``_saved_self``), so an in-place op on it before backward fails there and here; adaptive
max pooling also saves the argmax indices (``_saved_result1``, its second result); conv1d
saves input and weight, as conv2d.

Losses and activations with their own kernels (binary_cross_entropy, smooth_l1, huber,
soft_margin, log_sigmoid, glu, prelu) are in ``nn_extra_pointwise``.
"""
from __future__ import annotations

import numpy as _np

from . import dispatch
from .. import dtypes as _dtypes
from .nn_ops import _conv_fwd, _conv_grad_input, _conv_grad_weight, _pool_geometry, _pool_taps
from .table import OPS, OpSpec, register


def _helper(name, fwd, args=("self",), **kw):
    """A kernel only backward formulas call (no public name); ``kw`` may give its backward."""
    spec = register(OpSpec(name=name, forward=fwd, args=args, dtype_rule="self", method=False,
                           function=False, out=False, **kw))
    return lambda *a, **p: dispatch.call(spec, a, p)


def _nn_op(name, fwd, bw, node_name, doc, args=("self",), **kw):
    kw.setdefault("dtype_rule", "self")
    return register(OpSpec(name=name, forward=fwd, backward=bw, args=args, method=False,
                           function=False, out=False, node_name=node_name, doc=doc, **kw))


def _batched(x):
    """(N, C, H, W) view of a 3-D (C, H, W) or 4-D input, and whether it was unbatched."""
    return (x[None], True) if x.ndim == 3 else (x, False)


def _check_3d_4d(shape, name):
    if len(shape) not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got {list(shape)}")


def _cast(xp, y, dt):
    """An average's result in the op's dtype: integers truncate toward zero, as ATen's
    integer division does (``avg_pool2d`` of a LongTensor stays Long)."""
    if dt.np.kind in "iub":
        y = xp.trunc(y)
    return y.astype(dt.np, copy=False)


# ---- average pooling ------------------------------------------------------------------------

def _avg_divisor(xp, hw_in, k, s, p, hw, count_include_pad, divisor_override):
    """(Ho, Wo) divisors, ATen's rule: the window clipped to the padded input (with
    ``count_include_pad``), or to the input itself; ``divisor_override`` replaces both."""
    if divisor_override is not None:
        return xp.asarray(float(divisor_override))
    counts = []
    for n, kk, ss, pp, o in zip(hw_in, k, s, p, hw):
        start = xp.arange(o) * ss - pp
        end = xp.minimum(start + kk, n + pp)
        if count_include_pad:
            counts.append(end - start)
        else:
            counts.append(xp.minimum(end, n) - xp.maximum(start, 0))
    return (counts[0][:, None] * counts[1][None, :]).astype(float)


def _avg_geometry(xp, shape, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override):
    if len(shape) < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-len(shape)}, "
                         f"{len(shape) - 1}], but got -3)")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    k, s, p, d, hw = _pool_geometry(shape, kernel_size, stride, padding, 1, ceil_mode)
    div = _avg_divisor(xp, shape[-2:], k, s, p, hw, count_include_pad, divisor_override)
    return k, s, p, d, hw, div


def _avg_fwd(xp, x, out=None, dt=None, kernel_size=2, stride=None, padding=0, ceil_mode=False,
             count_include_pad=True, divisor_override=None):
    k, s, p, d, hw, div = _avg_geometry(xp, x.shape, kernel_size, stride, padding, ceil_mode,
                                        count_include_pad, divisor_override)
    x4, unbatched = _batched(x)
    acc_dt = x.dtype if x.dtype.kind == "f" else xp.float64
    _, taps = _pool_taps(xp, x4.astype(acc_dt, copy=False), k, s, p, d, hw, fill=0)
    y = taps[0][2].copy()
    for _, _, t in taps[1:]:
        y += t
    y = _cast(xp, y / div, dt)
    return y[0] if unbatched else y


def _avg_grad_fwd(xp, g, out=None, dt=None, input_shape=None, kernel_size=2, stride=None,
                  padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    """Each output's gradient divided by its divisor, added back to every cell it averaged."""
    k, s, p, d, hw, div = _avg_geometry(xp, input_shape, kernel_size, stride, padding, ceil_mode,
                                        count_include_pad, divisor_override)
    g4 = g[None] if len(input_shape) == 3 else g
    shape4 = input_shape if len(input_shape) == 4 else (1,) + tuple(input_shape)
    gd = (g4 / div).astype(g.dtype, copy=False)
    rows = max(shape4[2] + 2 * p[0], (hw[0] - 1) * s[0] + k[0])
    cols = max(shape4[3] + 2 * p[1], (hw[1] - 1) * s[1] + k[1])
    gp = xp.zeros(shape4[:2] + (rows, cols), dtype=g.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            gp[:, :, i:i + s[0] * (hw[0] - 1) + 1:s[0], j:j + s[1] * (hw[1] - 1) + 1:s[1]] += gd
    gx = gp[:, :, p[0]:p[0] + shape4[2], p[1]:p[1] + shape4[3]]
    return gx[0] if len(input_shape) == 3 else gx


_AVG_PARAMS = {"kernel_size": 2, "stride": None, "padding": 0, "ceil_mode": False,
               "count_include_pad": True, "divisor_override": None}
_avg_grad = _helper("_avg_pool2d_grad", _avg_grad_fwd,
                    params={"input_shape": None, **_AVG_PARAMS})


def _avg_bw(c, g):
    shape = c.input_meta[0][0]
    return (_avg_grad(g, input_shape=tuple(shape), **{k: c[k] for k in _AVG_PARAMS}),)


_nn_op("_avg_pool2d", _avg_fwd, _avg_bw, "AvgPool2DBackward0", params=dict(_AVG_PARAMS),
       saves=("self",),
       doc="avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, "
           "count_include_pad=True, divisor_override=None): saves its input (as PyTorch, "
           "though the backward reads only its shape).")


# ---- adaptive pooling -------------------------------------------------------------------------

def _adaptive_bounds(n, o):
    """ATen's windows: [floor(i*n/o), ceil((i+1)*n/o)) for each output index i."""
    return [((i * n) // o, -(-((i + 1) * n) // o)) for i in range(o)]


def _window_matrix(xp, n, o, dtype):
    """(o, n) 0/1 matrix of the adaptive windows and the (o,) window sizes."""
    m = xp.zeros((o, n), dtype=dtype)
    for i, (a, b) in enumerate(_adaptive_bounds(n, o)):
        m[i, a:b] = 1
    return m, m.sum(1)


def _adaptive_avg_fwd(xp, x, out=None, dt=None, output_size=(1, 1)):
    """Window sums as two small matrix products (rows, then columns), divided by each
    window's size: ``A_h @ x @ A_w.T / (n_h n_w)``."""
    _check_3d_4d(x.shape, "adaptive_avg_pool2d")
    acc = x.dtype if x.dtype.kind == "f" else xp.float64
    ah, nh = _window_matrix(xp, x.shape[-2], output_size[0], acc)
    aw, nw = _window_matrix(xp, x.shape[-1], output_size[1], acc)
    y = ah @ x.astype(acc, copy=False) @ aw.T
    return _cast(xp, y / (nh[:, None] * nw[None, :]), dt)


def _adaptive_avg_grad_fwd(xp, g, out=None, dt=None, input_shape=None):
    ah, nh = _window_matrix(xp, input_shape[-2], g.shape[-2], g.dtype)
    aw, nw = _window_matrix(xp, input_shape[-1], g.shape[-1], g.dtype)
    return ah.T @ (g / (nh[:, None] * nw[None, :])) @ aw


_adaptive_avg_grad = _helper("_adaptive_avg_pool2d_grad", _adaptive_avg_grad_fwd,
                             params={"input_shape": None})
_nn_op("_adaptive_avg_pool2d", _adaptive_avg_fwd,
       lambda c, g: (_adaptive_avg_grad(g, input_shape=tuple(c.input_meta[0][0])),),
       "AdaptiveAvgPool2DBackward0", params={"output_size": (1, 1)}, saves=("self",),
       doc="adaptive_avg_pool2d(input, output_size): saves its input (as PyTorch; the "
           "backward reads only its shape).")


def _adaptive_max_fwd(xp, x, out=None, dt=None, output_size=(1, 1)):
    """Each window's first maximum (NaN wins) and its flat index ``h * W + w`` in the plane."""
    _check_3d_4d(x.shape, "adaptive_max_pool2d")
    h, w = x.shape[-2:]
    oh, ow = output_size
    vals = xp.empty(x.shape[:-2] + (oh, ow), dtype=x.dtype)
    idx = xp.empty(x.shape[:-2] + (oh, ow), dtype=xp.int64)
    for i, (h0, h1) in enumerate(_adaptive_bounds(h, oh)):
        for j, (w0, w1) in enumerate(_adaptive_bounds(w, ow)):
            win = x[..., h0:h1, w0:w1].reshape(x.shape[:-2] + (-1,))
            a = xp.argmax(win, axis=-1)
            vals[..., i, j] = xp.take_along_axis(win, a[..., None], -1)[..., 0]
            idx[..., i, j] = (h0 + a // (w1 - w0)) * w + (w0 + a % (w1 - w0))
    return vals, idx


def _adaptive_max_bw(c, g):
    """The gradient goes to each window's argmax (``scatter_add``: windows may share one)."""
    from .. import creation

    shape, dt, dev = c.input_meta[0]
    flat = creation.zeros(tuple(shape[:-2]) + (shape[-2] * shape[-1],), dtype=g._dtype, device=dev)
    gx = flat.scatter_add(-1, c["result1"].flatten(-2), g.flatten(-2))
    return (gx.view(tuple(shape)),)


_nn_op("_adaptive_max_pool2d", _adaptive_max_fwd, _adaptive_max_bw, "AdaptiveMaxPool2DBackward0",
       params={"output_size": (1, 1)}, outputs=("output", "result1"), saves=("self", "result1"),
       doc="adaptive_max_pool2d(input, output_size) -> (output, indices): saves its input and "
           "the indices (PyTorch's ``result1``).")


# ---- conv1d: the conv2d kernels on a height-1 image ----------------------------------------------

def _geo2d(stride, padding, dilation):
    """A 1-D conv's stride, padding and dilation as the 2-D kernels' (1, s), (0, p), (1, d)
    (a padding string passes through)."""
    s = stride if isinstance(stride, int) else tuple(stride)[0]
    d = dilation if isinstance(dilation, int) else tuple(dilation)[0]
    p = padding if isinstance(padding, (int, str)) else tuple(padding)[0]
    return (1, s), (p if isinstance(p, str) else (0, p)), (1, d)


def _conv1d_fwd(xp, x, w, b, out=None, dt=None, stride=1, padding=0, dilation=1, groups=1):
    if x.ndim != 3 or w.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional input for 3-dimensional weight {list(w.shape)}, "
                           f"but got {x.ndim}-dimensional input of size {list(x.shape)} instead")
    s, p, d = _geo2d(stride, padding, dilation)
    return _conv_fwd(xp, x[:, :, None], w[:, :, None], b, dt=dt, stride=s, padding=p, dilation=d,
                     groups=groups)[:, :, 0]


def _conv1d_bw(c, g):
    s, p, d = _geo2d(c["stride"], c["padding"], c["dilation"])
    geo = {"stride": s, "padding": p, "dilation": d, "groups": c["groups"]}
    x, w = c["self"], c["weight"]
    g2 = g.unsqueeze(2)
    gx = gw = gb = None
    if c.needs_input_grad[0]:
        n, ch, length = x.shape
        gx = _conv_grad_input(g2, w.unsqueeze(2), input_shape=(n, ch, 1, length), **geo).squeeze(2)
    if c.needs_input_grad[1]:
        o, cg, k = w.shape
        gw = _conv_grad_weight(g2, x.unsqueeze(2), weight_shape=(o, cg, 1, k), **geo).squeeze(2)
    if c.needs_input_grad[2]:
        gb = g.sum((0, 2))
    return (gx, gw, gb)


def _same_float(spec, ins, params):
    from .nn_ops import _same_float as rule

    return rule(spec, ins, params)


_nn_op("_conv1d", _conv1d_fwd, _conv1d_bw, "ConvolutionBackward0",
       args=("self", "weight", "bias"), optional_args=("bias",),
       params={"stride": 1, "padding": 0, "dilation": 1, "groups": 1}, saves=("self", "weight"),
       dtype_rule=_same_float,
       doc="conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1): saves "
           "input and weight (the conv2d kernels on a height-1 image).")


# ---- pixel shuffle: one kernel each way, each the other's backward (ATen's copies) -----------

def _shuffle(xp, a, r, up):
    """(*, C*r*r, H, W) <-> (*, C, H*r, W*r) as a fresh C-contiguous array."""
    *lead, c, h, w = a.shape
    n = len(lead)
    if up:
        x = a.reshape(*lead, c // (r * r), r, r, h, w)
        x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
        return xp.ascontiguousarray(x).reshape(*lead, c // (r * r), h * r, w * r)
    x = a.reshape(*lead, c, h // r, r, w // r, r)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return xp.ascontiguousarray(x).reshape(*lead, c * r * r, h // r, w // r)


def _pixel_shuffle_fwd(xp, a, out=None, dt=None, upscale_factor=1):
    return _shuffle(xp, a, upscale_factor, True)


def _pixel_unshuffle_fwd(xp, a, out=None, dt=None, downscale_factor=1):
    return _shuffle(xp, a, downscale_factor, False)


_nn_op("_pixel_shuffle", _pixel_shuffle_fwd,
       lambda c, g: (dispatch.call(OPS["_pixel_unshuffle"], (g,),
                                   {"downscale_factor": c["upscale_factor"]}),),
       "PixelShuffleBackward0", params={"upscale_factor": 1}, dtype_rule="self",
       doc="pixel_shuffle(input, upscale_factor): a rearranging copy; saves nothing.")
_nn_op("_pixel_unshuffle", _pixel_unshuffle_fwd,
       lambda c, g: (dispatch.call(OPS["_pixel_shuffle"], (g,),
                                   {"upscale_factor": c["downscale_factor"]}),),
       "PixelUnshuffleBackward0", params={"downscale_factor": 1}, dtype_rule="self",
       doc="pixel_unshuffle(input, downscale_factor): a rearranging copy; saves nothing.")


# ---- pdist: the p-norm distance of every pair of rows i < j (PdistBackward0) -----------------

def _pdist_fwd(xp, a, out=None, dt=None, p=2.0):
    i, j = xp.triu_indices(a.shape[0], 1)
    d = xp.abs(a[i] - a[j])
    if p == 0:
        r = (d != 0).sum(1)
    elif p == 1:
        r = d.sum(1)
    elif p == 2:
        r = xp.sqrt((d * d).sum(1))
    elif p == float("inf"):
        r = d.max(1) if d.shape[1] else xp.zeros(d.shape[0])
    else:
        r = (d ** p).sum(1) ** (1.0 / p)
    return xp.asarray(r, dtype=dt.np)


def _pdist_bw(c, g):
    """ATen's _pdist_backward: each pair's gradient goes + to row i and - to row j; 0 where
    the distance is 0 (and for p = 0)."""
    from .. import creation

    x, res, p = c["self"], c["result"], c["p"]
    zeros = creation.zeros(x.shape, dtype=x._dtype, device=x.device)
    if p == 0 or not res.numel():
        return (zeros,)
    ii, jj = (creation.tensor(k, dtype=_dtypes.int64, device=x.device)
              for k in _np.triu_indices(x.shape[0], 1))
    diff = x.index_select(0, ii) - x.index_select(0, jj)
    r = res.unsqueeze(1)
    if p == 1:
        w = diff.sign()
    elif p == float("inf"):
        w = diff.sign() * (diff.abs() == r)
    elif p < 2:
        w = (diff.sign() * diff.abs().pow(p - 1) / r.pow(p - 1)).where(r != 0, 0.0)
    else:
        w = (diff * diff.abs().pow(p - 2) / r.pow(p - 1)).where(r != 0, 0.0)
    gd = w * g.unsqueeze(1)
    return (zeros.index_add(0, ii, gd).index_add(0, jj, -gd),)


_nn_op("_pdist", _pdist_fwd, _pdist_bw, "PdistBackward0", params={"p": 2.0},
       saves=("self", "result"),
       doc="pdist(input, p=2): distances of the pairs of rows; saves input and result.")

from . import nn_extra_pad, nn_extra_pointwise  # noqa: E402,F401  (padding; losses, activations)
