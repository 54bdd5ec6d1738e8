"""The state half of ``paddle.nn.Layer``: ``state_dict`` / ``set_state_dict`` /
``load_state_dict`` and the dtype casts (``to``, ``astype``, ``float``, ``double``).

``state_dict`` holds parameters and *persistable* buffers by structured name, the tensors
themselves (not copies). Loading writes with ``set_value``: out of band, so every tensor
keeps its identity and its ``inplace_version``. A cast re-points each parameter at cast
data in place (same object, same version), as Paddle's ``_to`` shares the cast tensor
into the old one.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np

from inplace_lab import dtypes as _dtypes
from inplace_lab.tensor import Tensor as _Core

_LAYER_DTYPES = ("bfloat16", "float16", "float32", "float64", "int8", "int16", "int32",
                 "int64", "uint8", "complex64", "complex128", "bool")


class HookRemoveHelper:
    """What ``register_*_hook`` returns: ``remove()`` takes the hook out again."""

    next_hook_id = 0

    def __init__(self, hooks, extra_hook_dict=()):
        self._hooks, self._extra = hooks, extra_hook_dict
        self._hook_id = HookRemoveHelper.next_hook_id
        HookRemoveHelper.next_hook_id += 1

    def remove(self):
        for d in (self._hooks, *self._extra):
            d.pop(self._hook_id, None)


class _IncompatibleKeys(tuple):
    """``load_state_dict``'s result: ``(missing_keys, unexpected_keys)`` with names."""

    def __new__(cls, missing_keys, unexpected_keys):
        self = super().__new__(cls, (missing_keys, unexpected_keys))
        self.missing_keys, self.unexpected_keys = missing_keys, unexpected_keys
        return self

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, " \
               f"unexpected_keys={self.unexpected_keys})"


