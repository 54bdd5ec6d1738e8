"""A float sum adds in PyTorch's CPU order (ops/cascade_sum.py), so its last bits are torch
2.13's: full and per-dim sums, means and the gradients that broadcasting reduces, over
contiguous, transposed, sliced and expanded inputs, bit for bit."""
from __future__ import annotations

import random

import numpy as np
import pytest

import inplace_lab.torch as il
from inplace_lab.ops.cascade_sum import GRAIN_SIZE, torch_sum

torch = pytest.importorskip("torch")


def _same_bits(got, ref):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    assert np.array_equal(got, ref, equal_nan=True), (got - ref)
    assert np.array_equal(np.signbit(got), np.signbit(ref))  # (+0.0 and -0.0 too)


def _cases(seed, count):
    """(numpy values, a function making the same strided tensor from a module, dims)."""
    rnd = random.Random(seed)
    rng = np.random.default_rng(seed)
    sizes = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 100, 130, 257, 1000, 5000]
    for _ in range(count):
        nd = rnd.randint(1, 4)
        shape = [rnd.choice(sizes) for _ in range(nd)]
        while np.prod(shape) >= GRAIN_SIZE:
            shape[rnd.randrange(nd)] = rnd.choice([1, 2, 3, 5])
        dt = rnd.choice([np.float32, np.float64])
        values = (rng.standard_normal(shape) * rnd.choice([1.0, 1e4])).astype(dt)
        kind, perm, step = rnd.random(), list(range(nd)), rnd.choice([1, 2])
        rnd.shuffle(perm)

        def make(T, values=values, kind=kind, perm=perm, step=step):
            t = T.tensor(values)
            if kind < 0.3:
                return t.permute(*perm)
            if kind < 0.5:
                return t[tuple(slice(None, None, step) for _ in range(t.ndim))]
            if kind < 0.6 and 3 * t.numel() < GRAIN_SIZE:  # (more: torch splits it over threads)
                return t.unsqueeze(0).expand(3, *t.shape)
            return t

        k = rnd.randint(0, nd)
        dims = tuple(rnd.sample(range(nd), k)) if k else None
        yield make, dims, rnd.random() < 0.5


@pytest.mark.parametrize("seed", range(6))
def test_sums_and_means_are_torchs_to_the_bit(seed):
    for make, dims, keepdim in _cases(seed, 120):
        ref, got = make(torch), make(il)
        if dims is None:
            _same_bits(got.sum().numpy(), ref.sum().numpy())
            _same_bits(got.mean().numpy(), ref.mean().numpy())
        else:
            _same_bits(got.sum(dims, keepdim=keepdim).numpy(), ref.sum(dims, keepdim=keepdim).numpy())
            _same_bits(got.mean(dims, keepdim=keepdim).numpy(),
                       ref.mean(dims, keepdim=keepdim).numpy())


@pytest.mark.parametrize("n", [1, 3, 4, 7, 8, 9, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023,
                               1024, 1025, 4096, 4097, 20000, GRAIN_SIZE - 1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_one_dimensional_sums_every_cascade_level(n, dtype):
    """Below one vector, the four interleaved accumulators; then the vector lanes; every 16
    rows a cascade level moves up (16, 256, 4096 rows of four vectors)."""
    values = (np.random.default_rng(n).standard_normal(n) * 1e3).astype(dtype)
    _same_bits(il.tensor(values).sum().numpy(), torch.tensor(values).sum().numpy())


def test_a_centred_sum_is_exactly_zero_as_in_torch():
    """Wide seed 78347: the mean of six float32 values is exactly 0 in torch's order (6e-08
    pairwise), so log_ gives -inf, not -16.6."""
    def prog(T):
        t0 = T.tensor([[0.23, -1.08, 1.7], [-0.94, -0.47, 0.56]], dtype=T.float32,
                      requires_grad=True)
        m = t0.mean()
        return m.item(), t0.sum().item(), m.detach().clone().log_().item()
    assert prog(il) == prog(torch)
    assert prog(il)[0] == 0.0


def test_negative_zeros_sum_to_positive_zero():
    """The kernel's output starts at +0.0: a sum of -0.0s is +0.0, as torch's."""
    for shape, dims in [((3,), None), ((2, 3), 0), ((2, 3), 1), ((1,), None), ((2, 1), 1)]:
        values = np.full(shape, -0.0, np.float32)
        ref = torch.tensor(values).sum(dims) if dims is not None else torch.tensor(values).sum()
        got = il.tensor(values).sum(dims) if dims is not None else il.tensor(values).sum()
        _same_bits(got.numpy(), ref.numpy())


def test_broadcast_gradients_reduce_in_torchs_order():
    """The engine's sum_to (a bias broadcast over a batch) is the same sum."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((300, 10)) * 100).astype(np.float32)
    b = rng.standard_normal(10).astype(np.float32)
    w = (rng.standard_normal((300, 10)) * 10).astype(np.float32)

    def grads(T):
        bt = T.tensor(b, requires_grad=True)
        ((T.tensor(x) + bt) * T.tensor(w)).sum().backward()
        return bt.grad.numpy()
    _same_bits(grads(il), grads(torch))


def test_what_the_order_does_not_cover_falls_back_to_numpy():
    a = np.ones(GRAIN_SIZE, np.float32)
    assert torch_sum(a, (), False, a.dtype) is None  # (torch splits it over threads)
    assert torch_sum(a.astype(np.float16), (), False, np.float16) is None
    assert torch_sum(a[:10].astype(np.complex64), (), False, np.complex64) is None
    assert torch_sum(np.ones(0, np.float32), (), False, np.float32) is None
    assert float(il.ones(GRAIN_SIZE).sum()) == GRAIN_SIZE


@pytest.mark.parametrize("seed", range(2))
def test_nansum_reads_nan_as_zero_in_the_same_order(seed):
    rng = np.random.default_rng(seed)
    for make, dims, keepdim in _cases(seed + 100, 60):
        ref, got = make(torch), make(il)
        mask = rng.random(tuple(ref.shape)) < 0.2
        ref = ref.masked_fill(torch.tensor(mask), float("nan"))
        got = got.masked_fill(il.tensor(mask), float("nan"))
        if dims is None:
            _same_bits(got.nansum().numpy(), ref.nansum().numpy())
        else:
            _same_bits(got.nansum(dims, keepdim=keepdim).numpy(),
                       ref.nansum(dims, keepdim=keepdim).numpy())


def test_a_sum_into_another_dtype_casts_first():
    """``sum(dtype=torch.float64)`` casts (keeping the layout), then sums in float64."""
    values = (np.random.default_rng(3).standard_normal((40, 30)) * 100).astype(np.float32)
    for make in (lambda T: T.tensor(values), lambda T: T.tensor(values).t(),
                 lambda T: T.tensor(values)[::2]):
        for lib in (il, torch):
            t = make(lib)
            r = [t.sum(dtype=lib.float64).numpy(), t.mean(dtype=lib.float64).numpy(),
                 t.sum(0, dtype=lib.float64).numpy(),
                 lib.arange(100, dtype=lib.int32).reshape(10, 10).sum(1, dtype=lib.float32).numpy()]
            if lib is il:
                got = r
            else:
                ref = r
        for g, r in zip(got, ref):
            _same_bits(g, r)
