"""``torch.nn.utils.stateless.functional_call`` (and the body of ``torch.func.functional_call``):
call a module with some of its parameters and buffers replaced, for one call only.

The given tensors are swapped into the module's ``_parameters`` / ``_buffers`` dicts (or set
as attributes) by dotted name, the module is called, and the originals are swapped back even
if the call raises. With ``tie_weights`` a tensor given for one of several tied names (the
same Parameter registered twice) replaces all of them; ``strict`` demands exactly the
module's names.

>>> functional_call(lin, {"weight": w2}, (x,))   # lin(x) with w2 as its weight
"""
from __future__ import annotations

import contextlib
import warnings

from ...tensor import Tensor
from ..module import Module

__all__ = ["functional_call"]

_MISSING = object()


def _get_submodule(module, prefix):
    if not prefix:
        return module
    mod = module
    for item in prefix.split("."):
        if not hasattr(mod, item):
            raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
        mod = getattr(mod, item)
        if not isinstance(mod, Module):
            raise AttributeError(f"`{item}` is not an nn.Module")
    return mod


def swap_tensor(module, name: str, tensor, allow_missing: bool = False):
    """Put ``tensor`` at ``module.<name>``; return what was there (torch's NamedMemberAccessor)."""
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if not isinstance(tensor, Tensor) and tensor is not _MISSING:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    if name in module._parameters:
        orig = module._parameters[name]
        if tensor is not _MISSING:
            module._parameters[name] = tensor
        else:
            del module._parameters[name]
    elif name in module._buffers:
        orig = module._buffers[name]
        if tensor is not _MISSING:
            module._buffers[name] = tensor
        else:
            del module._buffers[name]
    else:
        if hasattr(module, name):
            orig = getattr(module, name)
        else:
            if not allow_missing:
                raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
            orig = _MISSING
        if orig is not _MISSING and not isinstance(orig, Tensor):
            raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
        if tensor is not _MISSING:
            setattr(module, name, tensor)
        elif hasattr(module, name):
            delattr(module, name)
    return orig


def _swap_dict(module, named_tensors):
    orig = {}
    try:
        for name, tensor in named_tensors.items():
            prefix, _, attr = name.rpartition(".")
            orig[name] = swap_tensor(_get_submodule(module, prefix), attr, tensor,
                                     allow_missing=True)
    except Exception:
        for name, t in orig.items():
            prefix, _, attr = name.rpartition(".")
            swap_tensor(_get_submodule(module, prefix), attr, t, allow_missing=True)
        raise
    return orig


def _untie_named_tensors_map(module, parameters_and_buffers):
    all_named = {}
    all_named.update(module.named_parameters(remove_duplicate=False))
    all_named.update(module.named_buffers(remove_duplicate=False))
    by_tensor: dict = {}
    for name, tensor in all_named.items():
        by_tensor.setdefault(id(tensor), set()).add(name)
    tied_names_map = {}
    for tied_names in by_tensor.values():
        if len(tied_names) > 1:
            for tied_name in tied_names:
                tied_names_map[tied_name] = tied_names
    given = set(parameters_and_buffers)
    given_tied = {n for n in given if n in tied_names_map}
    for given_name in given_tied:
        tied_names = tied_names_map[given_name]
        if len(tied_names & given_tied) > 1 and \
                len({id(parameters_and_buffers[n]) for n in tied_names}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied_names)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = parameters_and_buffers.copy()
    for given_name in given_tied:
        for tied_name in tied_names_map[given_name]:
            untied[tied_name] = parameters_and_buffers[given_name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False,
                          stack_weights=False):
    untied = _untie_named_tensors_map(module, parameters_and_buffers) if tie_weights \
        else parameters_and_buffers
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(valid - set(untied)), sorted(set(untied) - valid)
        error_msgs = []
        if unexpected:
            error_msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            error_msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if error_msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(error_msgs)))
    orig = {}
    try:
        orig = _swap_dict(module, untied)
        yield
    finally:
        if stack_weights:
            orig = dict(reversed(orig.items()))
        new = _swap_dict(module, orig)
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """Deprecated (torch 2.0) spelling of ``torch.func.functional_call`` for one dict."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                     tie_weights: bool = True, strict: bool = False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)
