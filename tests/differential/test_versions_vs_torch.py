"""Version counters (SEMANTICS 2) against torch 2.13: who shares a counter, what bumps it."""
from __future__ import annotations

import pytest

from tests.differential.harness import attempt, compare_torch

pytest.importorskip("torch")


def view_shares_counter_both_ways(T):
    x = T.zeros(2, 3)
    v = x[0]
    w = x[:, 1]
    v.add_(1)
    a = (x._version, v._version, w._version)
    x.mul_(2)
    return {"after_view_write": list(a), "after_base_write": [x._version, v._version, w._version],
            "x": x}


def new_view_starts_at_base_version(T):
    x = T.zeros(3)
    x.add_(1)
    x.add_(1)
    return {"v": x[1:]._version, "t": x.view(3, 1)._version}


def detach_shares_clone_does_not(T):
    x = T.ones(3, requires_grad=True)
    y = x * 2
    d = y.detach()
    c = y.clone()
    d.add_(1)
    c.add_(1)
    return {"y": y._version, "d": d._version, "c": c._version, "d_is_view": d._is_view(),
            "y_values": y}


def data_gets_a_fresh_counter_and_corrupts_grads(T):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    y.data.zero_()
    z = y.sum()
    z.backward()
    return {"y_version": y._version, "data_version": y.data._version, "grad": x.grad}


def every_inplace_op_bumps_by_one(T):
    x = T.zeros(2, 3)
    seen = []
    for f in (lambda: x.add_(1), lambda: x.add_(0), lambda: x.copy_(T.ones(2, 3)),
              lambda: x.zero_(), lambda: x.fill_(2.0), lambda: x.mul_(1), lambda: x.sub_(1),
              lambda: x.div_(2)):
        f()
        seen.append(x._version)
    return {"versions": seen, "x": x}


def iadd_is_inplace_and_bumps(T):
    x = T.zeros(3)
    y = x
    y += 1
    return {"same": y is x, "v": x._version, "x": x}


def setitem_bumps_once_and_index_iadd_twice(T):
    x = T.zeros(3)
    x[0] = 5.0
    a = x._version
    x[1] += 1
    b = x._version
    x[x > 0] = 2.0
    return {"after_setitem": a, "after_index_iadd": b, "after_mask": x._version, "x": x}


def out_argument_bumps_the_out_tensor(T):
    a = T.tensor([1.0, 2.0])
    out = T.empty(2)
    T.exp(a, out=out)
    T.add(a, a, out=out)
    return {"out": out._version, "a": a._version, "values": out}


def metadata_inplace_ops_bump(T):
    x = T.zeros(2, 3)
    seen = []
    for f in (lambda: x.t_(), lambda: x.transpose_(0, 1), lambda: x.unsqueeze_(0),
              lambda: x.squeeze_(0), lambda: x.as_strided_((3, 2), (1, 3))):
        f()
        seen.append([x._version, list(x.shape), list(x.stride())])
    return {"seen": seen}


def resize_to_a_new_shape_bumps(T):
    x = T.zeros(6)
    x.resize_(2, 3)
    return {"v": x._version, "shape": list(x.shape)}


def not_bumped_by_flags_detach_and_data(T):
    x = T.zeros(3)
    x.requires_grad_()
    y = x * 1
    y.detach_()
    x.data = T.ones(3)
    x.data.add_(1)
    return {"x": x._version, "y": y._version, "values": x}


def writes_through_numpy_do_not_bump(T):
    x = T.zeros(3)
    x.numpy()[0] = 7.0
    return {"v": x._version, "x": x}


def no_grad_still_bumps(T):
    x = T.zeros(3, requires_grad=True)
    with T.no_grad():
        x.add_(1)
        x[0] = 3.0
    return {"v": x._version, "grad_fn": x.grad_fn, "leaf": x.is_leaf}


def no_grad_inplace_is_not_recorded(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with T.no_grad():
        y.mul_(3)
    y.sum().backward()
    return {"grad": x.grad, "y": y, "v": y._version, "fn": y.grad_fn}


def grad_accumulates_in_place(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    g = x.grad
    v0 = g._version
    (x * 3).sum().backward()
    return {"same_object": x.grad is g, "versions": [v0, g._version], "grad": x.grad}


# ---- PyTorch's own tests (test/test_autograd.py), as programs -----------------------------------

def pytorch_test_version_counter(T):
    x = T.randn(1, 2)
    saved = x._version
    x.add_(1).add_(1)
    bumped = x._version > saved
    xz = x[:]
    same = x._version == xz._version
    xz.add_(1)
    same_after = x._version == xz._version
    saved = x._version
    x.data = T.randn(2, 3)
    kept = x._version == saved
    x.add_(1)
    return {"bumped": bumped, "same": same, "same_after": same_after, "data_keeps": kept,
            "bumped_again": x._version > saved, "still_shared": x._version == xz._version}


def pytorch_test_no_grad_modifies_version(T):
    x = T.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    y = T.tensor([5.0, 4.0, 3.0, 2.0, 1.0], requires_grad=True)
    z = (x * y).sum()
    with T.no_grad():
        x *= 2
    return {"v": x._version, "backward": attempt(z.backward)}


PROGRAMS = [view_shares_counter_both_ways, new_view_starts_at_base_version,
            detach_shares_clone_does_not, data_gets_a_fresh_counter_and_corrupts_grads,
            every_inplace_op_bumps_by_one, iadd_is_inplace_and_bumps,
            setitem_bumps_once_and_index_iadd_twice, out_argument_bumps_the_out_tensor,
            metadata_inplace_ops_bump, resize_to_a_new_shape_bumps,
            not_bumped_by_flags_detach_and_data, writes_through_numpy_do_not_bump,
            no_grad_still_bumps, no_grad_inplace_is_not_recorded, grad_accumulates_in_place,
            pytorch_test_version_counter, pytorch_test_no_grad_modifies_version]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_versions_match_torch(prog):
    compare_torch(prog)
