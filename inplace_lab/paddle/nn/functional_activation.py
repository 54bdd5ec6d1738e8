"""``paddle.nn.functional`` activations the op table does not already export under Paddle's
name: log_sigmoid/logsigmoid, softsign, swish, glu, swiglu, prelu, rrelu, maxout,
gumbel_softmax. Kernels are the core's where it has them; the rest are short compositions
whose gradients follow from the ops they use.
"""
from __future__ import annotations

__all__ = ["log_sigmoid", "logsigmoid", "softsign", "swish", "glu", "swiglu", "prelu", "rrelu",
           "maxout", "gumbel_softmax", "gelu", "silu"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _core():
    from inplace_lab.nn import functional as core

    return core


def _pd():
    from inplace_lab import paddle as pd

    return pd


def _dt(x):
    return str(x.dtype).split(".")[-1]


def _float_kernel(name, x, supported="float64, float32"):
    if _dt(x) not in _FLOATS:
        raise RuntimeError(f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {_dt(x)}) "
                           f"of kernel `{name}` is not registered. Selected wrong DataType "
                           f"`{_dt(x)}`. Paddle support following DataTypes: {supported}.")


def gelu(x, approximate=False, name=None):
    """``approximate``: a bool (True is the tanh form) or Paddle's 'tanh' / 'none'."""
    if isinstance(approximate, str):
        if approximate not in ("tanh", "none"):
            raise ValueError("(InvalidArgument) the value of approximate in gelu should be "
                             f"'tanh' or 'none', but received {approximate}")
        approximate = approximate == "tanh"
    elif not isinstance(approximate, bool):
        raise TypeError("(InvalidType) gelu(): argument (position 2) must be bool, but got "
                        f"{type(approximate).__name__}")
    return _core().gelu(x, approximate="tanh" if approximate else "none")


def silu(x, inplace=False, name=None):
    """``x * sigmoid(x)``; ``inplace=True`` writes x (one version bump, Paddle's leaf check)."""
    return _core().silu(x, inplace=bool(inplace))


def log_sigmoid(x, name=None):
    """``log(1 / (1 + exp(-x)))``, computed stably by the core's kernel."""
    _float_kernel("logsigmoid", x, "float64, complex128, float32, complex64")
    return _core().logsigmoid(x)


logsigmoid = log_sigmoid


def softsign(x, name=None):
    """``x / (1 + |x|)``."""
    return _core().softsign(x)


def swish(x, name=None):
    """``x * sigmoid(x)`` (Paddle's swish has beta fixed at 1: SiLU)."""
    return _core().silu(x)


def glu(x, axis=-1, name=None):
    """Split ``x`` in two halves along ``axis``: ``a * sigmoid(b)``."""
    rank = x.ndim
    if not -rank <= axis < rank:
        raise ValueError(f"Expected value range of `axis` is [{-rank}, {rank}), but received "
                         f"axis: {axis}")
    if x.shape[axis] % 2:
        raise ValueError("(InvalidArgument) The input's size along the split dimension must be "
                         "evenly divisible by Attr(num_or_sections). But received "
                         f"Attr(num_or_sections) = 2, input(X)'s shape = {list(x.shape)}, "
                         f"Attr(dim) = {axis % rank}.")
    a, b = _pd().chunk(x, 2, axis=axis)
    return a * _core().sigmoid(b)


def swiglu(x, y=None, name=None):
    """``silu(x) * y``; with ``y=None`` the last dim of ``x`` is split in halves."""
    if y is None:
        if x.shape[-1] % 2:
            raise ValueError("(InvalidArgument) The last dim of Input(X) should be exactly "
                             "divided by 2.")
        x, y = _pd().chunk(x, 2, axis=-1)
    return _core().silu(x) * y


