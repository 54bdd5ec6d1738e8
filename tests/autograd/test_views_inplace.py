"""In-place ops on views under autograd: CopySlices, lazy view grad_fns, requires_grad of views,
the no_grad / multi-output bans, clone-before-overwrite memory, and what errors carry.

Values here are checked by hand; tests/differential/ checks the same behaviours against torch.
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab import errors


def test_view_inplace_makes_copyslices_the_base_grad_fn():
    x = il.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    v = y[1:3]
    v.mul_(10)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert y._version == v._version == 1
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 10.0, 10.0, 1.0]


def test_view_grad_fn_is_rebuilt_lazily_on_the_new_base_history():
    x = il.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[1:]
    assert v.grad_fn.name() == "SliceBackward0"
    y.mul_(2)
    assert v._grad_fn.name() == "SliceBackward0"  # nothing rebuilt until someone asks
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert v.grad_fn.next_functions[0][0] is y.grad_fn


def test_no_grad_view_requires_grad_but_gets_no_gradient():
    x = il.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with il.no_grad():
        v = y[1:]
    assert v.requires_grad and v.grad_fn is None and v.is_leaf
    (v * 2).sum().backward()
    assert v.grad is None and x.grad is None


def test_views_taken_before_the_base_requires_grad_follow_it():
    a = il.zeros(4)
    v = a[1:]
    r = il.ones(1, requires_grad=True)
    a.add_(r)
    assert v.requires_grad
    assert v.grad_fn.name() == "AsStridedBackward0"
    v.sum().backward()
    assert r.grad.tolist() == [3.0]


def test_no_grad_view_inplace_with_grad_is_refused_and_changes_nothing():
    x = il.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with il.no_grad():
        v = y[1:]
    with pytest.raises(errors.NoGradViewInplaceError, match="^A view was created in no_grad mode") as e:
        v.mul_(2)
    assert y.tolist() == [1.0, 2.0, 3.0] and y._version == 0
    assert e.value.tensor is v and e.value.op == "mul" and not e.value.indirect


def test_stale_no_grad_view_raises_the_indirect_error_when_its_grad_fn_is_read():
    x = il.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    with il.no_grad():
        v = y[1:]
    y.mul_(2)
    with pytest.raises(errors.NoGradViewInplaceError, match="its base or another view of its base"):
        v.grad_fn


def test_multi_output_view_inplace_is_refused_with_the_node_named():
    x = il.arange(6.0).reshape(3, 2).requires_grad_()
    parts = (x * 1).unbind()
    with pytest.raises(errors.MultiOutputViewInplaceError, match="^Output 1 of Unbind is a view") as e:
        parts[1].mul_(2)
    assert e.value.node is parts[1]._grad_fn


def test_sin_inplace_saves_a_clone_that_costs_memory_until_backward():
    import gc

    gc.collect()  # earlier tests' cyclic garbage must not be freed inside the measured window
    gc.disable()
    try:
        _sin_inplace_clone_costs_memory()
    finally:
        gc.enable()


def _sin_inplace_clone_costs_memory():
    x = il.ones(1000, requires_grad=True)
    y = x * 1
    before = il.memory.memory_allocated()
    y.sin_()
    assert il.memory.memory_allocated() - before == y.nbytes  # the clone of the old value
    z = x * 1
    before = il.memory.memory_allocated()
    z.exp_()  # exp saves its result: nothing to copy
    assert il.memory.memory_allocated() == before
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(np.ones(1000, dtype=np.float32)), rtol=1e-6)


def test_saved_tensor_error_carries_versions_and_node():
    x = il.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    with pytest.raises(errors.SavedTensorModifiedError) as e:
        y.sum().backward()
    err = e.value
    assert (err.expected, err.found, err.node) == (0, 1, "ExpBackward0")
    assert err.tensor._vc is y._vc
    assert "output 0 of Exp" in str(err)


def test_backward_reports_the_latest_stale_node_first():
    """PyTorch's ready queue runs the most recently created node first."""
    x = il.tensor([0.5, 1.0], dtype=il.float64, requires_grad=True)
    a = x * x.sum()
    b = a * x.sum()  # saves a at version 0
    a.exp_()  # saves a (its result) at version 1
    a.add_(0.5)
    with pytest.raises(errors.SavedTensorModifiedError, match=r".*output 0 of Exp, is at version 2; "
                       r"expected version 1"):
        (a.sum() + b.sum()).backward()


def test_leaf_errors_are_runtime_and_value_errors():
    x = il.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        x.add_(1)
    with pytest.raises(ValueError):
        x.add_(1)
    with pytest.raises(errors.ViewOfLeafInplaceError) as e:
        x[0:1].add_(1)
    assert e.value.leaf is x and isinstance(e.value, errors.InplaceAutogradError)
