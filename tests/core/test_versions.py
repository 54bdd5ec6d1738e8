"""The version table of SEMANTICS.md section 2: what bumps ``_version`` and by how much, vs torch.

Each program runs on torch and on inplace_lab and returns the versions it observed.
(The paddle quirk of section 2 belongs to the paddle facade's tests.)
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il

torch = pytest.importorskip("torch")


def _inplace_ops(L):
    x = L.zeros(2, 3)
    ops = [lambda: x.add_(1), lambda: x.add_(0), lambda: x.mul_(1), lambda: x.copy_(L.ones(2, 3)),
           lambda: x.zero_(), lambda: x.fill_(2.0), lambda: x.clamp_(0, 1), lambda: x.relu_(),
           lambda: x.sub_(1), lambda: x.div_(2)]
    seen = []
    for f in ops:
        f()
        seen.append(x._version)
    return seen


def _setitem(L):
    x = L.zeros(3)
    x[0] = 5.0
    a = x._version
    x[1] += 1  # in-place add on the view, then the setitem copy: 2
    b = x._version
    x[:] = 1.0
    return [a, b, x._version]


def _iadd(L):
    x = L.zeros(3)
    y = x
    y += 1
    return [x._version, y is x]


def _out(L):
    a = L.ones(2)
    out = L.empty(2)
    L.add(a, 1, out=out)
    L.mul(a, a, out=out)
    empty = L.empty(0)
    L.add(a, 1, out=empty)  # resizing a 0-element out is part of the one write
    return [out._version, a._version, empty._version, list(empty.shape)]


def _metadata_inplace(L):
    x = L.zeros(2, 3)
    seen = []
    for f in (lambda: x.t_(), lambda: x.transpose_(0, 1), lambda: x.unsqueeze_(0),
              lambda: x.squeeze_(0), lambda: x.squeeze_(), lambda: x.as_strided_((3, 2), (1, 3)),
              lambda: x.swapaxes_(0, 1)):
        f()
        seen.append((x._version, tuple(x.shape), tuple(x.stride())))
    return seen


def _resize(L):
    x = L.zeros(6)
    x.resize_(6)  # same shape: no bump
    a = x._version
    x.resize_(2, 3)
    b = x._version
    x.resize_(6)
    return [a, b, x._version]


def _no_bump(L):
    x = L.zeros(3)
    x.requires_grad_()
    a = x._version
    y = x * 1
    y.detach_()
    x.data = L.ones(3)
    b = x._version
    x.data.add_(1)  # writes through .data are invisible to the counter
    x.detach().numpy()[0] = 7.0  # so are writes through numpy()
    return [a, b, x._version, y._version, x.tolist()]


def _data_fresh_counter(L):
    x = L.zeros(3)
    x.add_(1)
    d = x.data
    d.add_(1)
    return [x._version, d._version]


def _no_grad_still_bumps(L):
    x = L.zeros(3, requires_grad=True)
    with L.no_grad():
        x.add_(1)
        x[0] = 3.0
    return [x._version, x.is_leaf]


def _sibling_views(L):
    x = L.zeros(4, 4)
    a, b = x[0], x[:, 1]
    c = a.view(2, 2)
    b.add_(1)
    return [x._version, a._version, b._version, c._version]


PROGRAMS = [_inplace_ops, _setitem, _iadd, _out, _metadata_inplace, _resize, _no_bump,
            _data_fresh_counter, _no_grad_still_bumps, _sibling_views]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__.strip("_"))
def test_version_table_matches_torch(prog):
    assert prog(il) == prog(torch)


def test_every_inplace_op_bumps_by_exactly_one():
    assert _inplace_ops(il) == list(range(1, 11))


def test_failed_inplace_op_leaves_version_data_and_shape():
    x = il.zeros(3)
    before = np.asarray(x).copy()
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x.add_(il.ones(2, 3))
    with pytest.raises(RuntimeError, match="can't be cast"):
        il.zeros(3, dtype=il.int64).add_(1.5)
    assert x._version == 0 and tuple(x.shape) == (3,) and np.array_equal(np.asarray(x), before)
