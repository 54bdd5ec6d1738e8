"""``paddle.nn`` activation layers. Each keeps Paddle 3.3.1's constructor, attribute names
(``_alpha``, ``_name`` ...) and ``extra_repr`` text, and calls its ``paddle.nn.functional``
function at forward time (looked up then, as Paddle's ``F.<name>``), so a layer and its
function can never disagree.

>>> import inplace_lab.paddle as paddle
>>> paddle.nn.LeakyReLU(0.2)
LeakyReLU(negative_slope=0.2)
"""
from __future__ import annotations

import functools

from . import functional
from .initializer import Constant
from .layers import Layer

__all__ = ["CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
           "LeakyReLU", "LogSigmoid", "LogSoftmax", "Maxout", "Mish", "PReLU", "RReLU", "ReLU",
           "ReLU6", "SELU", "Sigmoid", "Silu", "SiLU", "Softmax", "Softmax2D", "Softplus",
           "Softshrink", "Softsign", "Swish", "Tanh", "Tanhshrink", "ThresholdedReLU"]


def param_alias(name, alias):
    """Paddle's ``param_one_alias([name, alias])``: the PyTorch keyword ``alias`` is read as
    ``name`` (``GLU(dim=0)`` is ``GLU(axis=0)``) unless ``name`` is given too."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if name not in kwargs and alias in kwargs:
                kwargs[name] = kwargs.pop(alias)
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def _name_str(name, first=False):
    if not name:
        return ""
    return f"name={name}" if first else f", name={name}"


class _NameOnly(Layer):
    """An activation with no settings: ``Name()`` or ``Name(name=...)`` in the repr."""

    _fn = ""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return getattr(functional, self._fn)(x, name=self._name)

    def extra_repr(self) -> str:
        return _name_str(self._name, first=True)


class ReLU(_NameOnly):
    _fn = "relu"


class ReLU6(_NameOnly):
    _fn = "relu6"


class Tanh(_NameOnly):
    _fn = "tanh"


class Hardswish(_NameOnly):
    _fn = "hardswish"


class Softsign(_NameOnly):
    _fn = "softsign"


class Swish(_NameOnly):
    _fn = "swish"


class Mish(_NameOnly):
    _fn = "mish"


class Tanhshrink(_NameOnly):
    _fn = "tanhshrink"


class LogSigmoid(_NameOnly):
    _fn = "log_sigmoid"


class _PublicName(Layer):
    """Sigmoid and Hardsigmoid keep their name as the public attribute ``name``."""

    def __init__(self, name=None):
        super().__init__()
        self.name = name

    def extra_repr(self) -> str:
        return _name_str(self.name, first=True)


class Sigmoid(_PublicName):
    def forward(self, x):
        return functional.sigmoid(x, name=self.name)


class Hardsigmoid(_PublicName):
    def forward(self, x):
        return functional.hardsigmoid(x, name=self.name)


class _Alpha(Layer):
    _fn = ""

    def __init__(self, alpha=1.0, name=None):
        super().__init__()
        self._alpha = alpha
        self._name = name

    def forward(self, x):
        return getattr(functional, self._fn)(x, self._alpha, name=self._name)

    def extra_repr(self) -> str:
        return f"alpha={self._alpha}{_name_str(self._name)}"


class CELU(_Alpha):
    _fn = "celu"


class ELU(_Alpha):
    _fn = "elu"


class GELU(Layer):
    """``approximate`` is False (erf) or True / ``'tanh'`` (the tanh formula)."""

    def __init__(self, approximate=False, name=None):
        super().__init__()
        self._approximate = approximate
        self._name = name

    def forward(self, x):
        return functional.gelu(x, self._approximate, name=self._name)

    def extra_repr(self) -> str:
        return f"approximate={self._approximate}{_name_str(self._name)}"


class GLU(Layer):
    """``a * sigmoid(b)`` of the two halves of ``axis`` (PyTorch's keyword ``dim`` too)."""

    @param_alias("axis", "dim")
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis
        self._name = name

    @param_alias("x", "input")
    def forward(self, x):
        return functional.glu(x, self._axis, name=self._name)

    def extra_repr(self) -> str:
        return f"axis={self._axis}{_name_str(self._name)}"

    @property
    def dim(self):
        return self._axis

    @dim.setter
    def dim(self, value):
        self._axis = value


class _Shrink(Layer):
    """Hardshrink / Softshrink: ``threshold`` (PyTorch's ``lambd`` too)."""

    _fn = ""

    @param_alias("threshold", "lambd")
    def __init__(self, threshold=0.5, name=None):
        super().__init__()
        self._threshold = threshold
        self._name = name

    @param_alias("x", "input")
    def forward(self, x):
        return getattr(functional, self._fn)(x, self._threshold, name=self._name)

    def extra_repr(self) -> str:
        return f"threshold={self._threshold}{_name_str(self._name)}"

    @property
    def lambd(self):
        return self._threshold

    @lambd.setter
    def lambd(self, value):
        self._threshold = value


class Hardshrink(_Shrink):
    _fn = "hardshrink"


class Softshrink(_Shrink):
    _fn = "softshrink"


class Hardtanh(Layer):
    def __init__(self, min=-1.0, max=1.0, name=None):  # noqa: A002 (Paddle's names)
        super().__init__()
        self._min, self._max, self._name = min, max, name

    def forward(self, x):
        return functional.hardtanh(x, self._min, self._max, name=self._name)

    def extra_repr(self) -> str:
        return f"min={self._min}, max={self._max}{_name_str(self._name)}"


class PReLU(Layer):
    """A learnt negative slope: parameter ``_weight`` of shape [num_parameters] (one per
    channel, or one shared), filled with ``init`` (0.25), named ``p_re_lu_N.w_0``."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW",
                 name=None):
        super().__init__()
        self._num_parameters, self._init = num_parameters, init
        self._weight_attr, self._name, self._data_format = weight_attr, name, data_format
        self._weight = self.create_parameter(attr=weight_attr, shape=[num_parameters],
                                             dtype="float32", is_bias=False,
                                             default_initializer=Constant(init))

    def forward(self, x):
        return functional.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self) -> str:
        return f"num_parameters={self._num_parameters}, data_format={self._data_format}, " \
               f"init={self._init}, dtype={self._dtype}{_name_str(self._name)}"


class RReLU(Layer):
    """Random negative slope in [lower, upper] while training, their mean in eval."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return functional.rrelu(x, lower=self._lower, upper=self._upper,
                                training=self.training)

    def extra_repr(self) -> str:
        return f"lower={self._lower}, upper={self._upper}, training={self.training}, " \
               f"dtype={self._dtype}{_name_str(self._name)}"


