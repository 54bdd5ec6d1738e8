"""``paddle.nn`` general layers: ``Linear`` ..."""
from __future__ import annotations

import itertools

from . import functional
from .layers import Layer

__all__ = ["Linear"]


_linear_ids = itertools.count()


class Linear(Layer):
    """``y = x @ weight + bias`` with Paddle's [in_features, out_features] weight layout.

    Xavier-uniform weight, zero bias, named as Paddle names them (``linear_0.w_0``).
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        prefix = name or f"linear_{next(_linear_ids)}"
        self.weight = self.create_parameter([in_features, out_features])
        self.weight.name = f"{prefix}.w_0"
        self.bias = None if bias_attr is False else self.create_parameter([out_features],
                                                                          is_bias=True)
        if self.bias is not None:
            self.bias.name = f"{prefix}.b_0"

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, " \
               f"dtype={self._dtype}"

    def forward(self, x):
        y = functional.linear(x, self.weight, self.bias)
        return y
