"""Tensor.register_post_accumulate_grad_hook against PyTorch: order, in-place steps inside
backward, autograd.grad, handle.remove() and the errors."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402


def _run(T):
    x = T.ones(2, requires_grad=True)
    log = []
    x.register_hook(lambda g: log.append(("pre", g.tolist())))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad.tolist(), t is x)))
    (x * 3).sum().backward()
    (x * 2).sum().backward()
    return log


def test_hook_runs_after_accumulation_and_after_tensor_hooks():
    assert _run(il) == _run(torch)


def _step(T):
    z = T.ones(2, requires_grad=True)

    def step(t):
        with T.no_grad():
            t.sub_(t.grad)
        t.grad = None

    z.register_post_accumulate_grad_hook(step)
    (z * 2).sum().backward()
    return z.tolist(), z._version, z.grad


def test_in_place_optimizer_step_inside_backward():
    assert _step(il) == _step(torch)


def _grad_and_remove(T):
    x = T.ones(2, requires_grad=True)
    log = []
    h = x.register_post_accumulate_grad_hook(lambda t: log.append("post"))
    T.autograd.grad((x * 2).sum(), x)
    after_grad = list(log)
    h.remove()
    (x * 2).sum().backward()
    return after_grad, log


def test_not_run_by_autograd_grad_and_removed_by_handle():
    assert _grad_and_remove(il) == _grad_and_remove(torch) == ([], [])


@pytest.mark.parametrize("make", [lambda T: T.ones(2, requires_grad=True) * 2,
                                  lambda T: T.ones(2)])
def test_errors(make):
    msgs = []
    for T in (torch, il):
        with pytest.raises(RuntimeError) as e:
            make(T).register_post_accumulate_grad_hook(lambda t: None)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_hook_returning_a_value_is_a_type_error():
    msgs = []
    for T in (torch, il):
        y = T.ones(2, requires_grad=True)
        y.register_post_accumulate_grad_hook(lambda t: 5)
        with pytest.raises(TypeError) as e:
            (y * 1).sum().backward()
        msgs.append((str(e.value), y.grad.tolist()))
    assert msgs[0] == msgs[1]