class SELU(Layer):
    def __init__(self, scale=1.0507009873554805, alpha=1.6732632423543772, name=None):
        super().__init__()
        self._scale, self._alpha, self._name = scale, alpha, name

    def forward(self, x):
        return functional.selu(x, self._scale, self._alpha, name=self._name)

    def extra_repr(self) -> str:
        return f"scale={self._scale:.16f}, alpha={self._alpha:.16f}{_name_str(self._name)}"


class LeakyReLU(Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope, self._name = negative_slope, name

    def forward(self, x):
        return functional.leaky_relu(x, self._negative_slope, name=self._name)

    def extra_repr(self) -> str:
        return f"negative_slope={self._negative_slope}{_name_str(self._name)}"


class Softplus(Layer):
    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__()
        self._beta, self._threshold, self._name = beta, threshold, name

    def forward(self, x):
        return functional.softplus(x, self._beta, self._threshold, name=self._name)

    def extra_repr(self) -> str:
        return f"beta={self._beta}, threshold={self._threshold}{_name_str(self._name)}"


class ThresholdedReLU(Layer):
    def __init__(self, threshold=1.0, value=0.0, name=None):
        super().__init__()
        self._threshold, self._value, self._name = threshold, value, name

    def forward(self, x):
        return functional.thresholded_relu(x, self._threshold, self._value, name=self._name)

    def extra_repr(self) -> str:
        return f"threshold={self._threshold}, value={self._value}{_name_str(self._name)}"


class Silu(Layer):
    """``x * sigmoid(x)``; ``inplace=True`` overwrites the input (``F.silu(x, True)``)."""

    def __init__(self, inplace=False, name=None):
        super().__init__()
        self._name, self._inplace = name, inplace

    def forward(self, x):
        return functional.silu(x, self._inplace, name=self._name)

    def extra_repr(self) -> str:
        return f"inplace={self._inplace}{_name_str(self._name)}"


SiLU = Silu  # (Paddle's alias: the same class)


class Softmax(Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis, self._dtype, self._name = axis, None, name

    def forward(self, x):
        return functional.softmax(x, self._axis, name=self._name)

    def extra_repr(self) -> str:
        return f"axis={self._axis}{_name_str(self._name)}"


class LogSoftmax(Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis, self._name = axis, name

    def forward(self, x):
        return functional.log_softmax(x, self._axis)

    def extra_repr(self) -> str:
        return f"axis={self._axis}{_name_str(self._name)}"


class Maxout(Layer):
    """The max over each run of ``groups`` channels along ``axis``."""

    def __init__(self, groups, axis=1, name=None):
        super().__init__()
        self._groups, self._axis, self._name = groups, axis, name

    def forward(self, x):
        return functional.maxout(x, self._groups, self._axis, name=self._name)

    def extra_repr(self) -> str:
        return f"groups={self._groups}, axis={self._axis}{_name_str(self._name)}"


class Softmax2D(Layer):
    """Softmax over the channels (axis -3) of a [C, H, W] or [N, C, H, W] input."""

    def __init__(self, name=None):
        super().__init__()
        self._dtype, self._name = None, name

    def forward(self, x):
        assert x.ndim == 3 or x.ndim == 4, \
            f"Softmax2D requires a 3D or 4D tensor as input. Received: {x.ndim}D."
        return functional.softmax(x, axis=-3, dtype=self._dtype, name=self._name)

    def extra_repr(self) -> str:
        return _name_str(self._name, first=True)
