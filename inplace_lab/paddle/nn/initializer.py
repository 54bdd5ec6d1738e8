"""``paddle.nn.initializer``: objects that fill a parameter when called on it.

Unlike ``torch.nn.init.*_`` (one in-place op, version + 1), Paddle's initializers write
the data out of band: ``Constant(2.0)(w)`` returns None and ``w.inplace_version`` stays
where it was. So each one draws its values into a scratch tensor with the core samplers of
``inplace_lab.nn.init`` and copies them in with ``set_value``.

Fans follow Paddle, not PyTorch: a 2-D weight is ``[in, out]`` (fan_in = shape[0]); a
conv kernel ``[out, in, *k]`` has fan_in = shape[1] * prod(k).

>>> import inplace_lab.paddle as paddle
>>> w = paddle.nn.Linear(2, 3).weight
>>> paddle.nn.initializer.Constant(2.0)(w), w.inplace_version, w.tolist()[0]
(None, 0, [2.0, 2.0, 2.0])
"""
from __future__ import annotations

import math

import numpy as np

from inplace_lab import rng as _rng
from inplace_lab.nn import init as _init

_GEN = _rng.paddle_generator  # Paddle's draws (paddle.seed)

__all__ = ["Initializer", "Constant", "Normal", "TruncatedNormal", "Uniform", "XavierNormal",
           "XavierUniform", "KaimingNormal", "KaimingUniform", "Assign", "Orthogonal",
           "calculate_gain", "set_global_initializer", "ConstantInitializer",
           "NormalInitializer", "TruncatedNormalInitializer", "UniformInitializer",
           "XavierInitializer", "MSRAInitializer", "NumpyArrayInitializer"]

_global_weight = None
_global_bias = None


def set_global_initializer(weight_init, bias_init=None):
    """The initializers every later ``create_parameter`` uses, over the layers' defaults
    (but not over a ``ParamAttr(initializer=...)``); ``(None, None)`` undoes it."""
    global _global_weight, _global_bias
    _global_weight, _global_bias = weight_init, bias_init


def calculate_gain(nonlinearity, param=None):
    """Paddle's table: ``leaky_relu``'s slope defaults to 0.01; an unknown name is a
    ValueError."""
    param = 0.01 if param is None else float(param)
    gains = {"sigmoid": 1, "linear": 1, "conv1d": 1, "conv2d": 1, "conv3d": 1,
             "conv1d_transpose": 1, "conv_transpose1d": 1, "conv2d_transpose": 1,
             "conv_transpose2d": 1, "conv3d_transpose": 1, "conv_transpose3d": 1,
             "tanh": 5.0 / 3, "relu": math.sqrt(2.0),
             "leaky_relu": math.sqrt(2.0 / (1 + param ** 2)), "selu": 3.0 / 4}
    if nonlinearity not in gains:
        raise ValueError(f"nonlinearity function {nonlinearity} is not supported now.")
    return gains[nonlinearity]


