"""``paddle.nn.Layer``: parameters, buffers and sublayers kept by attribute assignment;
``__call__`` runs the forward pre-hooks, ``forward`` and the post-hooks.

Paddle's rules, as 3.3.1 has them:

* a parameter (``create_parameter``) set as an attribute goes to ``_parameters``, a Layer
  to ``_sub_layers``, any other Tensor to ``_buffers`` as a *non-persistable* buffer: only
  ``register_buffer`` (persistable=True by default) puts a buffer in ``state_dict``;
* a layer's full name is its class name in snake case plus a counter (``linear_0``), and
  its parameters are named after it (``linear_0.w_0``, ``linear_0.b_0``);
* ``state_dict`` hands out the parameters themselves; ``set_state_dict`` writes values
  out of band (no version bump) and reports ``(missing_keys, unexpected_keys)``.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np

from inplace_lab import dtypes as _dtypes
from inplace_lab.tensor import Tensor as _Core

from . import initializer  # noqa: F401  (paddle.nn.initializer)
from .parameter import EagerParamBase, make_parameter, snake_name, unique_name

__all__ = ["Layer"]

_LAYER_DTYPES = ("bfloat16", "float16", "float32", "float64", "int8", "int16", "int32",
                 "int64", "uint8", "complex64", "complex128", "bool")


class HookRemoveHelper:
    """What ``register_forward_*_hook`` returns: ``remove()`` takes the hook out again."""

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


def _addindent(text, indent):
    lines = text.split("\n")
    return lines[0] if len(lines) == 1 else \
        lines[0] + "\n" + "\n".join(" " * indent + ln for ln in lines[1:])


class Layer:
    """The base of every paddle layer; subclass it and define ``forward``."""

    def __init__(self, name_scope=None, dtype="float32"):
        d = self.__dict__
        d["training"] = True
        d["_full_name"] = unique_name(name_scope or snake_name(type(self).__name__))
        d["_dtype"] = dtype
        d["_built"] = False
        for k in ("_parameters", "_buffers", "_sub_layers", "_forward_pre_hooks",
                  "_forward_post_hooks", "_forward_pre_hooks_with_kwargs_flag",
                  "_forward_post_hooks_with_kwargs_flag", "_state_dict_hooks"):
            d[k] = OrderedDict()
        d["_non_persistable_buffer_names_set"] = set()

    # ---- attribute routing ------------------------------------------------------------------
    def __getattr__(self, name):
        d = self.__dict__
        for k in ("_parameters", "_sub_layers", "_buffers"):
            if k in d and name in d[k]:
                return d[k][name]
        return object.__getattribute__(self, name)

    def __setattr__(self, name, value):
        d = self.__dict__

        def drop(*dicts):
            for dd in dicts:
                dd.pop(name, None)

        params = d.get("_parameters")
        if isinstance(value, EagerParamBase):
            if params is None:
                raise ValueError("super().__init__() should be called first")
            drop(d, self._buffers, self._sub_layers)
            params[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"assignment to parameter '{name}' should be of type Parameter"
                                f" or None, but got '{type(value).__name__}'")
            params[name] = None
        elif isinstance(value, Layer):
            if d.get("_sub_layers") is None:
                raise ValueError("super().__init__() should be called first")
            drop(d, self._parameters, self._buffers)
            self._sub_layers[name] = value
        elif "_sub_layers" in d and name in self._sub_layers:
            if value is not None:
                raise TypeError(f"assignment to sublayer '{name}' should be of type Layer or "
                                f"None, but got '{type(value).__name__}'")
            self._sub_layers[name] = None
        elif isinstance(value, _Core):
            if d.get("_buffers") is None:
                raise ValueError("super().__init__() should be called first")
            drop(d, self._parameters, self._sub_layers)
            if name not in self._buffers:  # (only register_buffer makes one persistable)
                self._non_persistable_buffer_names_set.add(name)
            self._buffers[name] = value
        elif "_buffers" in d and name in self._buffers:
            if value is not None:
                raise TypeError(f"assignment to buffers '{name}' should be of type "
                                f"core.DenseTensor or None, but got '{type(value).__name__}'")
            self._buffers[name] = None
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._sub_layers:
            del self._sub_layers[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistable_buffer_names_set.discard(name)
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        return list(dir(type(self))) + list(self.__dict__) + list(self._parameters) + \
            list(self._sub_layers) + list(self._buffers)

    # ---- building -----------------------------------------------------------------------------
    def full_name(self) -> str:
        """``name_scope`` (the snake-case class name by default) plus a counter."""
        return self._full_name

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None, device=None):
        """A parameter named ``<full_name>.w_N`` (``.b_N`` for a bias) filled by
        ``attr.initializer``, else ``default_initializer``, else XavierUniform / zeros."""
        return make_parameter(self._full_name, shape, attr, dtype or self._dtype, is_bias,
                              default_initializer)

    def create_tensor(self, name=None, persistable=None, dtype=None):
        """An empty (0-size) tensor named ``<full_name>.<name>``, for a buffer filled later."""
        from .. import creation

        t = creation.zeros([0], dtype or self._dtype or "float32")
        t.name = f"{self._full_name}.{name}" if name is not None else \
            unique_name(f"{self._full_name}._generated_var")
        return t

    create_variable = create_tensor

    def add_sublayer(self, name, sublayer):
        assert isinstance(sublayer, Layer) or sublayer is None
        self._sub_layers[name] = sublayer
        return sublayer

    def add_module(self, name, module):
        self.add_sublayer(name, module)

    def _check_new_name(self, name, what, store):
        if not isinstance(name, str):
            raise TypeError(f"The name of {what} should be a string, but received "
                            f"{type(name).__name__}.")
        if "." in name:
            raise KeyError(f"The name of {what} can not contain `.`, because when you access "
                           f"the newly added {what} in the form of `self.**.**`, it will cause "
                           "AttributeError.")
        if name == "":
            raise KeyError(f"The name of {what} can not be empty.")
        if hasattr(self, name) and name not in store:
            raise KeyError(f"The parameter '{name}' already exists." if what == "parameter"
                           else f"attribute '{name}' already exists.")

    def add_parameter(self, name, parameter):
        """Register ``parameter`` (made by ``create_parameter``) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise RuntimeError("super().__init__() should be called firstly.")
        self._check_new_name(name, "parameter", self._parameters)
        if parameter is not None and not isinstance(parameter, EagerParamBase):
            raise TypeError("The parameter to be added should be a Parameter, but received "
                            f"{type(parameter).__name__}.")
        self._parameters[name] = parameter
        return parameter

    register_parameter = add_parameter

    def register_buffer(self, name, tensor, persistable=True):
        """A tensor kept with the layer (moved by ``to``), in ``state_dict`` if persistable."""
        if "_buffers" not in self.__dict__:
            raise ValueError("super().__init__() should be called first")
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, _Core):
            raise TypeError("The registered buffer should be a Paddle.Tensor, but received "
                            f"{type(tensor).__name__}.")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    # ---- walking ------------------------------------------------------------------------------
    def named_sublayers(self, prefix="", include_self=False, layers_set=None,
                        remove_duplicate=True):
        """Depth first, each layer once, named by its dotted path under ``prefix``."""
        if layers_set is None:
            layers_set = set()
        if include_self and self not in layers_set:
            if remove_duplicate:
                layers_set.add(self)
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            yield from layer.named_sublayers(prefix + ("." if prefix else "") + key, True,
                                             layers_set, remove_duplicate)

    def sublayers(self, include_self=False):
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        return self.named_sublayers(prefix, True, memo, remove_duplicate)

    def modules(self):
        return (m for _, m in self.named_modules())

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and layer not in seen:
                seen.add(layer)
                yield name, layer

    def children(self):
        return (layer for _, layer in self.named_children())

    def _named_members(self, store, prefix, include_sublayers, remove_duplicate):
        seen = set()
        layers = self.named_sublayers(prefix, True, None, remove_duplicate) \
            if include_sublayers else [(prefix, self)]
        for layer_prefix, layer in layers:
            for key, t in getattr(layer, store).items():
                if t is None or id(t) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(t))
                yield layer_prefix + ("." if layer_prefix else "") + key, t

    def named_parameters(self, prefix="", include_sublayers=True, remove_duplicate=True):
        return self._named_members("_parameters", prefix, include_sublayers, remove_duplicate)

    def parameters(self, include_sublayers=True):
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, include_sublayers, remove_duplicate)

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn):
        """``fn(layer)`` for every sublayer (children first), then ``fn(self)``."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # ---- modes, gradients ---------------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for layer in self.sublayers(include_self=True):
            layer.training = mode
        return self

    def eval(self):
        return self.train(False)

    def clear_gradients(self, set_to_zero=True):
        for p in self.parameters():
            if p.trainable:
                p.clear_gradient(set_to_zero)

    # ---- calling ------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(layer, inputs)`` before forward; a non-None result replaces the inputs
        (a single value becomes a 1-tuple). With ``with_kwargs`` it is
        ``hook(layer, args, kwargs)`` and returns ``(args, kwargs)`` or None."""
        h = HookRemoveHelper(self._forward_pre_hooks,
                             (self._forward_pre_hooks_with_kwargs_flag,))
        self._forward_pre_hooks[h._hook_id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs_flag[h._hook_id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(h._hook_id, last=False)
        return h

    def register_forward_post_hook(self, hook, *, prepend=False, with_kwargs=False,
                                   always_call=False):
        """``hook(layer, inputs, outputs)`` after forward; a non-None result replaces the
        outputs."""
        h = HookRemoveHelper(self._forward_post_hooks,
                             (self._forward_post_hooks_with_kwargs_flag,))
        self._forward_post_hooks[h._hook_id] = hook
        if with_kwargs:
            self._forward_post_hooks_with_kwargs_flag[h._hook_id] = True
        if prepend:
            self._forward_post_hooks.move_to_end(h._hook_id, last=False)
        return h

    register_forward_hook = register_forward_post_hook

    def __call__(self, *inputs, **kwargs):
        if not self._forward_pre_hooks and not self._forward_post_hooks:
            return self.forward(*inputs, **kwargs)
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs_flag:
                result = hook(self, inputs, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    inputs, kwargs = result
            else:
                result = hook(self, inputs)
                if result is not None:
                    inputs = result if isinstance(result, tuple) else (result,)
        outputs = self.forward(*inputs, **kwargs)
        for hid, hook in list(self._forward_post_hooks.items()):
            result = hook(self, inputs, kwargs, outputs) \
                if hid in self._forward_post_hooks_with_kwargs_flag \
                else hook(self, inputs, outputs)
            if result is not None:
                outputs = result
        return outputs

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError()

    def backward(self, *inputs):
        raise ValueError("Layer shouldn't implement backward")

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

    def double(self, excluded_layers=None):
        return self._set_dtype(_paddle_dtype("float64"), excluded_layers)

    def float16(self, excluded_layers=None):
        return self._set_dtype(_paddle_dtype("float16"), excluded_layers)

    def half(self):
        return self.float16()

    # ---- printing -----------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def __repr__(self):
        """Paddle's layout: ``Name(extra)`` or the sublayers indented, one per line."""
        extra = self.extra_repr().split("\n")
        lines = [f"({k}): " + _addindent(repr(v), 2) for k, v in self._sub_layers.items()]
        out = type(self).__name__ + "("
        out += ("\n  " + "\n  ".join(extra) + "\n") if len(extra) > 1 else extra[0]
        if lines:
            out += "\n  " + "\n  ".join(lines) + "\n"
        return out + ")"


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
