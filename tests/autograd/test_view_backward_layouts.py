"""The gradients view ops' backward formulas return, against torch 2.13: ExpandBackward0 is
at::sum_to (the gradient itself, a keepdim sum viewed without its leading dims, or a plain sum
to a 0-dim), SumBackward0 expands its 0-dim gradient (all strides 0); values, is_view, strides
and, under create_graph, the nodes they make."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ilt = pytest.importorskip("inplace_lab.torch")

EXPANDS = [((3,), (2, 3)), ((1, 3), (2, 3)), ((3, 1), (3, 4)), ((1,), (2, 2)), ((), (2,)),
           ((2, 1, 3), (4, 2, 5, 3)), ((2, 3), (2, 3))]


@pytest.mark.parametrize("shape,target", EXPANDS)
def test_expand_backward_is_torchs_sum_to(shape, target):
    got = []
    for T in (torch, ilt):
        w = T.ones(*shape, requires_grad=True) if shape else T.tensor(1.0, requires_grad=True)
        y = w.expand(*target)
        g, = T.autograd.grad((y * y * 2).sum(), [w], create_graph=True)
        got.append((g._is_view(), g.stride(), g.tolist(), type(g.grad_fn).__name__))
    assert got[0] == got[1]


@pytest.mark.parametrize("shape", [(1,), (2, 1), (3,), (2, 3)])
def test_sum_backward_expands_the_0dim_gradient(shape):
    got = []
    for T in (torch, ilt):
        x = T.ones(*shape, requires_grad=True)
        g, = T.autograd.grad(x.sum(), [x])
        x.sum().backward()
        v1 = (x.grad.stride(), x.grad._version)
        x.grad = None
        x.mean().backward()
        got.append(((g._is_view(), g.stride()), v1, (x.grad.stride(), x.grad._version)))
    assert got[0] == got[1]
