"""``inplace_lab.autograd.graph``: the graph-level tools of ``torch.autograd.graph``.

- ``Node``: the base class of every ``grad_fn`` (``isinstance(y.grad_fn, Node)``).
- ``saved_tensors_hooks(pack, unpack)``: intercept every tensor a node saves.
  With hooks installed the saved value is whatever ``pack`` returned, so there
  is no version counter left to check: an in-place write after the save goes
  unnoticed and backward silently uses the new values. PyTorch has the same
  hole; inplace_lab keeps it so a lesson can show it:

  >>> import inplace_lab as il
  >>> x = il.tensor([1., 2.], requires_grad=True)
  >>> with il.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
  ...     y = x.exp()
  >>> _ = y.detach().mul_(0)    # would raise at backward without the hooks
  >>> y.sum().backward()
  >>> x.grad.tolist()           # d exp(x)/dx read from the zeroed result: silently wrong
  [0.0, 0.0]

- ``save_on_cpu(pin_memory=False)``: the same hooks, storing each saved tensor on the CPU
  (a GPU tensor is copied there and back at backward; a CPU tensor is kept as it is, so the
  hole above applies to it too).
- ``disable_saved_tensors_hooks(message)``: installing hooks inside raises ``message``.
- ``allow_mutation_on_saved_tensors()``: the fix for "modified by an inplace operation":
  inside it, a tensor about to be written in place while a graph has it saved is cloned
  first, and backward reads the clone (the memory the lesson pays for the convenience).
- ``increment_version(t)``: report a write autograd could not see (through
  ``.numpy()``, ``.data`` or a foreign kernel), so a later backward that needs
  the old values raises instead of silently using the new ones.
"""
from __future__ import annotations

import contextlib
import weakref
from collections import defaultdict
from typing import MutableMapping

from .node import Node
from .saved import disable_saved_tensors_hooks, saved_tensors_hooks


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors live on the CPU until backward needs them (PyTorch's offloading lesson:
    GPU memory for CPU memory and two copies). ``pin_memory=True`` packs into a page-locked
    copy when a GPU is available, else into a plain CPU copy, as PyTorch does."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        from .. import creation, cuda

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = creation.empty(tuple(tensor.shape), dtype=tensor.dtype,
                                    pin_memory=cuda.is_available())
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor in an iterable) by one."""
    from ..tensor import Tensor

    tensors = (tensor,) if isinstance(tensor, Tensor) else tuple(tensor)
    for t in tensors:
        t._vc.bump()


# ---- allow_mutation_on_saved_tensors: PyTorch's code, on the dispatcher's write hook ----------

_mutation_enabled = [False]


class _Handle:
    pass


def _tid(t):
    return (id(t), t.data_ptr(), t._version)


def _sid(t):
    return (t.data_ptr(), t._version)  # (PyTorch's key: a view at another offset is not it)


class _AllowMutationOnSavedContext:
    def __init__(self) -> None:
        self.cloned: MutableMapping = weakref.WeakKeyDictionary()
        self.original: MutableMapping = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle: MutableMapping = weakref.WeakValueDictionary()
        self.sid_to_tid: dict = defaultdict(set)

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


class _swap_with_cloned(saved_tensors_hooks):
    """Save a handle; backward reads the tensor, or its clone if it was written since."""

    def __init__(self, ctx) -> None:
        def pack_hook(tensor):
            tid, sid = _tid(tensor), _sid(tensor)
            ctx.sid_to_tid[sid].add(tid)
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None:  # (the same tensor at the same version may be saved twice)
                handle = _Handle()
                ctx.tid_to_weakhandle[tid] = handle
                ctx.original[handle] = tensor
            return handle

        def unpack_hook(handle):
            error_msg = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                         "contextin which the graph was originally recorded.")
            if not _mutation_enabled[0]:
                raise AssertionError(error_msg)
            if handle in ctx.cloned:
                return ctx.cloned[handle]
            if handle not in ctx.original:
                raise AssertionError(error_msg)
            return ctx.original[handle]

        super().__init__(pack_hook, unpack_hook)


def _clone_before_write(ctx):
    """The write hook: a saved tensor about to be written is cloned, once."""
    def maybe_clone(t) -> None:
        for tid in ctx.sid_to_tid.get(_sid(t), ()):
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None or handle in ctx.cloned:  # (freed by a backward, or cloned)
                continue
            from . import grad_mode

            with grad_mode.no_grad():  # (PyTorch's mode runs below autograd: no node)
                ctx.cloned[handle] = ctx.original[handle].clone()
            del ctx.original[handle]

    return maybe_clone


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Under this context manager, tensors saved for backward are cloned on mutation, so the
    original version can still be used during backward (run the backward inside it too)."""
    from ..ops import dispatch

    ctx = _AllowMutationOnSavedContext()
    hook = _clone_before_write(ctx)
    with _swap_with_cloned(ctx):
        dispatch.WRITE_HOOKS.append(hook)
        try:
            if _mutation_enabled[0]:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _mutation_enabled[0] = True
            yield ctx
        finally:
            ctx.clear()
            _mutation_enabled[0] = False
            dispatch.WRITE_HOOKS.remove(hook)


__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors", "increment_version"]
