"""The Paddle 3.3.1 names that the new torch-level table ops give ``inplace_lab.paddle`` where
Paddle's signature maps directly onto PyTorch's (axis -> dim, x -> input): each program runs
on paddle and on the facade; values, dtype, shape and gradients must agree.

Not tested here because Paddle's signature differs (the facade would need its own adapter):
``allclose`` (Paddle returns a 0-d bool tensor), ``diag(offset=, padding_value=)``,
``bucketize(sorted_sequence=)``, ``nansum``'s positional ``dtype``, ``rot90(axes=)``,
``broadcast_tensors(list)``.
"""
from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
import inplace_lab.paddle as ilpaddle  # noqa: E402

A = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], dtype=np.float32)
N = np.array([[1.0, np.nan, 3.0], [np.nan, 5.0, -6.0]], dtype=np.float32)


def observe(P, fn, data, grad):
    xs = [P.to_tensor(d, stop_gradient=not grad) for d in data]
    out = fn(P, *xs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    seen = [(list(o.shape), str(o.dtype).split(".")[-1], o.numpy()) for o in outs]
    if grad:
        total = None
        for o in outs:
            s = (o * P.to_tensor(np.arange(1, o.size + 1, dtype=np.float32).reshape(o.shape))).sum()
            total = s if total is None else total + s
        total.backward()
        seen.append([x.grad.numpy() for x in xs])
    return seen


CASES = [
    ("flatten", lambda P, x: P.flatten(x, 0, 1), [A], True),
    ("flatten_kw", lambda P, x: P.flatten(x, start_axis=1, stop_axis=-1), [A], True),
    ("reshape", lambda P, x: P.reshape(x, [3, 2]), [A], True),
    ("reshape_kw", lambda P, x: P.reshape(x=x, shape=[-1]), [A], True),
    ("isclose", lambda P, x, y: P.isclose(x, y), [A, A + 1e-6], False),
    ("isclose_kw", lambda P, x: P.isclose(x=x, y=x, equal_nan=True), [N], False),
    ("diag_1d", lambda P, x: P.diag(x[0], 1), [A], True),
    ("diag_2d", lambda P, x: P.diag(x, -1), [A], True),
    ("diff", lambda P, x: P.diff(x), [A], True),
    ("diff_kw", lambda P, x, y: P.diff(x, n=1, axis=0, prepend=y), [A, A[:1]], True),
    ("diff_n2", lambda P, x: P.diff(x, n=2), [A], True),
    ("diff_method", lambda P, x: x.diff(axis=0), [A], True),
    ("meshgrid", lambda P, x, y: P.meshgrid(x, y), [A[0], A[1, :2]], True),
    ("meshgrid_list", lambda P, x, y: P.meshgrid([x, y]), [A[0], A[1, :2]], True),
    ("repeat_interleave", lambda P, x: P.repeat_interleave(x, 2), [A], True),
    ("repeat_interleave_axis", lambda P, x: P.repeat_interleave(x, 2, axis=1), [A], True),
    ("repeat_interleave_t", lambda P, x: P.repeat_interleave(x, P.to_tensor([1, 2]), axis=0),
     [A], True),
    ("searchsorted", lambda P, s, v: P.searchsorted(s, v), [np.array([1, 3, 5, 7]),
                                                           np.array([[3, 6], [0, 9]])], False),
    ("searchsorted_right", lambda P, s, v: P.searchsorted(s, v, out_int32=True, right=True),
     [np.array([1, 3, 5, 7]), np.array([[3, 6], [0, 9]])], False),
    ("bucketize", lambda P, v, s: P.bucketize(v, s, right=True),
     [np.array([[3, 6], [0, 9]]), np.array([1, 3, 5, 7])], False),
    ("nansum", lambda P, x: P.nansum(x), [N], True),
    ("nansum_axis", lambda P, x: P.nansum(x, axis=1, keepdim=True), [N], True),
    ("nansum_dtype_kw", lambda P, x: P.nansum(x, axis=0, dtype="float64"), [N], False),
    ("nanmean", lambda P, x: P.nanmean(x), [N], True),
    ("nanmean_axis", lambda P, x: P.nanmean(x, 1, True), [N], True),
    ("nansum_method", lambda P, x: x.nansum(axis=0), [N], True),
    ("isclose_method", lambda P, x: x.isclose(x), [A], False),
]


@pytest.mark.parametrize("name,fn,data,grad", CASES, ids=[c[0] for c in CASES])
def test_paddle_names_match_paddle(name, fn, data, grad):
    ref = observe(paddle, fn, data, grad)
    got = observe(ilpaddle, fn, data, grad)
    assert len(ref) == len(got)
    for r, g in zip(ref, got):
        if isinstance(r, tuple):
            assert g[:2] == r[:2], (name, r[:2], g[:2])
            np.testing.assert_allclose(g[2], r[2], rtol=1e-6, equal_nan=True)
        else:
            for rg, gg in zip(r, g):
                np.testing.assert_allclose(gg, rg, rtol=1e-6)
