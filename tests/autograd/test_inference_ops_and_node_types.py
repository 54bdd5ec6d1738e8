"""Ops on inference tensors outside inference_mode, and grad_fn types, compared with torch 2.13.

PyTorch: an op whose tensor inputs are all inference tensors skips autograd (no grad_fn, even
when they require grad), unless a Python number is wrapped into a normal tensor argument
(``a * 2``, ``a + 1`` are recorded). ``type(y.grad_fn).__name__`` and ``repr(y.grad_fn)`` name
the node (``MulBackward0``), not a library class.
"""
import re

import pytest

import inplace_lab.torch as itorch

torch = pytest.importorskip("torch")

PROGS = {
    "exp": lambda a, b: a.exp(), "mul_num": lambda a, b: a * 2, "add_num": lambda a, b: a + 1,
    "div_num": lambda a, b: a / 2, "mul_self": lambda a, b: a * a,
    "mul_normal": lambda a, b: a * b, "add_normal": lambda a, b: a + b,
    "sum": lambda a, b: a.sum(), "view": lambda a, b: a.view(2), "pow_num": lambda a, b: a ** 2,
    "clamp": lambda a, b: a.clamp(0, 1), "add_alpha": lambda a, b: torch_or(a).add(a, a, alpha=2),
    "tanh_chain": lambda a, b: (a * 2).tanh(),
}


def torch_or(t):
    return torch if isinstance(t, torch.Tensor) else itorch


def _run(lib, prog):
    with lib.inference_mode():
        a = lib.ones(2, requires_grad=True)
    b = lib.ones(2, requires_grad=True)
    try:
        r = prog(a, b)
        gf = r.grad_fn
        return ("ok", None if gf is None else type(gf).__name__, r.requires_grad, r.is_inference())
    except Exception as e:
        return (type(e).__name__ if not isinstance(e, RuntimeError) else "RuntimeError",
                str(e).split(".")[0])


@pytest.mark.parametrize("name", sorted(PROGS))
def test_ops_on_inference_tensors_outside_the_mode(name):
    assert _run(itorch, PROGS[name]) == _run(torch, PROGS[name])


def test_grad_fn_type_and_repr_name_the_node():
    def prog(lib):
        x = lib.ones(2, requires_grad=True)
        y = (x * 2).exp()
        z = x.clone()
        z.copy_(y)
        nodes = [y.grad_fn, y.grad_fn.next_functions[0][0], z.grad_fn,
                 y.grad_fn.next_functions[0][0].next_functions[0][0]]
        return [(type(n).__name__, re.sub(r" at 0x[0-9a-f]+", "", repr(n))) for n in nodes]

    assert prog(itorch) == prog(torch)
