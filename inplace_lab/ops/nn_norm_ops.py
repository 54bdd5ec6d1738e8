"""Layer norm and group norm kernels: ``_layer_norm`` (NativeLayerNormBackward0) and
``_group_norm`` (NativeGroupNormBackward0), with PyTorch's argument checks.

Both normalise over a block of elements (the trailing ``normalized_shape`` dims; each
group of channels of one sample) with the biased variance, then apply a per-element
(layer norm) or per-channel (group norm) affine map. Like batch norm they save their
*input* (and weight): overwriting the input in place after the forward breaks the
backward, which recomputes the mean and 1/std from it.
"""
from __future__ import annotations

from .table import OpSpec, register


def _normalise(xp, x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / xp.sqrt(var + eps)


def _norm_grad(g_hat, xhat, invstd, axes):
    """d/dx of xhat = (x - mean) * invstd, given dL/dxhat, over the normalised axes."""
    return invstd * (g_hat - g_hat.mean(axes, keepdim=True)
                     - xhat * (g_hat * xhat).mean(axes, keepdim=True))


def _stats(x, axes, eps):
    mean = x.mean(axes, keepdim=True)
    invstd = (x.var(axes, unbiased=False, keepdim=True) + eps).rsqrt()
    return (x - mean) * invstd, invstd


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
    y = _normalise(xp, x, _ln_axes(x.ndim, normalized_shape), eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y.astype(dt.np, copy=False)


def _ln_bw(c, g):
    x, ns = c["self"], c["normalized_shape"]
    axes = _ln_axes(x.ndim, ns)
    lead = tuple(range(x.ndim - len(ns)))
    w = c["weight"] if "weight" in c.saved else None
    xhat, invstd = _stats(x, axes, c["eps"])
    gx = _norm_grad(g if w is None else g * w, xhat, invstd, axes) if c.needs_input_grad[0] \
        else None
    gw = ((g * xhat).sum(lead) if lead else g * xhat) if c.needs_input_grad[1] else None
    gb = (g.sum(lead) if lead else g) if c.needs_input_grad[2] else None
    return (gx, gw, gb)


register(OpSpec(name="_layer_norm", forward=_ln_fwd, backward=_ln_bw,
                args=("self", "weight", "bias"), optional_args=("weight", "bias"),
                params={"normalized_shape": (), "eps": 1e-5}, saves=("self", "weight"),
                dtype_rule=_ln_rule, method=False, function=False, out=False,
                node_name="NativeLayerNormBackward0",
                doc="layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5): "
                    "saves its input and weight."))


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
    y = _normalise(xp, x.reshape(n, num_groups, -1), (2,), eps).reshape(x.shape)
    shp = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(shp)
    if b is not None:
        y = y + b.reshape(shp)
    return y.astype(dt.np, copy=False)


def _gn_bw(c, g):
    x, groups = c["self"], c["num_groups"]
    n, ch = x.shape[0], x.shape[1]
    shp = (1, ch) + (1,) * (x.ndim - 2)
    others = (0,) + tuple(range(2, x.ndim))
    w = c["weight"] if "weight" in c.saved else None
    xhat, invstd = _stats(x.reshape(n, groups, -1), (2,), c["eps"])
    xhat_full = xhat.reshape(x.shape)
    gx = None
    if c.needs_input_grad[0]:
        g_hat = (g if w is None else g * w.reshape(shp)).reshape(n, groups, -1)
        gx = _norm_grad(g_hat, xhat, invstd, (2,)).reshape(x.shape)
    gw = (g * xhat_full).sum(others) if c.needs_input_grad[1] else None
    gb = g.sum(others) if c.needs_input_grad[2] else None
    return (gx, gw, gb)


register(OpSpec(name="_group_norm", forward=_gn_fwd, backward=_gn_bw,
                args=("self", "weight", "bias"), optional_args=("weight", "bias"),
                params={"num_groups": 1, "eps": 1e-5}, saves=("self", "weight"),
                dtype_rule=_gn_rule, method=False, function=False, out=False,
                node_name="NativeGroupNormBackward0",
                doc="group_norm(input, num_groups, weight=None, bias=None, eps=1e-5): "
                    "saves its input and weight."))
