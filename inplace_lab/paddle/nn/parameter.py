"""What a Paddle parameter is and how a layer makes one: ``ParamAttr``, ``EagerParamBase``,
``unique_name`` and ``make_parameter`` (the body of ``Layer.create_parameter``).

A parameter is a paddle Tensor with ``stop_gradient=False`` (unless ``trainable=False``),
``persistable=True``, a unique name (``linear_0.w_0``, ``linear_0.b_0``) and an optimizer
attribute (``optimize_attr['learning_rate']``); it prints as ``Parameter containing:``.
Its first values come from an initializer that writes out of band, so a fresh parameter
has ``inplace_version == 0`` as in Paddle.

>>> import inplace_lab.paddle as paddle
>>> attr = paddle.ParamAttr(name="w", initializer=paddle.nn.initializer.Constant(0.5))
>>> paddle.nn.Linear(2, 1, weight_attr=attr).weight.tolist()
[[0.5], [0.5]]
"""
from __future__ import annotations

import copy
import re
from collections import defaultdict

from ..tensor import Tensor

__all__ = ["ParamAttr", "EagerParamBase"]

_counters: dict = defaultdict(int)


def unique_name(key: str) -> str:
    """``paddle.utils.unique_name.generate``: ``key_0``, ``key_1`` ... one counter per key."""
    n = _counters[key]
    _counters[key] += 1
    return f"{key}_{n}"


_first_cap_re = re.compile("(.)([A-Z][a-z]+)")
_all_cap_re = re.compile("([a-z])([A-Z])")


def snake_name(class_name: str) -> str:
    """Paddle's name scope of a layer class: ``BatchNorm2D`` -> ``batch_norm2d``."""
    return _all_cap_re.sub(r"\1_\2", _first_cap_re.sub(r"\1_\2", class_name)).lower()


class ParamAttr:
    """How ``create_parameter`` makes one parameter: its name, first values, learning-rate
    factor and whether it trains (``trainable=False`` -> ``stop_gradient=True``). Paddle's
    type checks here only run in static mode: in dygraph any value is taken as given."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        if name == "":
            raise ValueError("name of ParamAttr can not be empty str")
        self.name, self.initializer, self.learning_rate = name, initializer, learning_rate
        self.regularizer, self.trainable = regularizer, trainable
        self.do_model_average, self.need_clip = do_model_average, need_clip

    @staticmethod
    def _to_attr(arg):
        """None, a name, an initializer, True -> a ParamAttr; False -> False (no parameter)."""
        from .initializer import Initializer

        if arg is None:
            return ParamAttr()
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if isinstance(arg, bool):
            return ParamAttr() if arg else False
        raise TypeError(f"{type(arg)} cast to ParamAttr")


class EagerParamBase(Tensor):
    """A parameter: a paddle Tensor that trains, persists and prints as ``Parameter
    containing:``. ``trainable`` is the other side of ``stop_gradient``."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        """``paddle.nn.Parameter(data, requires_grad=True)`` (``EagerParamBase``): a parameter
        sharing data's storage; ``Parameter(shape, dtype)``: an uninitialised one (zeros)."""
        if (args and isinstance(args[0], list)) or "shape" in kwargs:
            self._init_by_shape(*args, **kwargs)
        else:
            self._init_by_tensor(*args, **kwargs)

    def _init_by_shape(self, shape, dtype, **kwargs):
        from inplace_lab import creation, dtypes

        if shape is None:
            raise ValueError("The shape of Parameter should not be None")
        if dtype is None:
            raise ValueError("The dtype of Parameter should not be None")
        t = creation.zeros(tuple(int(s) for s in shape),
                           dtype=dtypes.from_any(str(dtype).replace("paddle.", "")))
        self._adopt(t, kwargs.get("name"), not kwargs.get("stop_gradient", False), kwargs)

    def _init_by_tensor(self, data=None, requires_grad=True, **kwargs):
        from inplace_lab.paddle import to_tensor

        if data is None:
            data = to_tensor([])
        if not isinstance(data, Tensor.__mro__[1]):
            raise TypeError(f"EagerParamBase.__init_by_shape__() missing 1 required positional "
                            "argument: 'dtype'")
        self._adopt(data, kwargs.get("name"), requires_grad, kwargs)

    def _adopt(self, t, name, requires_grad, kwargs):
        core = Tensor.__mro__[1]
        core._init_from(self, t._storage, t._shape, t._strides, t._offset)
        self._policy = "paddle"
        self._is_param = True
        self.name = name if name is not None else unique_name("_eager_param_base")
        self.stop_gradient = not requires_grad
        self.optimize_attr = kwargs.get("optimize_attr", {"learning_rate": 1.0})

    @property
    def trainable(self) -> bool:
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value: bool):
        if not isinstance(value, bool):
            raise ValueError("The type of trainable MUST be bool, but the type is ", type(value))
        self.stop_gradient = not value

    @property
    def persistable(self) -> bool:
        return self.__dict__.get("_persistable", True)

    @persistable.setter
    def persistable(self, value: bool):
        self.__dict__["_persistable"] = bool(value)

    @property
    def optimize_attr(self) -> dict:
        return self.__dict__.setdefault("_optimize_attr", {"learning_rate": 1.0})

    @optimize_attr.setter
    def optimize_attr(self, value: dict):
        self.__dict__["_optimize_attr"] = value

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __deepcopy__(self, memo):
        """A new parameter with the data copied, named ``<name>_deepcopy_N`` (Paddle)."""
        if id(self) in memo:
            return memo[id(self)]
        from inplace_lab.autograd import no_grad

        with no_grad():
            t = self.detach().clone()
        new = as_parameter(t, self.name + unique_name("_deepcopy"), self.trainable)
        new.optimize_attr = copy.deepcopy(self.optimize_attr, memo)
        new.persistable = self.persistable
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, proto):
        """Pickled, a parameter comes back a plain paddle Tensor, as in Paddle 3.3.1."""
        from inplace_lab.serialization import reduce_tensor

        fn, args = reduce_tensor(self)
        return fn, args[:5] + (False,) + args[6:]

    __str__ = __repr__


