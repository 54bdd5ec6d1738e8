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
- ``increment_version(t)``: report a write autograd could not see (through
  ``.numpy()``, ``.data`` or a foreign kernel), so a later backward that needs
  the old values raises instead of silently using the new ones.
"""
from __future__ import annotations

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


__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "increment_version"]
