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

from .table import OpSpec, register


def _normalise(xp, x, axes, eps):
    """(normalised x, mean, 1/std), the statistics with the reduced axes kept."""
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1 / xp.sqrt(x.var(axis=axes, keepdims=True) + eps)
    return (x - mean) * rstd, mean, rstd


def _norm_grad(g_hat, xhat, invstd, axes):
    """d/dx of xhat = (x - mean) * invstd, given dL/dxhat, over the normalised axes."""
    return invstd * (g_hat - g_hat.mean(axes, keepdim=True)
                     - xhat * (g_hat * xhat).mean(axes, keepdim=True))


# ---- layer norm ------------------------------------------------------------------------------

def _ln_rule(spec, ins, params):
    x, w, b = ins
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


def _ln_bw(c, g):
    x, ns = c["input"], c["normalized_shape"]
    mean, rstd = c["result1"], c["result2"]
    axes = _ln_axes(x.ndim, ns)
    lead = tuple(range(x.ndim - len(ns)))
    w = c["weight"] if "weight" in c.saved else None
    xhat = (x - mean) * rstd
    gx = _norm_grad(g if w is None else g * w, xhat, rstd, axes) if c.needs_input_grad[0] \
        else None
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
