"""``paddle.autograd``: backward over several tensors (gradients of ones for non-scalars)."""
from __future__ import annotations

from inplace_lab import autograd as _core
from inplace_lab.tensor import Tensor as _Tensor


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Paddle's argument checks (its Python asserts, word for word), then the backward."""
    tensors = _check_tensors(tensors, "tensors")
    assert len(tensors) == len({id(t) for t in tensors}), (
        "The argument 'tensors' of paddle.autograd.backward contains duplicate paddle.Tensor "
        "object.")
    if grad_tensors is not None:
        if not isinstance(grad_tensors, (list, tuple)):
            grad_tensors = [grad_tensors]
        for g in grad_tensors:
            assert g is None or isinstance(g, _Tensor), (
                "The argument 'grad_tensors' of paddle.autograd.backward is invalid, it can be "
                "'None', 'paddle.Tensor' or 'list[None/paddle.Tensor]'.")
        assert not grad_tensors or len(tensors) == len(grad_tensors), (
            "The length of grad_tensors must be equal to tensors")
    assert isinstance(retain_graph, bool), "retain_graph must be True or False"
    _core.backward(list(tensors), None if not grad_tensors else list(grad_tensors),
                   retain_graph=retain_graph)


def _check_tensors(in_out_list, name):
    assert in_out_list is not None, f"{name} should not be None"
    if isinstance(in_out_list, (list, tuple)):
        assert len(in_out_list) > 0, f"{name} cannot be empty"
        for t in in_out_list:
            assert isinstance(t, _Tensor), f"Elements of {name} must be paddle.Tensor"
        return in_out_list
    assert isinstance(in_out_list, _Tensor), f"{name} must be Tensor or list of Tensor"
    return [in_out_list]
