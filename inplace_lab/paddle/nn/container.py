"""``paddle.nn`` containers: Sequential, LayerList, LayerDict, ParameterList, ParameterDict.

They hold sublayers (or parameters) under string keys ``"0"``, ``"1"`` ... so that
``named_parameters`` and ``state_dict`` read ``0.weight``, as in Paddle.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain

from .layers import Layer
from .parameter import EagerParamBase

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList", "ParameterDict"]


class Sequential(Layer):
    """Layers called in order; given positionally (named "0", "1", ...), as (name, layer)
    pairs, or as one OrderedDict, as in Paddle."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], OrderedDict):
            items = layers[0].items()
        elif layers and isinstance(layers[0], (list, tuple)):
            items = layers
        else:
            items = ((str(i), layer) for i, layer in enumerate(layers))
        for name, layer in items:
            self.add_sublayer(name, layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return self.__class__(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        n = len(self._sub_layers)
        if name >= n or name < -n:
            raise IndexError(f"index {name} is out of range")
        return list(self._sub_layers.values())[name]

    def __setitem__(self, name, layer):
        assert isinstance(layer, Layer)
        setattr(self, str(name), layer)

    def __delitem__(self, name):
        name = str(name)
        assert name in self._sub_layers
        del self._sub_layers[name]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, module):
        self.add_sublayer(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Layer):
            raise AssertionError(f"module should be of type: {Layer}")
        n = len(self._sub_layers)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index += n if index < 0 else 0
        for i in range(n, index, -1):
            self._sub_layers[str(i)] = self._sub_layers[str(i - 1)]
        self._sub_layers[str(index)] = module
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers, indexed like a list; deleting renumbers the keys."""

    def __init__(self, sublayers=None):
        super().__init__()
        for idx, layer in enumerate(sublayers or ()):
            self.add_sublayer(str(idx), layer)

    def _get_abs_idx(self, idx):
        if isinstance(idx, int):
            if not -len(self) <= idx < len(self):
                raise IndexError(f"index {idx} is out of range, should be an integer in range "
                                 f"[{-len(self)}, {len(self)})")
            if idx < 0:
                idx += len(self)
        return idx

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._sub_layers.values())[idx])
        return self._sub_layers[str(self._get_abs_idx(idx))]

    def __setitem__(self, idx, sublayer):
        return setattr(self, str(self._get_abs_idx(idx)), sublayer)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._sub_layers))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(self._get_abs_idx(idx)))
        self._sub_layers = OrderedDict(
            (str(i), v) for i, v in enumerate(self._sub_layers.values()))

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = LayerList()
        for i, module in enumerate(chain(self, other)):
            combined.add_sublayer(str(i), module)
        return combined

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        n = len(self._sub_layers)
        assert isinstance(index, int) and -n <= index <= n, \
            f"index should be an integer in range [{-n}, {n}]"
        index += n if index < 0 else 0
        for i in range(n, index, -1):
            self._sub_layers[str(i)] = self._sub_layers[str(i - 1)]
        self._sub_layers[str(index)] = sublayer

    def extend(self, sublayers):
        offset = len(self)
        for i, sublayer in enumerate(sublayers):
            self.add_sublayer(str(offset + i), sublayer)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v


class LayerDict(Layer):
    """Sublayers by name, kept in insertion order, with dict methods."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        return self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        assert isinstance(sublayers, Iterable), (
            "The type of sublayers is not iterable of key/value pairs, the type of sublayers "
            "is " + type(sublayers).__name__)
        if isinstance(sublayers, (OrderedDict, LayerDict, Mapping)):
            for key, layer in sublayers.items():
                self.add_sublayer(key, layer)
            return
        for i, kv in enumerate(sublayers):
            if len(kv) != 2:
                raise ValueError(f"The length of the {i}'s element in sublayers is {len(kv)}, "
                                 "which must be 2.")
            self.add_sublayer(kv[0], kv[1])


class ParameterList(Layer):
    """Parameters under keys "0", "1" ...; item assignment writes values into the one there."""

    def __init__(self, parameters=None):
        super().__init__()
        for idx, param in enumerate(parameters or ()):
            assert isinstance(param, EagerParamBase)
            self.add_parameter(str(idx), param)

    def __getitem__(self, idx):
        return self._parameters[str(idx)]

    def __setitem__(self, idx, param):
        from .. import assign
        from ..tensor import Tensor

        if not isinstance(param, Tensor):
            raise TypeError(f"param should be 'Parameter' or 'Tensor', but received "
                            f"{type(param)}")
        assign(param, getattr(self, str(idx)))

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        self.add_parameter(str(len(self._parameters)), parameter)
        return self


class ParameterDict(Layer):
    """Parameters by name."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        assert isinstance(param, EagerParamBase)
        setattr(self, key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def update(self, parameters):
        assert isinstance(parameters, Iterable), (
            "The type of parameters is not iterable of key/value pairs, the type of sublayers "
            "is " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict, Mapping)):
            for key, parameter in parameters.items():
                self.add_parameter(key, parameter)
            return
        for i, kv in enumerate(parameters):
            if len(kv) != 2:
                raise ValueError(f"The length of the {i}'s element in parameters is {len(kv)},"
                                 " which must be 2.")
            self.add_parameter(kv[0], kv[1])
