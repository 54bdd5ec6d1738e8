"""Pointwise losses and activations with their own PyTorch kernels (and node names).

``_binary_cross_entropy`` (BinaryCrossEntropyBackward0), ``_smooth_l1_loss``
(SmoothL1LossBackward0), ``_huber_loss`` (HuberLossBackward0), ``_soft_margin_loss``
(SoftMarginLossBackward0), ``_log_sigmoid`` (LogSigmoidBackward0), ``_glu``
(GluBackward0) and ``_prelu`` (PreluKernelBackward0). The forward formulas follow
ATen's CPU kernels (BCE clamps its logs at -100; its gradient divides by
``max((1 - x) x, 1e-12)``), so values match PyTorch's to the rounding; each backward is
written with table ops, so it is differentiable again. All of them save their inputs.
"""
from __future__ import annotations

from .. import backend
from .elementwise import not_implemented_for
from .nn_ops import _expand_grad, _reduce
from .table import OpSpec, register

_EPSILON = 1e-12


def _op(name, fwd, bw, node_name, doc, args=("self",), **kw):
    kw.setdefault("saves", args)
    kw.setdefault("dtype_rule", "self")
    return register(OpSpec(name=name, forward=fwd, backward=bw, args=args, method=False,
                           function=False, out=False, node_name=node_name, doc=doc, **kw))


def _same_dtype(spec, ins, params):
    """The target (and weight) must have the input's dtype: ATen's loss kernels do not promote."""
    dt = ins[0]._dtype
    for t in ins[1:]:
        if t is not None and hasattr(t, "_dtype") and t._dtype is not dt:
            raise RuntimeError(f"Found dtype {t._dtype.torch_name} but expected {dt.torch_name}")
    return dt


# ---- binary cross entropy ------------------------------------------------------------------

def _bce_fwd(xp, x, y, w, out=None, dt=None, reduction="mean"):
    if not bool(((x >= 0) & (x <= 1)).all()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    with backend.np.errstate(divide="ignore"):
        loss = (y - 1) * xp.maximum(xp.log(1 - x), -100) - y * xp.maximum(xp.log(x), -100)
    if w is not None:
        loss = loss * w
    return xp.asarray(_reduce(xp, loss, reduction), dtype=dt.np)


def _bce_bw(c, g):
    x, y = c["self"], c["target"]
    w = c["weight"] if "weight" in c.saved else None
    ge = _expand_grad(c, g, x.shape)
    if w is not None:
        ge = ge * w
    gx = gy = None
    if c.needs_input_grad[0]:
        gx = ge * (x - y) / ((1 - x) * x).clamp_min(_EPSILON)
    if c.needs_input_grad[1]:
        gy = -x.logit() * ge
    return (gx, gy, None)


_op("_binary_cross_entropy", _bce_fwd, _bce_bw, "BinaryCrossEntropyBackward0",
    "binary_cross_entropy(input, target, weight=None, reduction='mean'): saves all three.",
    args=("self", "target", "weight"), optional_args=("weight",), params={"reduction": "mean"},
    dtype_rule=_same_dtype)


# ---- smooth L1 / Huber / soft margin --------------------------------------------------------

def _smooth_l1_fwd(xp, x, y, out=None, dt=None, reduction="mean", beta=1.0):
    d = x - y
    ad = xp.abs(d)
    loss = xp.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)
    return xp.asarray(_reduce(xp, loss, reduction), dtype=dt.np)


def _huber_fwd(xp, x, y, out=None, dt=None, reduction="mean", delta=1.0):
    d = x - y
    ad = xp.abs(d)
    loss = xp.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta))
    return xp.asarray(_reduce(xp, loss, reduction), dtype=dt.np)


def _clipped_bw(scale_name, divide):
    """d(loss)/dx: the difference, clipped to [-1, 1] after ``/ beta`` (smooth L1) or to
    [-delta, delta] (Huber); the target's gradient is its negative."""

    def bw(c, g):
        v = c[scale_name]
        d = c["self"] - c["target"]
        gd = ((d / v).clamp(-1, 1) if divide else d.clamp(-v, v)) * _expand_grad(c, g, d.shape)
        return (gd if c.needs_input_grad[0] else None, -gd if c.needs_input_grad[1] else None)

    return bw


_op("_smooth_l1_loss", _smooth_l1_fwd, _clipped_bw("beta", True), "SmoothL1LossBackward0",
    "smooth_l1_loss(input, target, reduction='mean', beta=1.0): saves both inputs.",
    args=("self", "target"), params={"reduction": "mean", "beta": 1.0}, dtype_rule="promote")
_op("_huber_loss", _huber_fwd, _clipped_bw("delta", False), "HuberLossBackward0",
    "huber_loss(input, target, reduction='mean', delta=1.0): saves both inputs.",
    args=("self", "target"), params={"reduction": "mean", "delta": 1.0}, dtype_rule="promote")


def _paddle_huber_fwd(xp, x, y, out=None, dt=None, reduction="none", delta=1.0):
    """Paddle's huber_loss kernel: (loss, residual = label - input), unreduced; its grad node
    keeps the residual alone, so writing to the input or label after the forward changes
    neither the gradient nor raises (PADDLE_HUBER)."""
    r = xp.asarray(y - x, dtype=dt.np)
    ar = xp.abs(r)
    loss = xp.where(ar <= delta, 0.5 * r * r, delta * (ar - 0.5 * delta))
    return xp.asarray(loss, dtype=dt.np), r


