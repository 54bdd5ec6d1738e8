"""Differential helpers for the ``paddle.nn.functional`` tests: build inputs from numpy on
both libraries, run a function, back-propagate a fixed random cotangent, and compare the
result and every gradient (see ``_loss_harness.same`` for what is compared)."""
from __future__ import annotations

import numpy as np

from ._loss_harness import _run, ilp, paddle  # noqa: F401


def _compare(a, b, rtol, atol):
    """Errors: same builtin class and first line; tensors: shape, dtype, stop_gradient and
    values within rtol/atol (float32 sums taken in another order differ near zero)."""
    if isinstance(a, tuple) and a and a[0] == "raised":
        builtin = next(c for c in a[1].__mro__ if c.__module__ == "builtins")
        assert isinstance(b, tuple) and b and b[0] == "raised", (a, b)
        assert issubclass(b[1], builtin) and b[2] == a[2], (a, b)
        return
    assert not (isinstance(b, tuple) and b and b[0] == "raised"), (a, b)
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _compare(x, y, rtol, atol)
        return
    if a is None or b is None:
        assert a is None and b is None, (a, b)
        return
    assert list(a.shape) == list(b.shape), (a.shape, b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (a.dtype, b.dtype)
    assert bool(a.stop_gradient) == bool(b.stop_gradient), (a.stop_gradient, b.stop_gradient)
    np.testing.assert_allclose(np.asarray(b.numpy()), np.asarray(a.numpy()), rtol=rtol,
                               atol=atol)


def same(fn, rtol=1e-5, atol=1e-5):
    """fn(pd) -> a tensor or a list of tensors; run on real Paddle, then on the facade."""
    _compare(_run(fn, paddle), _run(fn, ilp), rtol, atol)


def rand(*shape, seed=0, dtype="float32"):
    return np.asarray(np.random.RandomState(seed).randn(*shape)).astype(dtype)


def grads(call, *arrays, trainable=None, cotangent_seed=7):
    """fn(pd) -> [out, grad of each trainable array]: call(F, *tensors) is the function under
    test; arrays that are ``None`` pass through; ``trainable`` (default: every float array)
    names which inputs get gradients."""

    def fn(pd):
        ts = []
        for i, a in enumerate(arrays):
            a = np.asarray(a) if isinstance(a, np.generic) else a
            if a is None or not isinstance(a, np.ndarray):
                ts.append(a)
                continue
            learn = (a.dtype.kind == "f") if trainable is None else (i in trainable)
            ts.append(pd.to_tensor(a, stop_gradient=not learn))
        out = call(pd.nn.functional, *ts)
        res = [out]
        learners = [t for t in ts if hasattr(t, "stop_gradient") and not t.stop_gradient]
        if learners:
            ct = np.random.RandomState(cotangent_seed).randn(*out.shape).astype(
                str(out.dtype).split(".")[-1])
            (out * pd.to_tensor(ct)).sum().backward()
            res += [t.grad for t in learners]
        return res

    return fn


def check(call, *arrays, rtol=1e-5, atol=1e-5, **kw):
    same(grads(call, *arrays, **kw), rtol=rtol, atol=atol)
