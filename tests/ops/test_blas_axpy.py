"""add/sub with ``alpha`` through BLAS axpy (ops/blas.py): PyTorch's fused multiply-add.

torch computes ``a.add(b, alpha=k)`` as ``fma(b, k, a)`` (one rounding, ``k`` cast to the
tensor's float type); two numpy ufuncs round twice. Where the BLAS path applies (same-shape
C-contiguous float32/float64, no shared memory, finite non-zero alpha) the result must be
torch's bit for bit, in place, out of place and with ``out=``; everywhere else the numpy
path runs and the usual tolerance applies. Also: one version bump, no thread pool woken
(blocks of at most ``_CHUNK`` elements), and special values (``0 * inf``) as torch.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab as il  # noqa: E402
from inplace_lab.ops import blas  # noqa: E402

SIZES = [1, 7, 16, 33, blas._CHUNK - 1, blas._CHUNK, blas._CHUNK + 5, 3 * blas._CHUNK + 17]
DTYPES = [(np.float32, torch.float32), (np.float64, torch.float64)]


def _pair(n, npd, seed):
    r = np.random.default_rng(seed)
    a = (r.standard_normal(n) * r.choice([1e-3, 1.0, 1e3], n)).astype(npd)
    return a, r.standard_normal(n).astype(npd)


@pytest.mark.parametrize("npd,td", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("alpha", [-1e-3, 0.37, 3, -2.5])
def test_in_place_add_and_sub_are_torchs_bits(npd, td, n, alpha):
    a, b = _pair(n, npd, n)
    for name in ("add_", "sub_"):
        t = torch.tensor(a.copy())
        getattr(t, name)(torch.tensor(b), alpha=alpha)
        x = il.tensor(a.copy())
        before = x._version
        ptr = x.data_ptr()
        getattr(x, name)(il.tensor(b), alpha=alpha)
        assert np.array_equal(x.numpy(), t.numpy()), name
        assert x._version == before + 1 and x.data_ptr() == ptr


@pytest.mark.parametrize("npd,td", DTYPES, ids=["f32", "f64"])
def test_out_of_place_and_out_are_torchs_bits_and_layout(npd, td):
    a, b = _pair(4 * 300, npd, 1)
    a, b = a.reshape(4, 300), b.reshape(4, 300)
    ta, tb, ia, ib = torch.tensor(a), torch.tensor(b), il.tensor(a), il.tensor(b)
    for fn in ("add", "sub"):
        ref = getattr(torch, fn)(ta, tb, alpha=0.3)
        got = getattr(il, fn)(ia, ib, alpha=0.3)
        assert np.array_equal(got.numpy(), ref.numpy()) and got.stride() == ref.stride()
        to, io = torch.empty(4, 300, dtype=td), il.empty(4, 300, dtype=il.float32 if
                                                         npd is np.float32 else il.float64)
        getattr(torch, fn)(ta, tb, alpha=-7, out=to)
        getattr(il, fn)(ia, ib, alpha=-7, out=io)
        assert np.array_equal(io.numpy(), to.numpy())
    # the operands are untouched
    assert np.array_equal(ia.numpy(), a) and np.array_equal(ib.numpy(), b)


def test_the_numpy_path_still_serves_everything_else():
    r = np.random.default_rng(5)
    a, b = r.standard_normal((30, 40)), r.standard_normal((30, 40))
    cases = [
        lambda L, x, y: x.t().add_(y.t(), alpha=0.5),             # transposed target
        lambda L, x, y: x.add_(y[:, :1], alpha=0.5),              # broadcast operand
        lambda L, x, y: x.add_(x, alpha=2.0),                     # the target itself
        lambda L, x, y: x[2:].add_(y[:-2], alpha=0.25).t(),       # sliced operands
        lambda L, x, y: L.add(x.t(), y.t(), alpha=-3.0),          # F-order operands
        lambda L, x, y: x.to(L.float16).add_(y.to(L.float16), alpha=0.5),
        lambda L, x, y: L.ones(3, dtype=L.int64).add_(L.ones(3, dtype=L.int64), alpha=3),
    ]
    for k, prog in enumerate(cases):
        ref = prog(torch, torch.tensor(a), torch.tensor(b))
        got = prog(il, il.tensor(a), il.tensor(b))
        assert got.stride() == ref.stride(), k
        np.testing.assert_allclose(got.numpy().astype(np.float64),
                                   ref.numpy().astype(np.float64), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("npd,td", DTYPES, ids=["f32", "f64"])
def test_special_values_follow_torch(npd, td):
    a = np.array([1.0, np.inf, -np.inf, np.nan, 0.0, -0.0, 2.0], npd)
    b = np.array([np.inf, 1.0, np.inf, 1.0, -0.0, 0.0, np.nan], npd)
    for alpha in (0, 0.0, -0.0, 1e-30, -4.0, 1e300, float("nan"), float("inf")):
        t = torch.tensor(a.copy())
        try:
            t.add_(torch.tensor(b), alpha=alpha)
        except RuntimeError:  # (torch refuses an alpha its dtype cannot hold)
            continue
        x = il.tensor(a.copy())
        x.add_(il.tensor(b), alpha=alpha)
        np.testing.assert_array_equal(x.numpy(), t.numpy(), err_msg=str(alpha))
        assert np.array_equal(np.signbit(x.numpy()), np.signbit(t.numpy())), alpha


def test_blas_is_used_only_where_it_is_exact():
    f = np.ones(10, np.float32)
    assert blas.axpy(np, f, np.ones(10, np.float32), 0.5, f, f.dtype) is f
    assert blas.axpy(np, f, np.ones(10, np.float32), 0, f, f.dtype) is None  # 0 * inf
    assert blas.axpy(np, f, np.ones(10, np.float32), float("nan"), f, f.dtype) is None
    assert blas.axpy(np, f, f, 0.5, f, f.dtype) is None  # shared memory
    assert blas.axpy(np, f, np.ones(10), 0.5, f, f.dtype) is None  # mixed dtypes
    assert blas.axpy(np, f, np.ones(1, np.float32), 0.5, f, f.dtype) is None  # broadcast
    h = np.ones(10, np.float16)
    assert blas.axpy(np, h, h.copy(), 0.5, h, h.dtype) is None
    g = np.ones((4, 6), np.float32)
    assert blas.axpy(np, g.T, np.ones((6, 4), np.float32), 0.5, g.T, g.dtype) is None


def _thread_ticks():
    out = {}
    for t in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{t}/stat") as fh:
            v = fh.read().rsplit(")", 1)[1].split()
        out[t] = int(v[11]) + int(v[12])
    return out


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="Linux /proc only")
def test_large_updates_stay_on_the_calling_thread():
    """A woken scipy OpenBLAS worker spins next to numpy's GEMM threads (2x slower steps)."""
    import threading
    import time

    y, x = np.ones(1_000_000, np.float32), np.ones(1_000_000, np.float32)
    blas.axpy(np, y, x, 1e-3, y, y.dtype)
    me = str(threading.get_native_id())
    before = _thread_ticks()
    for _ in range(100):
        blas.axpy(np, y, x, 1e-3, y, y.dtype)
    time.sleep(0.1)
    after = _thread_ticks()
    others = {k: after[k] - before.get(k, 0) for k in after if k != me}
    assert sum(others.values()) <= 2, others  # (a tick is 10 ms: a spinning worker shows tens)
