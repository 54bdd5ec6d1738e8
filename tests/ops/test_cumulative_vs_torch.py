"""cumsum / cumprod bit for bit against torch 2.13: values (PyTorch's CPU scans accumulate
float32 in double and round once), gradients (reversed_cumsum is flip-cumsum-flip), and the
trivial case where the backward hands the incoming gradient on unchanged (so a leaf copies it
into .grad, at version 1: sweep seed 6224)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ilt = pytest.importorskip("inplace_lab.torch")

CASES = [((1, 3), 0), ((2, 3), 1), ((2, 3), 0), ((5,), 0), ((), 0), ((4, 7), -1), ((300,), 0),
         ((3, 1, 4), 1), ((2, 50), 1)]


def _run(T, shape, dim, dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape) if shape else np.float64(0.3)
    g = np.random.default_rng(1).standard_normal(shape) if shape else np.float64(0.7)
    x = T.tensor(a, dtype=dtype, requires_grad=True)
    y = T.tensor(a * 0.9 + 0.1, dtype=dtype, requires_grad=True)
    gt = T.tensor(g, dtype=dtype)
    x.cumsum(dim).backward(gt)
    (y.cumprod(dim) * gt).sum().backward()
    with T.no_grad():
        vals = (x.cumsum(dim).tolist(), y.cumprod(dim).tolist())
    return vals, x.grad.tolist(), x.grad._version, y.grad.tolist()


@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cumsum_cumprod_match_torch_bit_for_bit(shape, dim, dtype):
    got = _run(ilt, shape, dim, getattr(ilt, dtype))
    want = _run(torch, shape, dim, getattr(torch, dtype))
    assert got == want
