"""A float sum or mean of a Paddle tensor adds in Paddle 3.3.1's CPU order (Eigen's tree and
mean reducers over every axis, one by one from 0 over some axes; ops/cascade_sum.py), so its
last bits are Paddle's: the sum of eight centred float32 values is 2.98e-08 there (and 0.0
in PyTorch's order, 5.96e-08 in numpy's)."""
from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
import inplace_lab.paddle as ilp  # noqa: E402


def _same_bits(got, ref):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    assert np.array_equal(got, ref, equal_nan=True), (got - ref)


@pytest.mark.parametrize("seed", range(4))
def test_sums_and_means_are_paddles_to_the_bit(seed):
    rng = np.random.default_rng(seed)
    sizes = [1, 2, 3, 5, 8, 9, 16, 17, 33, 100, 257, 1000]
    for trial in range(60):
        nd = int(rng.integers(1, 4))
        shape = [int(x) for x in rng.choice(sizes, nd)]
        if np.prod(shape) > 100_000:
            continue
        dt = ["float32", "float64"][trial % 2]
        values = (rng.standard_normal(shape) * np.exp(rng.standard_normal(shape) * 3)).astype(dt)
        k = int(rng.integers(0, nd + 1))
        axis = sorted(rng.choice(nd, k, replace=False).tolist()) if k else None
        keepdim = bool(trial % 3 == 0)
        transpose = nd > 1 and trial % 4 == 1
        for lib in (paddle, ilp):
            t = lib.to_tensor(values)
            if transpose:
                t = t.transpose(list(range(nd))[::-1])
            if lib is paddle:
                ref = [t.sum(axis=axis, keepdim=keepdim).numpy(),
                       t.mean(axis=axis, keepdim=keepdim).numpy(), lib.sum(t).numpy()]
            else:
                got = [t.sum(axis=axis, keepdim=keepdim).numpy(),
                       t.mean(axis=axis, keepdim=keepdim).numpy(), lib.sum(t).numpy()]
        for g, r in zip(got, ref):
            _same_bits(g, r)


@pytest.mark.parametrize("n", [7, 8, 15, 16, 17, 1000, 8192, 8193, 20000, 70001])
def test_the_full_reduction_splits_as_eigens_tree(n):
    """Over 1024 packets (8192 floats) Eigen halves the range on a packet boundary."""
    values = (np.random.default_rng(n).standard_normal(n) * 1e3).astype("float32")
    _same_bits(ilp.to_tensor(values).sum().numpy(), paddle.to_tensor(values).sum().numpy())
    _same_bits(ilp.to_tensor(values).mean().numpy(), paddle.to_tensor(values).mean().numpy())


def test_a_centred_mean_is_paddles_not_zero():
    """Paddle seed 62621: sqrt(|m / (m + 3)|) of a mean that is 3.7e-09 in Paddle's order."""
    def prog(P):
        t1 = P.to_tensor([[1.95, -0.38], [1.16, -0.28], [-1.41, -0.32], [-1.34, 0.62]],
                         dtype="float32", stop_gradient=False)
        t4 = t1.mean()
        t8 = P.sqrt(P.abs(P.divide(t4, t4 + 3.0)))
        return t8.item(), t1.sum().item(), P.sum(t1, axis=0).numpy().tolist()
    assert prog(ilp) == prog(paddle)
    assert prog(ilp)[0] != 0.0


def test_torch_tensors_keep_torchs_order():
    """The same program on ``inplace_lab.torch`` adds in PyTorch's order (0.0 here)."""
    import inplace_lab.torch as ilt

    x = ilt.tensor([[1.95, -0.38], [1.16, -0.28], [-1.41, -0.32], [-1.34, 0.62]])
    torch = pytest.importorskip("torch")
    ref = torch.tensor([[1.95, -0.38], [1.16, -0.28], [-1.41, -0.32], [-1.34, 0.62]])
    assert x.sum().item() == ref.sum().item()
    assert x.mean().item() == ref.mean().item()


def test_broadcast_gradients_reduce_in_paddles_order():
    """A bias broadcast over a batch: Paddle adds its gradient row by row (PyTorch in its
    cascade), through the engine's array formulas and through the tensor ones."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((300, 40)) * 100).astype("float32")
    w = (rng.standard_normal((300, 40)) * 10).astype("float32")
    b = rng.standard_normal(40).astype("float32")

    def grads(P):
        bt = P.to_tensor(b, stop_gradient=False)
        b2 = P.to_tensor(b.reshape(1, 40), stop_gradient=False)
        ((P.to_tensor(x) + bt) * P.to_tensor(w)).sum().backward()
        (P.to_tensor(x) * b2).sum().backward()
        return bt.grad.numpy(), b2.grad.numpy()
    for g, r in zip(grads(ilp), grads(paddle)):
        _same_bits(g, r)
