"""``nn.Module``: parameters, buffers and submodules, in PyTorch's shape.

A Module is a tree: ``_parameters`` (Parameters), ``_buffers`` (plain tensors such as
BatchNorm's running statistics, saved in the state dict but not trained) and
``_modules``. Attribute assignment sorts values into these dicts, as in PyTorch.

What matters for in-place lessons: ``load_state_dict`` copies *into* the existing
parameters (``copy_`` under no_grad: same objects, versions bump), ``state_dict``
returns detached aliases (same storage: editing one in place edits the model), and
``zero_grad()`` sets grads to None by default (torch 2.x) so the next backward
allocates fresh ones instead of accumulating in place.
"""
from __future__ import annotations

from collections import OrderedDict, namedtuple

from ..autograd import no_grad
from ..tensor import Tensor
from ..utils.hooks import RemovableHandle
from .parameter import Parameter

class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; prints as PyTorch's when every key matched."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class Module:
    """Base class of every layer. Subclasses set attributes in ``__init__`` and define ``forward``."""

    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- registration -----------------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        if "_parameters" not in d:
            raise AttributeError("cannot assign before Module.__init__() call")
        if isinstance(value, Parameter):
            self._drop(name)
            self.register_parameter(name, value)
        elif name in d["_parameters"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__module__}.{type(value).__name__}' "
                                f"as parameter '{name}' (torch.nn.Parameter or None expected)")
            d["_parameters"][name] = None
        elif isinstance(value, Module):
            self._drop(name)
            d["_modules"][name] = value
        elif name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            d["_modules"][name] = None
        elif isinstance(value, Tensor) and value.__dict__.get("_is_buffer"):  # (nn.Buffer)
            self.register_buffer(name, value, value.__dict__.get("persistent", True))
        elif name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def _drop(self, name):
        d = self.__dict__
        d.pop(name, None)
        for key in ("_parameters", "_buffers", "_modules"):
            d[key].pop(name, None)

    def __getattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if key in d and name in d[key]:
                return d[key][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if name in d[key]:
                del d[key][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param) -> None:
        if "." in name or name == "":
            raise KeyError(f'parameter name can\'t contain "." or be empty, got {name!r}')
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self.__dict__.pop(name, None)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        if "." in name or name == "":
            raise KeyError(f'buffer name can\'t contain "." or be empty, got {name!r}')
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> "Module":
        mod = self
        for part in filter(None, target.split(".")):
            if part not in mod._modules:
                raise AttributeError(f"{type(mod).__name__} has no attribute `{part}`")
            mod = mod._modules[part]
        return mod

    # ---- traversal ----------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        memo = set() if memo is None else memo
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, prefix + ("." if prefix else "") + name,
                                           remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, key, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for mprefix, m in mods:
            for name, v in m.__dict__[key].items():
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                yield (mprefix + ("." if mprefix else "") + name), v

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- modes and grads ----------------------------------------------------------------------
    def train(self, mode: bool = True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.__dict__["training"] = mode
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop the grads (default) or zero them in place (``set_to_none=False``: version bumps)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    # ---- devices and dtypes: data swapped under the same Parameter objects --------------------
    def _apply_to_tensors(self, fn):
        with no_grad():
            for m in self.modules():
                for p in m._parameters.values():
                    if p is None:
                        continue
                    p.data = fn(p.data)
                    if p._grad is not None:
                        p._grad.data = fn(p._grad.data)
                for k, b in m._buffers.items():
                    if b is not None:
                        m._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Device and/or dtype; the Parameter objects stay the same (their ``.data`` is swapped)."""
        return self._apply_to_tensors(lambda t: _to_keep_int(t, args, kwargs))

    def share_memory(self):
        """Move every parameter and buffer to shared memory in place (Hogwild-style training)."""
        from .. import multiprocessing  # noqa: F401  (installs Tensor.share_memory_)

        for t in list(self.parameters()) + list(self.buffers()):
            t.share_memory_()
        return self

    def cuda(self, device=None):
        return self._apply_to_tensors(lambda t: t.cuda(device) if device is not None else t.cuda())

    def cpu(self):
        return self._apply_to_tensors(lambda t: t.cpu())

    def double(self):
        return self._apply_to_tensors(lambda t: t.double() if t.is_floating_point() else t)

    def float(self):
        return self._apply_to_tensors(lambda t: t.float() if t.is_floating_point() else t)

    def half(self):
        return self._apply_to_tensors(lambda t: t.half() if t.is_floating_point() else t)

    # ---- state dict -----------------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters and persistent buffers by dotted name (detached aliases: same storage)."""
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy values into the existing tensors (``copy_`` under no_grad: each version bumps)."""
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for k, t in own.items():
            if k not in state_dict:
                continue
            v = state_dict[k]
            if not isinstance(v, Tensor):
                errors.append(f'While copying the parameter named "{k}", expected torch.Tensor or '
                              f"Tensor-like object from checkpoint but received {type(v)}")
            elif v.shape != t.shape:
                errors.append(f"size mismatch for {k}: copying a param with shape {v.shape} from "
                              f"checkpoint, the shape in current model is {t.shape}.")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        with no_grad():
            for k, t in own.items():
                if k in state_dict:
                    t.copy_(state_dict[k])
        return _IncompatibleKeys(missing, unexpected)

    # ---- hooks and calling ------------------------------------------------------------------------
    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """``hook(module, args, output)``; a non-None return value replaces the output."""
        h = RemovableHandle(self._forward_hooks)
        self._forward_hooks[h.id] = hook
        if prepend:
            self._forward_hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """``hook(module, args)``; a non-None return value replaces the positional args."""
        h = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[h.id] = hook
        if prepend:
            self._forward_pre_hooks.move_to_end(h.id, last=False)
        return h

    def __call__(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            r = hook(self, args, out)
            if r is not None:
                out = r
        return out

    # ---- printing ---------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, m in self._modules.items():
            mod = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {mod}")
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))


def _to_keep_int(t, args, kwargs):
    """``module.to(float64)`` converts floating tensors only (num_batches_tracked stays int64)."""
    from ..dtypes import dtype as _dtype

    if kwargs.get("memory_format") is not None and t.dim() not in (4, 5):  # (torch: only
        kwargs = {k: v for k, v in kwargs.items() if k != "memory_format"}  # 4/5-dim ones)
    wants_dtype = any(isinstance(a, _dtype) for a in args) or "dtype" in kwargs
    if wants_dtype and not t.is_floating_point():
        args = tuple(a for a in args if not isinstance(a, _dtype))
        kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}
        return t.to(*args, **kwargs) if args or kwargs else t
    return t.to(*args, **kwargs)
