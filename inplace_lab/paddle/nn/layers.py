"""``paddle.nn.Layer``: parameters, sublayers, ``__call__`` -> ``forward``."""
from __future__ import annotations

from collections import OrderedDict

from inplace_lab import dtypes as _dtypes
from inplace_lab.tensor import Tensor as _Core

from .. import creation as _creation

__all__ = ["Layer"]


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

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   use_hook=True):
        """An OrderedDict of structured name -> the parameter itself (not a copy), as Paddle."""
        out = OrderedDict() if destination is None else destination
        for n, p in self.named_parameters(structured_name_prefix, include_sublayers):
            out[n] = p
        return out

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copy values into this layer's parameters; returns ``(missing_keys, unexpected_keys)``.

        As Paddle 3.3.1: each parameter keeps its identity and its version (``set_value`` is
        out of band, like a write through ``.numpy()``); a missing entry or one of another
        shape is skipped with Paddle's warning; another dtype is an AssertionError.
        """
        import warnings

        missing, matched = [], set()
        for n, p in self.named_parameters():
            if n not in state_dict:
                missing.append(n)
                warnings.warn(f"Skip loading for {n}. {n} is not found in the provided dict.")
                continue
            value = state_dict[n]
            shape = list(value.shape)
            if shape != list(p.shape):
                missing.append(n)
                warnings.warn(f"Skip loading for {n}. {n} receives a shape {shape}, but the "
                              f"expected shape is {list(p.shape)}.")
                continue
            dt = value._dtype if isinstance(value, _Core) else _dtypes.from_numpy_dtype(value.dtype)
            assert dt is p._dtype, (
                f"Variable dtype not match, Variable [ {p.name} ] need tensor with dtype "
                f"paddle.{p._dtype.name}  but load tensor with dtype paddle.{dt.name}")
            p.set_value(value)
            matched.add(n)
        return missing, [k for k in state_dict if k not in matched]

    def clear_gradients(self, set_to_zero=True):
        for p in self.parameters():
            p.clear_gradient(set_to_zero)

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *inputs, **kwargs):
        return self.forward(*inputs, **kwargs)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self):
        """Paddle's layout: ``Name(extra)`` or the sublayers indented, one per line."""
        lines = [f"({k}): " + repr(v).replace("\n", "\n  ") for k, v in self._sub_layers.items()]
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"
