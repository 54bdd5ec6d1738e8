"""Autograd faithfulness gaps, round 3: each behaviour checked against the real library.

fmod/remainder's saved values; Paddle's put_along_axis reductions; inference tensors.
(The DataLoader's worker processes are in tests/utils/test_dataloader_workers.py.)
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402


def _outcome(fn):
    """What a call does: ("ok", value) or (error type name, message)."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the error is the observed behaviour
        name = "RuntimeError" if isinstance(e, RuntimeError) else type(e).__name__
        return (name, str(e).split("\n")[0][:90])


# ---- fmod / remainder: what the node saves ------------------------------------------------------

@pytest.mark.parametrize("op", ["fmod", "remainder"])
@pytest.mark.parametrize("other", [2, 2.0, -1.5])
def test_number_other_is_not_saved(op, other):
    for lib in (torch, il):
        x = lib.tensor([5.0, -3.0, 2.5], requires_grad=True)
        fn = getattr(lib, op)(x, other).grad_fn
        assert fn.name() == op.capitalize() + "Backward0"
        assert len(fn.next_functions) == 1
        assert not hasattr(fn, "_saved_other")
        assert not hasattr(fn, "_saved_self")


@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_tensor_other_saves_self_and_other_only_when_other_requires_grad(op):
    got = {}
    for lib in (torch, il):
        x = lib.tensor([5.0, -3.0, 2.5], requires_grad=True)
        t = lib.tensor([2.0, 2.0, -2.0], requires_grad=True)
        fn = getattr(lib, op)(x, t).grad_fn
        fn2 = getattr(lib, op)(x, lib.tensor([2.0, 2.0, 2.0])).grad_fn
        got[lib] = (fn.name(), fn._saved_self.tolist(), fn._saved_other.tolist(),
                    fn2._saved_self, fn2._saved_other)
    assert got[torch] == got[il]
    assert got[il][3] is None and got[il][4] is None


@pytest.mark.parametrize("op", ["fmod", "remainder"])
@pytest.mark.parametrize("other_grad", [False, True])
def test_changing_self_after_the_op_breaks_backward_only_if_self_was_saved(op, other_grad):
    got = {}
    for lib in (torch, il):
        x = lib.tensor([5.0, -3.0, 2.5], requires_grad=True)
        t = lib.tensor([2.0, 2.0, -2.0], requires_grad=other_grad)
        a = x * 1
        y = getattr(lib, op)(a, t)
        a.add_(1)
        got[lib] = _outcome(lambda: y.sum().backward() or x.grad.tolist())
    assert got[torch] == got[il]
    assert (got[il][0] == "RuntimeError") == other_grad


@pytest.mark.parametrize("v", [2 ** 70, -2 ** 70, 2 ** 63])
@pytest.mark.parametrize("call", ["fmod", "remainder", "fmod_", "remainder_"])
def test_a_number_other_still_gets_torchs_scalar_conversion(v, call):
    got = {}
    for lib in (torch, il):
        x = lib.tensor([5.0, -3.0])
        fn = (lambda: getattr(x, call)(v).tolist()) if call.endswith("_") else \
            (lambda: getattr(lib, call)(x, v).tolist())
        got[lib] = (_outcome(fn), x._version, x.tolist())
    assert got[torch] == got[il]