def prelu(x, weight, data_format="NCHW", name=None):
    """``max(0, x) + weight * min(0, x)``: one slope for all, or one per channel."""
    assert weight.ndim in (0, 1), "The dim count of weight shape should be 0 or 1 in prelu()."
    if weight.ndim == 1 and weight.shape[0] > 1:
        formats = ["NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"]
        if data_format not in formats:
            raise ValueError("data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', "
                             f"'NHWC', 'NDHWC' but receive {data_format}")
        assert x.ndim > 1, ("The dim count of x should be equal or larger than 2 in prelu() "
                            "when weight shape is not [1].")
        channel = x.ndim - 1 if data_format[1] != "C" else 1
        assert weight.shape[0] == x.shape[channel], (
            "The weight size should be equal to x input channel in prelu() when weight shape "
            "is not [1].")
        shape = [1] * x.ndim
        shape[channel] = -1
        slope = weight.reshape(shape)
    else:
        slope = weight.reshape([1] * x.ndim) if x.ndim else weight.reshape([])
    zero = _pd().zeros([], dtype=x.dtype)
    return _pd().maximum(x, zero) + slope * _pd().minimum(x, zero)


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element while
    training, and is ``(lower + upper) / 2`` otherwise."""
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError("The lower and upper values must be float type. Received: lower "
                        f"{lower}, upper {upper}.")
    if lower < 0 or lower > 1:
        raise ValueError("The lower value must be no less than zero or greater than one. "
                         f"Received: {lower}.")
    if upper < lower:
        raise ValueError("The upper value must be greater than lower value. Received: lower "
                         f"{lower}, upper {upper}.")
    if upper > 1:
        raise ValueError(f"The upper value must be no greater than one. Received: {upper}.")
    pd = _pd()
    if training:
        slope = pd.uniform(x.shape, dtype=_dt(x), min=lower, max=upper)
    else:
        slope = pd.full([], (lower + upper) / 2, dtype=_dt(x))
    return pd.where(x >= 0, x, x * slope)


def maxout(x, groups, axis=1, name=None):
    """Max over each run of ``groups`` consecutive channels of a 4-D input:
    ``out[:, i] = max_k x[:, i * groups + k]``."""
    if x.ndim != 4:
        raise ValueError(f"(InvalidArgument) x's dims should be 4, but received x's dims is: "
                         f"{x.ndim}.")
    if axis not in (1, -1, 3):
        raise ValueError(f"(InvalidArgument) axis only supported 1, -1 or 3, but received axis "
                         f"is: {axis}.")
    axis = 3 if axis == -1 else axis
    c = x.shape[axis]
    if c % groups:
        raise ValueError("(InvalidArgument) The number of input channels for Op(maxout) should "
                         f"be divisible by Attr(groups). But received: the input's channels is "
                         f"[{c}], the shape of input is {list(x.shape)}, the Attr(groups) is "
                         f"[{groups}], the Attr(axis) is [{axis}]. The error may come from wrong "
                         "Attr(groups) or Attr(axis) setting.")
    shape = list(x.shape)
    shape[axis:axis + 1] = [c // groups, groups]
    return x.reshape(shape).max(axis=axis + 1)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """``softmax((x + g) / temperature)`` with Gumbel noise ``g = -log(-log(U))``; ``hard``
    returns the one-hot of the argmax whose gradient is the soft sample's (straight-through).
    Only the structure can be compared with Paddle: the noise is random."""
    if temperature <= 0:
        raise ValueError("(InvalidArgument) The temperature must be greater than 0. But "
                         f"received temperature = {float(temperature):f}")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError("(InvalidArgument) Attr(axis) value should be in range [-R, R-1], R is "
                         "the rank of Input(X).")
    pd = _pd()
    u = pd.uniform(x.shape, dtype=_dt(x), min=1e-10, max=1.0)
    soft = _core().softmax((x - (-u.log()).log()) / temperature, axis % x.ndim)
    if not hard:
        return soft
    index = soft.argmax(axis=axis, keepdim=True)
    one = pd.zeros_like(soft).put_along_axis(index, 1.0, axis)
    return one - soft.detach() + soft