def _fans(shape):
    """``Initializer._compute_fans``: (fan_in, fan_out) with Paddle's weight layouts."""
    shape = list(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """Base class: ``init(param)`` fills ``param`` out of band and returns None."""

    def __call__(self, param, block=None):
        return self.forward(param, block)

    def forward(self, param, block=None):
        from .. import creation

        scratch = creation.zeros(list(param.shape), param.dtype)
        self._sample(scratch)
        param.set_value(scratch)
        return None

    def _sample(self, t):
        raise NotImplementedError()

    def _compute_fans(self, var):
        return _fans(var.shape)


class ConstantInitializer(Initializer):
    def __init__(self, value=0.0, force_cpu=False):
        self._value = value

    def _sample(self, t):
        _init.constant_(t, self._value)


class Constant(ConstantInitializer):
    """Every element ``value`` (0.0 by default)."""

    def __init__(self, value=0.0):
        super().__init__(value)


class NormalInitializer(Initializer):
    def __init__(self, loc=0.0, scale=1.0, seed=0):
        self._mean, self._std_dev = loc, scale

    def _sample(self, t):
        _init.normal_(t, self._mean, self._std_dev, generator=_GEN)


class Normal(NormalInitializer):
    """Samples of N(mean, std**2)."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        assert mean is not None, "mean should not be None"
        assert std is not None, "std should not be None"
        super().__init__(mean, std)


class TruncatedNormalInitializer(Initializer):
    def __init__(self, loc=0.0, scale=1.0, seed=0, a=-2.0, b=2.0):
        self._mean, self._std_dev, self._a, self._b = loc, scale, a, b

    def _sample(self, t):
        """Paddle's truncated_gaussian_random kernel (rng.PaddleGenerator.truncated_normal)."""
        if t.device.type != "cpu":
            return _init.trunc_normal_(t, self._mean, self._std_dev, self._a, self._b)
        import inplace_lab as _il

        draws = _GEN.truncated_normal(
            t.numel(), t.numpy().dtype, self._mean, self._std_dev, self._a, self._b)
        with _il.no_grad():
            t.copy_(_il.tensor(draws.reshape(tuple(t.shape))))


class TruncatedNormal(TruncatedNormalInitializer):
    """N(mean, std**2) cut to the absolute bounds [a, b]."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        super().__init__(mean, std, 0, a, b)


class UniformInitializer(Initializer):
    def __init__(self, low=-1.0, high=1.0, seed=0, diag_num=0, diag_step=0, diag_val=1.0):
        self._low, self._high = low, high

    def _sample(self, t):
        _init.uniform_(t, self._low, self._high, generator=_GEN)


class Uniform(UniformInitializer):
    """Samples of U(low, high); ``high < low`` is an AssertionError, as Paddle."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        assert low is not None, "low should not be None"
        assert high is not None, "high should not be None"
        assert high >= low, "high should greater or equal than low"
        super().__init__(low, high)


class XavierInitializer(Initializer):
    """Glorot: limit = gain * sqrt(6 / (fan_in + fan_out)) (uniform) or
    std = gain * sqrt(2 / (fan_in + fan_out)) (normal); 0 when a fan is 0."""

    def __init__(self, uniform=True, fan_in=None, fan_out=None, seed=0, gain=1.0):
        self._uniform, self._fan_in, self._fan_out, self._gain = uniform, fan_in, fan_out, gain

    def _sample(self, t):
        f_in, f_out = _fans(t.shape)
        fan_in = f_in if self._fan_in is None else self._fan_in
        fan_out = f_out if self._fan_out is None else self._fan_out
        if 0 in (fan_in, fan_out):
            return _init.constant_(t, 0.0)
        if self._uniform:
            limit = self._gain * math.sqrt(6.0 / float(fan_in + fan_out))
            _init.uniform_(t, -limit, limit, generator=_GEN)
        else:
            std = self._gain * math.sqrt(2.0 / float(fan_in + fan_out))
            _init.normal_(t, 0.0, std, generator=_GEN)


class XavierNormal(XavierInitializer):
    """Glorot normal: std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        super().__init__(False, fan_in, fan_out, 0, gain)


class XavierUniform(XavierInitializer):
    """Glorot uniform: U(-l, l), l = gain * sqrt(6 / (fan_in + fan_out)); the default
    for weights made by ``create_parameter``."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        super().__init__(True, fan_in, fan_out, 0, gain)


class MSRAInitializer(Initializer):
    """He/Kaiming: limit = gain * sqrt(3 / fan) (uniform) or std = gain / sqrt(fan)
    (normal), gain from ``calculate_gain(nonlinearity, negative_slope)``."""

    def __init__(self, uniform=True, fan_in=None, seed=0, negative_slope=0,
                 nonlinearity="relu", mode="fan_in"):
        self._uniform, self._fan_in, self._negative_slope = uniform, fan_in, negative_slope
        self._nonlinearity, self._mode = nonlinearity, mode

    def _sample(self, t):
        f_in, f_out = _fans(t.shape)
        fan = (f_in if self._fan_in is None else self._fan_in) if self._mode == "fan_in" \
            else f_out
        gain = calculate_gain(self._nonlinearity, self._negative_slope)
        if self._uniform:
            limit = gain * math.sqrt(3.0 / float(fan))
            _init.uniform_(t, -limit, limit, generator=_GEN)
        else:
            _init.normal_(t, 0.0, gain / math.sqrt(float(fan)), generator=_GEN)


class KaimingNormal(MSRAInitializer):
    """He normal: std = gain / sqrt(fan_in), gain sqrt(2) for relu."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        super().__init__(False, fan_in, 0, negative_slope, nonlinearity, mode)


class KaimingUniform(MSRAInitializer):
    """He uniform: U(-l, l), l = gain * sqrt(3 / fan_in)."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        super().__init__(True, fan_in, 0, negative_slope, nonlinearity, mode)


class NumpyArrayInitializer(Initializer):
    def __init__(self, value):
        self._value = value

    def forward(self, param, block=None):
        value = self._value
        value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        param.set_value(value.reshape(list(param.shape)) if value.size == param.size
                        else value)
        return None


class Assign(NumpyArrayInitializer):
    """Copies a numpy array, list or tensor of the parameter's size into it."""

    def __init__(self, value, name=None):
        super().__init__(value)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix over ``[shape[0], prod(shape[1:])]``, times ``gain``."""

    def __init__(self, gain=1.0, name=None):
        self._gain = gain

    def _sample(self, t):
        _init.orthogonal_(t, self._gain)


class Dirac(Initializer):
    """The Dirac delta of a 3/4/5-D conv weight (identity through the conv), per group:
    ``w[g * out_per_group + i, i, centre...] = 1`` for ``i < min(out_per_group, in)``."""

    def __init__(self, groups=1, name=None):
        assert groups > 0 and isinstance(groups, int), " 'groups' must be a positive integer. "
        self._groups = groups

    def forward(self, param, block=None):
        if param._dtype.name not in ("float16", "bfloat16", "float32", "float64"):
            raise TypeError("The data type of 'Out' in Dirac must be ['float16', 'bfloat16', "
                            f"'float32', 'float64'], but received {param._dtype.name}. ")
        shape = list(param.shape)
        assert len(shape) in [3, 4, 5], \
            "Only Tensor with 3/4/5 dimensions can be initialized by Dirac"
        assert (shape[0] % self._groups) == 0, "Tensor 0-dimension must be divisible by groups"
        w = np.zeros(shape, dtype=np.float32)
        per = shape[0] // self._groups
        centre = tuple(s // 2 for s in shape[2:])
        for g in range(self._groups):
            for i in range(min(per, shape[1])):
                w[(g * per + i, i) + centre] = 1
        param.set_value(w.astype(param.numpy().dtype))
        return None

    __call__ = forward


class Bilinear(Initializer):
    """The bilinear-upsampling kernel of a [C_out, C_in, K, K] conv-transpose weight, as
    Paddle computes it (``y = (i / K) % K`` is a float division there, kept)."""

    def __init__(self):
        pass

    def forward(self, param, block=None):
        shape = list(param.shape)
        if len(shape) != 4:
            raise ValueError("the length of shape must be 4.")
        if shape[2] != shape[3]:
            raise ValueError("shape[2] must be equal to shape[3].")
        n = int(np.prod(shape))
        size = shape[3]
        f = np.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        i = np.arange(n)
        x = i % size
        y = (i / size) % size
        w = ((1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))).astype(np.float32)
        param.set_value(w.reshape(shape).astype(param.numpy().dtype))
        return None


__all__ += ["Dirac", "Bilinear"]


def _submodules():
    """``paddle.nn.initializer.constant``, ``.normal`` ...: Paddle's submodules, each holding
    its classes (``from paddle.nn.initializer.constant import Constant``)."""
    import sys
    import types

    g = globals()
    table = {"assign": ("Assign", "NumpyArrayInitializer"), "bilinear": ("Bilinear",),
             "constant": ("Constant", "ConstantInitializer"), "dirac": ("Dirac",),
             "initializer": ("Initializer", "calculate_gain"),
             "kaiming": ("KaimingNormal", "KaimingUniform", "MSRAInitializer"),
             "normal": ("Normal", "NormalInitializer", "TruncatedNormal",
                        "TruncatedNormalInitializer"),
             "orthogonal": ("Orthogonal",), "uniform": ("Uniform", "UniformInitializer"),
             "xavier": ("XavierNormal", "XavierUniform", "XavierInitializer"), "lazy_init": ()}
    for mod, names in table.items():
        m = types.ModuleType(f"{__name__}.{mod}")
        for n in names:
            setattr(m, n, g[n])
        m.Initializer = Initializer
        sys.modules[m.__name__] = m
        g[mod] = m


_submodules()
