"""``paddle.nn`` activation layers: each calls its ``paddle.nn.functional`` function."""
from __future__ import annotations

from . import functional
from .layers import Layer

__all__ = ["ReLU"]


class ReLU(Layer):
    def forward(self, x):
        return functional.relu(x)
