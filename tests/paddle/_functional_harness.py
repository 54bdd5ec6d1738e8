"""Differential helpers for the ``paddle.nn.functional`` tests: build inputs from numpy on
both libraries, run a function, back-propagate a fixed random cotangent, and compare the
result and every gradient (see ``_loss_harness.same`` for what is compared)."""
from __future__ import annotations

import numpy as np

from ._loss_harness import _compare, _run, ilp, paddle  # noqa: F401


def same(fn, rtol=1e-5, atol=1e-5):
    """As ``_loss_harness.same`` with an absolute tolerance too: float32 sums of a few dozen
    terms taken in another order differ by ~1e-6 near zero."""
    import numpy.testing as npt

    orig = npt.assert_allclose

    def close(actual, desired, rtol=rtol, atol=0, **kw):
        orig(actual, desired, rtol=rtol, atol=max(atol, _atol), **kw)

    _atol = atol
    npt.assert_allclose = close
    try:
        _compare(_run(fn, paddle), _run(fn, ilp), rtol)
    finally:
        npt.assert_allclose = orig


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
