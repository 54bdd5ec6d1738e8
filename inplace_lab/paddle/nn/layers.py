"""``paddle.nn.Layer``: parameters, buffers and sublayers kept by attribute assignment;
``__call__`` runs the forward pre-hooks, ``forward`` and the post-hooks.

Paddle's rules, as 3.3.1 has them:

* a parameter (``create_parameter``) set as an attribute goes to ``_parameters``, a Layer
  to ``_sub_layers``, any other Tensor to ``_buffers`` as a *non-persistable* buffer: only
  ``register_buffer`` (persistable=True by default) puts a buffer in ``state_dict``;
* a layer's full name is its class name in snake case plus a counter (``linear_0``), and
  its parameters are named after it (``linear_0.w_0``, ``linear_0.b_0``);
* ``state_dict`` hands out the parameters themselves; ``set_state_dict`` writes values
  out of band (no version bump) and reports ``(missing_keys, unexpected_keys)``
  (those and the dtype casts are in ``layer_state.py``).
"""
from __future__ import annotations

from collections import OrderedDict

from inplace_lab.tensor import Tensor as _Core

from . import initializer  # noqa: F401  (paddle.nn.initializer)
from .layer_state import HookRemoveHelper, LayerState
from .parameter import EagerParamBase, make_parameter, snake_name, unique_name

__all__ = ["Layer"]

def _addindent(text, indent):
    lines = text.split("\n")
    return lines[0] if len(lines) == 1 else \
        lines[0] + "\n" + "\n".join(" " * indent + ln for ln in lines[1:])


class Layer(LayerState):
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
        """A placeholder tensor named ``<full_name>.<name>`` (``_generated_var_N`` without a
        name), for a buffer filled later. (Paddle's has no data yet; this one is a 0-D zero.)"""
        from .. import creation

        t = creation.zeros([], dtype or "float32")
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

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.stop_gradient = not requires_grad
        return self

    def zero_grad(self, set_to_none=True):
        """Drop each gradient (``set_to_none``) or zero it in place."""
        for p in self.parameters():
            if p.grad is not None:
                p.clear_gradient(not set_to_none)

    # ---- lookup by dotted path --------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def get_sublayer(self, target):
        """``"a.b"`` -> ``self.a.b``, each step a Layer (AttributeError otherwise)."""
        mod = self
        for item in target.split(".") if target else ():
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Layer):
                raise AttributeError("`" + item + "` is not an nn.Layer")
        return mod

    def set_sublayer(self, target, layer, strict=False):
        if target == "":
            raise ValueError("Cannot set the sublayer without a target name!")
        if not isinstance(layer, Layer):
            raise ValueError(f"`module` is not an nn.Layer, found {type(layer)}")
        path, _, last = target.rpartition(".")
        parent = self.get_sublayer(path)
        if strict and not hasattr(parent, last):
            raise AttributeError(parent._get_name() + " has no attribute `" + last + "`")
        if hasattr(parent, last) and not isinstance(getattr(parent, last), Layer):
            raise AttributeError("`" + last + "` is not an nn.Layer")
        setattr(parent, last, layer)

    def get_parameter(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_sublayer(path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        p = getattr(mod, name)
        if not isinstance(p, _Core):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return p

    def get_buffer(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_sublayer(path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    get_submodule, set_submodule = get_sublayer, set_sublayer

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
