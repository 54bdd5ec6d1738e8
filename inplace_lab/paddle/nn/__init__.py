"""``paddle.nn``: a minimal ``Layer`` (parameters, sublayers, ``__call__`` -> ``forward``)."""
from __future__ import annotations

from collections import OrderedDict

from inplace_lab.tensor import Tensor as _Core

from . import functional  # noqa: F401
from .. import creation as _creation


class Layer:
    """Holds parameters (tensors made by ``create_parameter``) and sublayers set as attributes."""

    def __init__(self, name_scope=None, dtype="float32"):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_sub_layers", OrderedDict())
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_dtype", dtype)

    def __setattr__(self, name, value):
        if isinstance(value, _Core) and value._is_param:
            self._parameters[name] = value
        elif isinstance(value, Layer):
            self._sub_layers[name] = value
        object.__setattr__(self, name, value)

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """A trainable tensor (stop_gradient=False): zeros for a bias, else uniform like Xavier."""
        shape = list(shape)
        if is_bias:
            p = _creation.zeros(shape, dtype or self._dtype)
        else:
            fan = sum(shape[:2]) if len(shape) > 1 else shape[0]
            limit = (6.0 / max(fan, 1)) ** 0.5
            p = _creation.uniform(shape, dtype or self._dtype, -limit, limit)
        if default_initializer is not None:
            default_initializer(p)
        p._is_param = True
        p.requires_grad_(True)
        return p

    def named_parameters(self, prefix="", include_sublayers=True):
        for n, p in self._parameters.items():
            yield (prefix + n, p)
        if include_sublayers:
            for ln, layer in self._sub_layers.items():
                yield from layer.named_parameters(prefix + ln + ".", True)

    def parameters(self, include_sublayers=True):
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def sublayers(self, include_self=False):
        out = [self] if include_self else []
        for layer in self._sub_layers.values():
            out += layer.sublayers(include_self=True)
        return out

    def children(self):
        return iter(self._sub_layers.values())

    def train(self):
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", True)
        return self

    def eval(self):
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", False)
        return self

    def clear_gradients(self, set_to_zero=True):
        for p in self.parameters():
            p.clear_gradient(set_to_zero)

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *inputs, **kwargs):
        return self.forward(*inputs, **kwargs)


class Linear(Layer):
    """``y = x @ weight + bias`` with Paddle's [in_features, out_features] weight layout."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self.weight = self.create_parameter([in_features, out_features])
        self.bias = None if bias_attr is False else self.create_parameter([out_features],
                                                                          is_bias=True)

    def forward(self, x):
        y = functional.linear(x, self.weight, self.bias)
        return y


class ReLU(Layer):
    def forward(self, x):
        return functional.relu(x)
