"""ModuleDict and ParameterList: containers whose entries a Module registers by name.

Entries are ordinary submodules / parameters under their key (``'0'``, ``'1'`` ... for a
list), so ``parameters()``, ``state_dict()`` keys (``blocks.relu.weight``,
``weights.0``), ``.to()`` and ``zero_grad()`` see them, where a plain Python dict or list
attribute would hide them from the optimizer: the classic bug these classes exist for.
"""
from __future__ import annotations

from collections import OrderedDict

from ..tensor import Tensor
from .module import Module
from .parameter import Parameter


class ModuleDict(Module):
    """Submodules by string key, in insertion order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str):
        return self._modules[key]

    def __setitem__(self, key: str, module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key: str):
        v = self[key]
        del self[key]
        return v

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules) -> None:
        if isinstance(modules, (dict, OrderedDict, ModuleDict)):
            for k, m in modules.items():
                self[k] = m
            return
        for j, kv in enumerate(modules):
            if len(kv) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(kv)}; "
                                 "2 is required")
            self[kv[0]] = kv[1]


class ParameterList(Module):
    """Parameters by position; a plain tensor appended becomes a Parameter (as in PyTorch)."""

    def __init__(self, values=None):
        super().__init__()
        self.__dict__["_size"] = 0
        if values is not None:
            self.extend(values)

    def _key(self, idx: int) -> str:
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % n)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return self._parameters[self._key(idx)]

    def __setitem__(self, idx: int, param) -> None:
        self._put(self._key(idx), param)

    def _put(self, key, param):
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        if isinstance(param, Parameter):
            self.register_parameter(key, param)
        else:
            object.__setattr__(self, key, param)

    def __len__(self):
        return self.__dict__["_size"]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        self.__dict__["_size"] += 1
        self._put(str(len(self) - 1), value)
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                size = "x".join(str(s) for s in p.shape)
                dev = f" ({p.device})" if p.device.type == "cuda" else ""
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                lines.append(f"  ({k}): {kind} containing: [{p.dtype!r} of size {size}{dev}]")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)


class ParameterDict(Module):
    """Parameters by string key, in insertion order; a plain tensor set becomes a Parameter,
    any other value is kept as a plain attribute (as in PyTorch)."""

    def __init__(self, parameters=None):
        super().__init__()
        self.__dict__["_keys"] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k = list(self._keys)[-1]
        return k, self.pop(k)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def update(self, parameters) -> None:
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = list(parameters.items())
        elif isinstance(parameters, dict):
            items = sorted(parameters.items())
        else:
            items = list(parameters)
        for j, kv in enumerate(items):
            if len(kv) != 2:
                raise ValueError(f"ParameterDict update sequence element #{j} has length "
                                 f"{len(kv)}; 2 is required")
            self[kv[0]] = kv[1]

    def extra_repr(self) -> str:
        lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                size = "x".join(str(s) for s in p.shape)
                dev = f" ({p.device})" if p.device.type == "cuda" else ""
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                lines.append(f"  ({k}): {kind} containing: [{p.type()} of size {size}{dev}]")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)
