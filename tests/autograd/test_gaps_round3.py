"""Autograd faithfulness gaps, round 3: each behaviour checked against the real library.

fmod/remainder's saved values; Paddle's put_along_axis reductions; inference tensors.
(The DataLoader's worker processes are in tests/utils/test_dataloader_workers.py.)
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
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


# ---- Paddle's put_along_axis: every reduction differentiated as Paddle 3.3.1 -------------------

def _put_run(lib, a0, idx, v0, axis, reduce, inc, w, inplace):
    """y = put_along_axis(arr*1, ...); backward of (y*w).sum(): (y, arr.grad, values.grad)."""
    a = lib.to_tensor(a0, stop_gradient=False)
    v = lib.to_tensor(v0, stop_gradient=False) if isinstance(v0, np.ndarray) else v0
    x = a * 1
    i = lib.to_tensor(idx)
    if inplace:
        y = x.put_along_axis_(i, v, axis, reduce=reduce, include_self=inc)
    else:
        y = lib.put_along_axis(x, i, v, axis, reduce=reduce, include_self=inc)
    (y * lib.to_tensor(w)).sum().backward()
    vg = v.grad.numpy() if isinstance(v0, np.ndarray) else None
    return y.numpy(), a.grad.numpy(), vg


_REDUCES = ["assign", "add", "mul", "multiply", "mean", "amax", "amin"]


def _put_compare(*case):
    paddle = pytest.importorskip("paddle")
    import inplace_lab.paddle as ip

    want, got = _put_run(paddle, *case), _put_run(ip, *case)
    for p_, q in zip(want, got):
        assert (p_ is None) == (q is None)
        if p_ is not None:
            assert p_.shape == q.shape
            np.testing.assert_allclose(q, p_, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("reduce", _REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_put_along_axis_gradients_match_paddle_with_repeated_indices_and_ties(reduce,
                                                                              include_self):
    a0 = np.array([[1.0, 0.0, 3.0], [4.0, 5.0, 6.0]], "float32")  # a zero: mul's nan
    idx = np.array([[0, 0, 1], [1, 1, 1]])
    v0 = np.array([[1.0, 1.0, 7.0], [5.0, 5.0, 0.0]], "float32")  # ties with arr's 1 and 5
    w = np.arange(6, dtype="float32").reshape(2, 3) + 1
    _put_compare(a0, idx, v0, 1, reduce, include_self, w, False)


@pytest.mark.parametrize("reduce", _REDUCES)
def test_put_along_axis_inplace_gradients_match_paddle(reduce):
    a0 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32")
    idx = np.array([[0, 0, 2], [1, 1, 1]])
    v0 = np.array([[10.0, 20.0, 30.0], [2.0, 3.0, 4.0]], "float32")
    _put_compare(a0, idx, v0, 1, reduce, True, np.ones((2, 3), "float32"), True)


def test_put_along_axis_broadcast_values_and_a_number_match_paddle():
    a0 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32")
    w = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], "float32")
    for reduce in _REDUCES:
        _put_compare(a0, np.array([[0], [2]]), np.array([[2.0], [3.0]], "float32"), 1, reduce,
                     True, w, False)
        _put_compare(a0, np.array([[0, 0, 1]]), 1.5, 0, reduce, False, w, False)
        _put_compare(a0, np.array([[1, 0, 1], [1, 1, 0]]), np.array([[2.0, 3.0, 4.0]], "float32"),
                     0, reduce, True, w, False)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_put_along_axis_gradients_match_paddle_on_random_cases(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    nd = int(rng.integers(1, 4))
    shape = tuple(int(n) for n in rng.integers(1, 4, nd))
    axis = int(rng.integers(0, nd))
    ishape = list(shape)
    ishape[axis] = int(rng.integers(1, 5))
    idx = rng.integers(0, shape[axis], ishape)
    a0 = rng.integers(-2, 3, shape).astype("float32")  # small integers: many ties and zeros
    v0 = rng.integers(-2, 3, [1 if rng.random() < 0.3 else n for n in ishape]).astype("float32")
    _put_compare(a0, idx, v0, axis, data.draw(st.sampled_from(_REDUCES)),
                 data.draw(st.booleans()), rng.normal(size=shape).astype("float32"),
                 data.draw(st.booleans()))


@pytest.mark.parametrize("reduce", ["assign", "mul", "amin", "mean"])
@pytest.mark.parametrize("written", ["arr", "result"])
def test_put_along_axis_writing_arr_or_result_afterwards_breaks_backward_as_paddle(reduce,
                                                                                  written):
    paddle = pytest.importorskip("paddle")
    import inplace_lab.paddle as ip

    got = {}
    for lib in (paddle, ip):
        a = lib.to_tensor(np.array([[1.0, 0.0, 3.0], [4.0, 5.0, 6.0]], "float32"),
                          stop_gradient=False)
        x = a * 1
        y = lib.put_along_axis(x, lib.to_tensor(np.array([[0, 1], [2, 2]])),
                               lib.to_tensor(np.ones((2, 2), "float32")), 1, reduce)
        (x if written == "arr" else y).add_(lib.to_tensor(1.0))
        got[lib] = _outcome(lambda: y.sum().backward())
    assert got[paddle][0] == got[ip][0] == "RuntimeError"
    assert got[ip][1].startswith("(PermissionDenied) Tensor '' used in gradient computation "
                                 "has been modified by an inplace")


# ---- inference tensors used outside inference_mode ---------------------------------------------

def _inference_program(lib):
    """Everything torch answers about an inference tensor made with requires_grad=True."""
    out = []
    with lib.inference_mode():
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2)
        out.append((a.requires_grad, a.is_inference(), a.is_leaf, a.grad_fn is None))
        out.append(((a * 2).requires_grad, (a * 2).is_inference()))  # nothing recorded inside
        out.append(_outcome(lambda: b.requires_grad_().requires_grad))  # allowed inside
    c = lib.ones(2)
    with lib.inference_mode():
        d = lib.ones(2)
    w = lib.ones(2, requires_grad=True)
    out.append((a.requires_grad, a.is_inference()))
    y = a * 2  # the number is wrapped into a normal tensor: recorded, with an edge to a
    out.append((y.requires_grad, y.grad_fn.name(), y.is_inference()))
    y.sum().backward()
    out.append(a.grad.tolist())
    out.append(_outcome(lambda: d.requires_grad_()))
    out.append(_outcome(lambda: setattr(d, "requires_grad", True)))
    out.append(_outcome(lambda: (w * d).grad_fn.name()))  # mul would save d for backward
    out.append(_outcome(lambda: (w + d).grad_fn.name()))  # add saves nothing
    out.append(_outcome(lambda: (a * w).sum().backward()))  # mul would save a
    out.append(_outcome(lambda: d.add_(1)))
    out.append(_outcome(lambda: d._version))
    out.append((d.clone().is_inference(), d.detach().is_inference(), c.is_inference()))
    return out


def test_inference_tensors_outside_the_mode_match_torch():
    got, want = _inference_program(il), _inference_program(torch)
    assert got == want
