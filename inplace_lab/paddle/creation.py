"""Paddle's creation functions: list shapes, ``place=``, ``stop_gradient=``, a current device.

Each one calls inplace_lab's creation function on the current device
(``paddle.set_device``) and stamps the ``paddle`` policy on the result, which makes
it a ``paddle.Tensor``. ``to_tensor`` names its tensors ``generated_tensor_N`` as Paddle does.
"""
from __future__ import annotations

import numbers

import numpy as np

from inplace_lab import backend, creation, dtypes, rng
from inplace_lab.tensor import Tensor as _Core

POLICY = "paddle"
_current = backend.CPU


def set_device(device: str):
    """'cpu', 'gpu' or 'gpu:N' (a real GPU through cupy, or the simulated one)."""
    global _current
    dev = backend.device(device)
    backend.check_device(dev)
    _current = dev
    return _place_of(dev)


def get_device() -> str:
    return "cpu" if _current.type == "cpu" else f"gpu:{_current.index or 0}"


def current() -> backend.device:
    return _current


def _place_of(dev):
    from .tensor import Place

    return Place(dev)


def _device(place):
    if place is None:
        return _current
    if hasattr(place, "_dev"):
        return place._dev
    return backend.device(str(place))


def _dtype(dtype, default=None):
    if dtype is None:
        return default
    if isinstance(dtype, str):
        return dtypes.from_any(dtype.replace("paddle.", ""))
    return dtypes.from_any(dtype)


def _shape(shape):
    if isinstance(shape, _Core):
        shape = shape.tolist()
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    return tuple(int(n.item()) if isinstance(n, _Core) else int(n) for n in shape)


def _own(t, stop_gradient=True):
    t._policy = POLICY
    if not stop_gradient:
        t.requires_grad_(True)
    return t


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """A new paddle tensor holding a copy of ``data`` (numbers, lists, numpy arrays, tensors)."""
    if isinstance(data, _Core):
        data = data.detach()
    t = creation.tensor(data, dtype=_dtype(dtype), device=_device(place))
    return _own(t, stop_gradient)._give_generated_name()


def zeros(shape, dtype=None, name=None):
    return _own(creation.zeros(_shape(shape), dtype=_dtype(dtype), device=_current))


def ones(shape, dtype=None, name=None):
    return _own(creation.ones(_shape(shape), dtype=_dtype(dtype), device=_current))


def empty(shape, dtype=None, name=None):
    return _own(creation.empty(_shape(shape), dtype=_dtype(dtype), device=_current))


def full(shape, fill_value, dtype=None, name=None):
    fill = fill_value.item() if isinstance(fill_value, _Core) else fill_value
    dt = _dtype(dtype, dtypes.bool_ if isinstance(fill, bool) else dtypes.get_default_dtype())
    return _own(creation.full(_shape(shape), fill, dtype=dt, device=_current))


def arange(start=0, end=None, step=1, dtype=None, name=None):
    return _own(creation.arange(start, end, step, dtype=_dtype(dtype), device=_current))


def linspace(start, stop, num, dtype=None, name=None):
    return _own(creation.linspace(start, stop, num, dtype=_dtype(dtype), device=_current))


def eye(num_rows, num_columns=None, dtype=None, name=None):
    return _own(creation.eye(num_rows, num_columns, dtype=_dtype(dtype), device=_current))


# Paddle's draws come from Paddle's generator (rng.PaddleGenerator: paddle.seed(s) gives
# Paddle's numbers), passed to the core factories and fills as their generator.
_gen = rng.paddle_generator


def rand(shape, dtype=None, name=None):
    return _own(creation.rand(_shape(shape), dtype=_dtype(dtype), device=_current,
                              generator=_gen))


def randn(shape, dtype=None, name=None):
    return _own(creation.randn(_shape(shape), dtype=_dtype(dtype), device=_current,
                               generator=_gen))


def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    return _own(creation.randint(low, high, _shape(shape), dtype=_dtype(dtype, dtypes.int64),
                                 device=_current, generator=_gen))


def randperm(n, dtype="int64", name=None):
    return _own(creation.randperm(n, dtype=_dtype(dtype), device=_current, generator=_gen))


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    """``uniform_real_distribution<float>(min, max)``: one draw per element."""
    t = creation.empty(_shape(shape), dtype=_dtype(dtype), device=_current)
    creation._random_fill(t, "uniform", _gen, low=min, high=max)
    return _own(t)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """``normal_distribution<float>(mean, std)`` (Paddle's gaussian kernel)."""
    t = creation.empty(_shape(shape if shape is not None else [1]), device=_current)
    creation._random_fill(t, "normal", _gen, mean=mean, std=std)
    return _own(t)


def _like(fn):
    def like(x, dtype=None, name=None, **kw):
        dt = _dtype(dtype, x._dtype)
        return _own(fn(x, dtype=dt, **kw))

    like.__name__ = fn.__name__
    return like


zeros_like = _like(creation.zeros_like)
ones_like = _like(creation.ones_like)
empty_like = _like(creation.empty_like)


def full_like(x, fill_value, dtype=None, name=None):
    return _own(creation.full_like(x, fill_value, dtype=_dtype(dtype, x._dtype)))


def seed(s: int):
    """Seed Paddle's generator (and the core's, which the facade's other draws use)."""
    _gen.manual_seed(s)
    creation.manual_seed(s)


def is_tensor(x) -> bool:
    return isinstance(x, _Core)


def from_numpy(arr: np.ndarray):
    return to_tensor(arr)
