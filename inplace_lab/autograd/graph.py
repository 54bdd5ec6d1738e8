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

- ``increment_version(t)``: report a write autograd could not see (through
  ``.numpy()``, ``.data`` or a foreign kernel), so a later backward that needs
  the old values raises instead of silently using the new ones.
"""
from __future__ import annotations

from .node import Node
from .saved import saved_tensors_hooks


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor in an iterable) by one."""
    from ..tensor import Tensor

    tensors = (tensor,) if isinstance(tensor, Tensor) else tuple(tensor)
    for t in tensors:
        t._vc.bump()


__all__ = ["Node", "saved_tensors_hooks", "increment_version"]
