"""``paddle.autograd``: backward over several tensors (gradients of ones for non-scalars)."""
from __future__ import annotations

from inplace_lab import autograd as _core


def backward(tensors, grad_tensors=None, retain_graph=False):
    _core.backward(tensors, grad_tensors, retain_graph=retain_graph)
