"""Backward errors found by the program sweep, each program run on torch 2.13 and here.

* A second backward through ``x * 2`` raises: torch saves the wrapped 2 (MulBackward0's
  ``other``) and frees it with the graph; ``x + 2`` saves nothing and may run again.
* A second backward through CopySlices (a write into a view of a non-leaf) raises: torch
  drops CopySlices' function when the graph is freed.
* ``backward`` on a view made under no_grad of a leaf that requires grad: it requires grad
  (through its base) but has no grad_fn, so there is no edge to start from.
* A saved non-leaf input detached in place is refused when backward unpacks it.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as ilt  # noqa: E402

PROGRAMS = {
    "second backward through x * 2": "y = (x * 2).sum()\ny.backward()\ny.backward()",
    "second backward through 2 * x": "y = (2 * x).sum()\ny.backward()\ny.backward()",
    "second backward through x / 2": "y = (x / 2).sum()\ny.backward()\ny.backward()",
    "second backward through 2 / x": "y = (2 / x).sum()\ny.backward()\ny.backward()",
    "second backward through x + 2 runs": "y = (x + 2).sum()\ny.backward()\ny.backward()",
    "second backward through 2 - x runs": "y = (2 - x).sum()\ny.backward()\ny.backward()",
    "retain_graph once, then freed": "y = (x * 2).sum()\ny.backward(retain_graph=True)\n"
                                     "y.backward()\ny.backward()",
    "second backward through CopySlices": "t = x + 0\nt[0] = -1.0\nt.exp().sum().backward()\n"
                                          "t.sum().backward()",
    "no_grad view of a leaf": "with T.no_grad():\n    v = x.view(-1)\nv.backward(T.ones_like(v))",
    "inference view of a leaf": "with T.inference_mode():\n    v = x.view(-1)\n"
                                "v.backward(T.ones_like(v))",
    "saved non-leaf detached in place": "s = x.sum()\nm = T.maximum(x, s)\n"
                                        "with T.no_grad():\n    s.detach_()\nm.mean().backward()",
}


def _run(T, src):
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    try:
        exec(src, {"T": T, "x": x})
    except RuntimeError as e:
        return ("raised", str(e).splitlines()[0][:120])
    return ("ok", x.grad.tolist() if x.grad is not None else None)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_backward_error_or_result_matches_torch(name):
    assert _run(ilt, PROGRAMS[name]) == _run(torch, PROGRAMS[name])


def test_a_leaf_detached_in_place_after_use_gets_no_grad():
    out = []
    for T in (torch, ilt):
        x = T.tensor([[-1.13, -1.05], [-0.75, 1.27]], dtype=T.float64, requires_grad=True)
        y = x * 1
        x.detach_()  # AccumulateGrad skips a leaf that no longer requires grad
        y.exp().sum().backward()
        out.append((x.grad, x.requires_grad, x.is_leaf))
    assert out[1] == out[0]


UNPACK_ORDER = {"mul": "a * b", "mul_rev": "b * a", "div": "a / b", "maximum": "T.maximum(a, b)",
                "pow": "a.pow(b)", "atan2": "T.atan2(a, b)", "addcmul": "T.addcmul(a, a, b)",
                "lerp": "T.lerp(a, b, a)", "hypot": "T.hypot(a, b)",
                "mm": "a.reshape(1, 2).mm(b.reshape(2, 1))"}


@pytest.mark.parametrize("op", UNPACK_ORDER)
def test_of_two_modified_saved_tensors_the_first_by_name_is_named(op):
    """torch's generated apply unpacks saved variables in name order (other < self,
    tensor1 < tensor2, end < self < weight): with both modified, that one's version shows."""
    import re

    found = []
    for T in (torch, ilt):
        x = T.tensor([1.5, 2.5], requires_grad=True)
        a, b = x * 1, x * 2
        z = eval(UNPACK_ORDER[op], {"T": T, "a": a, "b": b})  # noqa: S307
        with T.no_grad():
            a.add_(1)
            b.add_(1)
            b.add_(1)  # a at version 1, b at 2
        with pytest.raises(RuntimeError) as e:
            z.sum().backward()
        found.append(re.search(r"is at version \d+", str(e.value)).group(0))
    assert found[0] == found[1]


def test_an_input_no_edge_leads_to_is_unused_not_run():
    """autograd.grad of a no_grad view (requires grad, no node): nothing leads to it, so no
    node runs (a freed graph is not touched) and it is unused (sweep seed 4361)."""
    texts = []
    for T in (torch, ilt):
        x = T.tensor([[1.27, -1.31], [-1.1, 0.85]], requires_grad=True)
        y = x * 1
        y.sum().backward()
        with T.no_grad():
            v = y.t()
        with pytest.raises(RuntimeError) as e:
            T.autograd.grad(y.sum(), [v])
        texts.append(str(e.value))
        y2 = x * 2
        with T.no_grad():
            w = y2[0]
        g = T.autograd.grad((y2 * 3).sum(), [w, x], allow_unused=True)
        assert g[0] is None and g[1].tolist() == [[6.0, 6.0], [6.0, 6.0]]
    assert texts[0] == texts[1]


ROOT_RESHAPED = [
    "t0 = T.ones(2, 3, requires_grad=True)\nt3 = t0.sum()\nwith T.no_grad(): t3.unsqueeze_(0)\n"
    "t3.backward()",
    "t0 = T.ones(2, 3, requires_grad=True)\nt4 = t0.sum(1)\nwith T.no_grad(): t4.unsqueeze_(0)\n"
    "t4.backward(T.ones(1, 2))",
    "t0 = T.zeros(1, 3, dtype=T.float64, requires_grad=True)\nt3 = t0.sum(1)\n"
    "with T.no_grad(): t3.squeeze_()\nt3.exp().sum().backward()",
]


@pytest.mark.parametrize("src", ROOT_RESHAPED)
def test_a_root_reshaped_under_no_grad_is_summed_to_its_nodes_shape(src):
    """torch's validate_outputs also runs on the root gradients: a root whose shape changed
    under no_grad (unsqueeze_) is summed back to what its node recorded (sweep seed 11701)."""
    got = []
    for T in (torch, ilt):
        ns = {"T": T}
        try:
            exec(src, ns)  # noqa: S102
            got.append(ns["t0"].grad.tolist())
        except RuntimeError as e:
            got.append(str(e))
    assert got[0] == got[1]
