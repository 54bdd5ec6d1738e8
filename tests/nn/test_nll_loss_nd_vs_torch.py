"""nll_loss / cross_entropy of inputs with spatial dims: ATen's nll_loss_nd.

A 4-d input goes to nll_loss2d (NllLoss2DBackward0); any other rank above 2 is viewed as
(N, C, 1, -1) first and, for reduction='none', viewed back. Values, input gradients, the
graph's node names and the errors (dtype of the class weight, sizes) against torch 2.13.
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab.torch as T

torch = pytest.importorskip("torch")


def _run(M, xs, ts, red="mean", w=None, fn="nll", ii=-100):
    F = M.nn.functional
    x = M.tensor(np.linspace(-2, 1, int(np.prod(xs))).reshape(xs), requires_grad=True)
    t = M.tensor(np.arange(int(np.prod(ts))).reshape(ts) % xs[1])
    ww = None if w is None else M.tensor(w, dtype=M.float32 if w.dtype.kind == "f" else M.int64)
    try:
        y = (F.nll_loss if fn == "nll" else F.cross_entropy)(x, t, weight=ww, reduction=red,
                                                             ignore_index=ii)
        (y.sum() if red == "none" else y).backward()
    except Exception as e:  # noqa: BLE001 - the error is the observation
        return type(e).__name__, str(e)
    g = y.grad_fn
    return (np.round(y.tolist(), 10).tolist(), np.round(x.grad.tolist(), 10).tolist(),
            type(g).__name__, [type(f).__name__ for f, _ in g.next_functions if f is not None])


CASES = [
    ((2, 3, 4, 5), (2, 4, 5)), ((2, 3, 4), (2, 4)), ((2, 3, 2, 2, 2), (2, 2, 2, 2)),
    ((2, 3, 4, 5), (2, 4, 5), "none"), ((2, 3, 4), (2, 4), "none"),
    ((2, 3, 2, 2, 2), (2, 2, 2, 2), "none"),
    ((2, 3, 4, 5), (2, 4, 5), "sum", np.array([1.0, 2.0, 0.5])),
    ((2, 3, 4, 5), (2, 4, 5), "mean", None, "ce"), ((2, 3, 4), (2, 4), "none", None, "ce"),
    ((2, 3, 4, 5), (2, 4, 5), "mean", None, "nll", 1),
    # errors: weight dtype, batch and spatial sizes, target rank
    ((4, 3), (4,), "mean", np.array([1.0, 2.0, 3.0])), ((4, 3), (4,), "mean", np.array([1, 2, 3])),
    ((2, 3, 4, 5), (2, 20)), ((2, 3, 4), (3, 4)), ((2, 3, 4), (2, 5)), ((2, 3, 4, 5), (2, 4, 6)),
]


@pytest.mark.parametrize("case", CASES, ids=[str(c[:2]) + str(len(c)) for c in CASES])
def test_nll_loss_nd_matches_torch(case):
    assert _run(T, *case) == _run(torch, *case)