def as_parameter(t, name=None, trainable=True, learning_rate=1.0):
    """Turn a fresh paddle Tensor into a parameter (same object, same storage)."""
    t.__class__ = EagerParamBase
    t._is_param = True
    t.stop_gradient = not trainable
    if name is not None:
        t.name = name
    t.optimize_attr = {"learning_rate": learning_rate}
    return t


_FLOATS = ("float16", "float32", "float64", "bfloat16", "float", "int8")


def make_parameter(layer_name, shape, attr=None, dtype=None, is_bias=False,
                   default_initializer=None):
    """``LayerHelperBase.create_parameter``: None when ``attr`` is False; the initializer is
    ``attr.initializer``, else the layer's default, else XavierUniform (weights) or
    Constant(0) (biases), unless ``set_global_initializer`` named one."""
    from .. import creation
    from . import initializer as init

    attr = ParamAttr._to_attr(copy.deepcopy(attr) if not isinstance(attr, str) or attr else None)
    if not attr:
        return None
    shape = [int(s) for s in shape]
    for i, size in enumerate(shape):
        assert size >= 0, ("Expected every dim's size to be larger than or equal to 0, "
                           f"but the size of the {i}-th dim is {size}")
    dtype = dtype or "float32"
    dtype_name = getattr(dtype, "name", str(dtype)).replace("paddle.", "")
    glob = init._global_bias if is_bias else init._global_weight
    default_initializer = glob if glob is not None else default_initializer
    name = attr.name or unique_name(f"{layer_name}.{'b' if is_bias else 'w'}")
    fill = attr.initializer or default_initializer
    if fill is None:
        if dtype_name not in _FLOATS:
            raise TypeError("Can not create parameter with default initializer when dtype is "
                            "not ['float16', 'float32', 'float64', 'bfloat16', 'float'] type. "
                            "Set default_initializer to fit the parameter dtype!")
        fill = init.Constant(0.0) if is_bias else init.XavierUniform()
    p = creation.zeros(shape, dtype_name)
    fill(p)
    return as_parameter(p, name, attr.trainable, attr.learning_rate)