def _paddle_huber_bw(c, g):
    """HuberLossGradKernel: the residual clipped to [-delta, delta]; -it for the input."""
    d = c["residual"].clamp(-c["delta"], c["delta"]) * g
    return (-d if c.needs_input_grad[0] else None, d if c.needs_input_grad[1] else None)


PADDLE_HUBER = _op("_paddle_huber_loss", _paddle_huber_fwd, _paddle_huber_bw,
                   "HuberLossBackward0", "Paddle's huber_loss: keeps the residual.",
                   args=("self", "target"), params={"reduction": "none", "delta": 1.0},
                   saves=("residual",), saved_results=("residual",), dtype_rule="promote")


def _soft_margin_fwd(xp, x, y, out=None, dt=None, reduction="mean"):
    loss = xp.log(xp.exp(-x * y) + 1)  # ATen: neg(x).mul_(y).exp_().add_(1).log_()
    return xp.asarray(_reduce(xp, loss, reduction), dtype=dt.np)


def _soft_margin_bw(c, g):
    x, y = c["self"], c["target"]
    z = (-y * x).exp()
    return (-y * z / (z + 1) * _expand_grad(c, g, x.shape), None)


_op("_soft_margin_loss", _soft_margin_fwd, _soft_margin_bw, "SoftMarginLossBackward0",
    "soft_margin_loss(input, target, reduction='mean'): log(1 + exp(-y x)); saves both.",
    args=("self", "target"), params={"reduction": "mean"}, dtype_rule="promote",
    nondiff=("target",))


# ---- activations ----------------------------------------------------------------------------

def _log_sigmoid_fwd(xp, x, out=None, dt=None):
    """ATen's log_sigmoid_forward: (min(x, 0) - log1p(z), z) with z = exp(-|x|), the buffer
    its backward reads (an input-sized tensor the graph keeps); CUDA's buffer is empty."""
    z = xp.exp(-xp.abs(x))
    y = (xp.minimum(x, 0) - xp.log1p(z)).astype(dt.np, copy=False)
    if xp is not backend.np:
        return y, xp.empty((0,), dtype=dt.np)
    return y, z.astype(dt.np, copy=False)


def _log_sigmoid_bw(c, g):
    x, z = c["self"], c["buffer"]
    if not z.numel():  # (CUDA: from the input alone)
        return ((-x).sigmoid() * g,)
    neg = x < 0  # ATen: (max_deriv - sign * z / (1 + z)) * grad
    return ((neg.to(x.dtype) - neg.to(x.dtype).mul(2).sub(1) * (z / (z + 1))) * g,)


_op("_log_sigmoid", _log_sigmoid_fwd, _log_sigmoid_bw, "LogSigmoidBackward0",
    "logsigmoid(input) = min(x, 0) - log1p(exp(-|x|)): saves its input and exp(-|x|).",
    saves=("self", "buffer"), saved_results=("buffer",),
    dtype_rule=not_implemented_for("log_sigmoid_cpu", ("bool", "int")))


def _glu_halves(xp, x, dim):
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % x.ndim if -x.ndim <= dim < x.ndim else None
    if d is None:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-x.ndim}, "
                         f"{x.ndim - 1}], but got {dim})")
    n = x.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    return xp.split(x, 2, axis=d)


def _glu_fwd(xp, x, out=None, dt=None, dim=-1):
    a, b = _glu_halves(xp, x, dim)
    return (a / (1 + xp.exp(-b))).astype(dt.np, copy=False)


def _glu_bw(c, g):
    import inplace_lab as il

    a, b = c["self"].chunk(2, c["dim"])
    s = b.sigmoid()
    return (il.cat([g * s, g * a * s * (1 - s)], c["dim"]),)


_op("_glu", _glu_fwd, _glu_bw, "GluBackward0",
    "glu(input, dim=-1): first half times the sigmoid of the second; saves its input.",
    params={"dim": -1}, dtype_rule=not_implemented_for("glu_cpu", ("bool", "int")))


def _prelu_shape(ndim, w):
    """The weight as a broadcastable (1, C, 1, ...) array (channels are dim 1)."""
    if w.size == 1 or ndim < 2:
        return w.reshape(())
    return w.reshape((1, w.size) + (1,) * (ndim - 2))


def _prelu_fwd(xp, x, w, out=None, dt=None):
    return xp.where(x > 0, x, _prelu_shape(x.ndim, w) * x).astype(dt.np, copy=False)


def _prelu_bw(c, g):
    x, w = c["self"], c["weight"]
    wb = w.reshape(()) if w.numel() == 1 or x.ndim < 2 else \
        w.reshape((1, w.numel()) + (1,) * (x.ndim - 2))
    pos = x > 0
    gx = g * pos + g * pos.logical_not() * wb if c.needs_input_grad[0] else None
    gw = None
    if c.needs_input_grad[1]:
        contrib = g * x * pos.logical_not()
        if w.numel() == 1 or x.ndim < 2:
            gw = contrib.sum().reshape(w.shape)
        else:
            gw = contrib.sum(tuple(i for i in range(x.ndim) if i != 1)).reshape(w.shape)
    return (gx, gw)


def _prelu_rule(spec, ins, params):
    from .nn_ops import _same_float

    return _same_float(spec, ins, params)


_op("_prelu", _prelu_fwd, _prelu_bw, "PreluKernelBackward0",
    "prelu(input, weight): x if x > 0 else weight * x (weight per channel, dim 1); saves both.",
    args=("self", "weight"), dtype_rule=_prelu_rule)