class LayerState:
    """Mixed into ``Layer``: its state dict and dtype methods."""

    # ---- state --------------------------------------------------------------------------------
    def register_state_dict_hook(self, hook):
        h = HookRemoveHelper(self._state_dict_hooks)
        self._state_dict_hooks[h._hook_id] = hook
        return h

    def _state_dict_impl(self, destination=None, include_sublayers=True,
                         structured_name_prefix="", include_non_persistable_buffer=False,
                         use_hook=True, keep_vars=True):
        out = OrderedDict() if destination is None else destination
        for name, p in self._parameters.items():
            if p is not None:
                out[structured_name_prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and (include_non_persistable_buffer or
                                  name not in self._non_persistable_buffer_names_set):
                out[structured_name_prefix + name] = b if keep_vars else b.detach()
        if include_sublayers:
            for lname, layer in self._sub_layers.items():
                if layer is not None:
                    layer._state_dict_impl(out, True, structured_name_prefix + lname + ".",
                                           include_non_persistable_buffer, use_hook, keep_vars)
        if use_hook:
            for hook in self._state_dict_hooks.values():
                r = hook(out)
                out = out if r is None else r
        return out

    def state_dict(self, *args, **kwargs):
        """Parameters and persistable buffers by structured name, the tensors themselves.
        PyTorch's ``state_dict(destination, prefix, keep_vars)`` form is taken too."""
        if (len(args) >= 2 and isinstance(args[1], str)) or "prefix" in kwargs:
            for key, value in zip(("destination", "prefix", "keep_vars"), args):
                if key in kwargs:
                    raise TypeError(f"got multiple values for argument '{key}'")
                kwargs[key] = value
            return self._state_dict_impl(kwargs.get("destination"), True,
                                         kwargs.get("prefix", ""), False, True,
                                         kwargs.get("keep_vars", False))
        return self._state_dict_impl(*args, **kwargs)

    def to_static_state_dict(self, destination=None, include_sublayers=True,
                             structured_name_prefix="", use_hook=True, keep_vars=True):
        return self._state_dict_impl(destination, include_sublayers, structured_name_prefix,
                                     True, use_hook, keep_vars)

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copy values into this layer's parameters and persistable buffers; returns
        ``(missing_keys, unexpected_keys)``.

        As Paddle 3.3.1: each tensor keeps its identity and its version (``set_value`` is
        out of band, like a write through ``.numpy()``); a missing entry or one of another
        shape is skipped with Paddle's warning; another dtype is an AssertionError.
        """
        missing, matched, pairs = [], set(), []
        for key, p in self._state_dict_impl(use_hook=False).items():
            k = key if use_structured_name else p.name
            value = state_dict.get(k)
            if value is None:
                missing.append(k)
                warnings.warn(f"Skip loading for {key}. {k} is not found in the provided dict.")
                continue
            shape = list(value.shape)
            if shape != list(p.shape):
                missing.append(k)
                warnings.warn(f"Skip loading for {key}. {k} receives a shape {shape}, but the "
                              f"expected shape is {list(p.shape)}.")
                continue
            matched.add(k)
            pairs.append((p, value))
        unexpected = [k for k in state_dict if k not in matched]
        for p, value in pairs:
            dt = value._dtype if isinstance(value, _Core) else \
                _dtypes.from_numpy_dtype(value.dtype)
            assert dt is p._dtype, (
                f"Variable dtype not match, Variable [ {p.name} ] need tensor with dtype "
                f"paddle.{p._dtype.name}  but load tensor with dtype paddle.{dt.name}")
            p.set_value(value)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    def load_state_dict(self, state_dict, strict=True, assign=False):
        missing, unexpected = self.set_state_dict(state_dict)
        errors = []
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # ---- dtype ----------------------------------------------------------------------------------
    def to(self, device=None, dtype=None, blocking=None, non_blocking=None):
        """Cast parameters and buffers to ``dtype`` (each keeps its identity); the layer's
        dtype reads as given (a string stays a string in the repr)."""
        if dtype is not None:
            dt = _dtypes.from_any(dtype.replace("paddle.", "") if isinstance(dtype, str)
                                  else dtype)
            for layer in self.sublayers(include_self=True):
                for store in (layer._parameters, layer._buffers):
                    for t in store.values():
                        if t is not None:
                            _retype(t, dt)
                layer._dtype = dtype
        return self

    def astype(self, dtype=None):
        """Cast to ``dtype``; the layer's dtype becomes ``paddle.<dtype>``. (Paddle 3.3.1
        only relabels the layer and leaves the parameters as they were; that bug is not
        copied: they are cast, as ``to`` casts them.)"""
        name = getattr(dtype, "name", dtype)
        if isinstance(dtype, np.dtype):
            name = dtype.name
        if not isinstance(name, str) or name.replace("paddle.", "") not in _LAYER_DTYPES or \
                (isinstance(dtype, str) and dtype not in _LAYER_DTYPES):
            raise ValueError(
                "dtype value error, must be 'bfloat16', 'float16', 'float32', 'float64', "
                "'int8', 'int16', 'int32', 'int64', 'uint8', 'complex64', 'complex128', "
                "'bool', or paddle.dtype, numpy.dtype, but receive " + str(dtype))
        return self._set_dtype(_paddle_dtype(name), None, floating_only=False)

    def _set_dtype(self, dt, excluded_layers=None, floating_only=True):
        excluded = [] if excluded_layers is None else excluded_layers
        excluded = [excluded] if isinstance(excluded, type) else list(excluded)
        for layer in self.sublayers(include_self=True):
            if type(layer) in excluded:
                continue
            for store in (layer._parameters, layer._buffers):
                for t in store.values():
                    if t is not None and (t._dtype.is_floating_point or not floating_only):
                        _retype(t, _dtypes.from_any(dt))
            layer._dtype = dt
        return self

    def float(self, excluded_layers=None):
        return self._set_dtype(_paddle_dtype("float32"), excluded_layers)

    def cpu(self):
        """``layer.cpu()``: the layer itself (every tensor here lives on the current device;
        moving parameters between devices is not reproduced)."""
        return self

    def cuda(self, device=None):
        return self

    def type(self, dst_type):
        """``layer.type(dtype)``: every parameter and buffer cast (Paddle's ``astype``)."""
        return self.astype(dst_type)

    def register_module(self, name, module):
        """``register_module``: ``add_module`` (Paddle's alias)."""
        self.add_module(name, module)

    def double(self, excluded_layers=None):
        return self._set_dtype(_paddle_dtype("float64"), excluded_layers)

    def float16(self, excluded_layers=None):
        return self._set_dtype(_paddle_dtype("float16"), excluded_layers)

    def half(self):
        return self.float16()


def _paddle_dtype(name):
    """``paddle.float32`` and friends (they print with the ``paddle.`` prefix)."""
    import inplace_lab.paddle as paddle

    return getattr(paddle, name.replace("paddle.", ""))


def _retype(t, dt):
    """Give tensor ``t`` (and its gradient) dtype ``dt`` in place, out of band: same object,
    same version, as Paddle's ``_to`` shares the cast data into the old tensor."""
    if t._dtype is dt:
        return
    new = _Core.to(t.detach(), dt)
    t._storage, t._dtype = new._storage, new._dtype
    t._set_geometry(new._shape, new._strides, new._offset)
    if t._grad is not None:
        _retype(t._grad, dt)
