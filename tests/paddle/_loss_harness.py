"""Differential harness for the paddle loss tests: run one snippet on real Paddle and on
the facade, compare tensors (shape, dtype, stop_gradient, values with a tolerance) and
errors (builtin class and first message line)."""
from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
import inplace_lab.paddle as ilp  # noqa: E402

def _first_line(e):
    return str(e).split("\n")[0].split(" (at /paddle")[0]


def _run(fn, pd):
    try:
        return fn(pd)
    except Exception as e:  # noqa: BLE001 (the error itself is what we compare)
        return ("raised", type(e), _first_line(e))


def _compare(a, b, rtol):
    if isinstance(a, tuple) and a and a[0] == "raised":
        builtin = next(c for c in a[1].__mro__ if c.__module__ == "builtins")
        assert isinstance(b, tuple) and b[0] == "raised", (a, b)
        assert issubclass(b[1], builtin) and b[2] == a[2], (a, b)
        return
    assert not (isinstance(b, tuple) and b and b[0] == "raised"), (a, b)
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _compare(x, y, rtol)
        return
    if a is None:
        assert b is None
        return
    assert list(a.shape) == list(b.shape), (a.shape, b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (a.dtype, b.dtype)
    assert bool(a.stop_gradient) == bool(b.stop_gradient)
    np.testing.assert_allclose(np.asarray(b.numpy()), np.asarray(a.numpy()), rtol=rtol,
                               atol=1e-6)


def same(fn, rtol=1e-5):
    """fn(pd) -> a tensor or list of tensors; pd is real paddle, then the facade."""
    _compare(_run(fn, paddle), _run(fn, ilp), rtol)


def loss_and_grads(call, x, label, weight=None):
    """Result and gradients of a functional loss: [loss, x.grad(, weight.grad)]."""

    def fn(pd):
        xt = pd.to_tensor(x, stop_gradient=False)
        lt = pd.to_tensor(label)
        wt = None if weight is None else pd.to_tensor(weight, stop_gradient=False)
        out = call(pd.nn.functional, xt, lt, wt)
        out.sum().backward()
        return [out, xt.grad] + ([] if wt is None else [wt.grad])

    return fn


