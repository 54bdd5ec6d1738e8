"""``paddle.nn`` containers: ``Sequential`` ..."""
from __future__ import annotations

from collections import OrderedDict

from .layers import Layer

__all__ = ["Sequential"]


class Sequential(Layer):
    """Layers called in order; given positionally (named "0", "1", ...), as (name, layer)
    pairs, or as an OrderedDict, as in Paddle."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (dict, OrderedDict)):
            layers = tuple(layers[0].items())
        for i, item in enumerate(layers):
            name, layer = item if isinstance(item, (tuple, list)) else (str(i), item)
            self.add_sublayer(name, layer)

    def add_sublayer(self, name, sublayer):
        setattr(self, str(name), sublayer)
        return sublayer

    def __getitem__(self, i):
        layers = list(self._sub_layers.values())
        return Sequential(*layers[i]) if isinstance(i, slice) else layers[i]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, x):
        for layer in self._sub_layers.values():
            x = layer(x)
        return x
