"""``paddle.seed(s)`` gives Paddle 3.3.1's numbers: each random program runs on paddle and on
``inplace_lab.paddle`` and must draw the same values (``rng.PaddleGenerator``: mt19937_64
through ``std::seed_seq``, libstdc++'s uniform, polar-normal, Lemire and shuffle draws)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
import inplace_lab.paddle as ilp  # noqa: E402


def _run(lib, prog, seed):
    lib.seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [np.asarray(t.numpy() if hasattr(t, "numpy") else t) for t in prog(lib)]


@pytest.mark.parametrize("seed", [0, 7, 2 ** 33 + 5])
def test_random_programs_draw_paddles_numbers(seed):
    def prog(P):
        lin = P.nn.Linear(4, 3)  # XavierUniform weight
        conv = P.nn.Conv2D(2, 3, 3)  # Normal(0, sqrt(2 / fan_in)) weight
        st = P.get_rng_state()
        a = P.rand([3])
        P.set_rng_state(st)
        return [P.rand([5]), P.randn([7]), P.randn([4], dtype="float64"),
                P.rand([3], dtype="float64"), P.randint(0, 1000, [6]), P.randint(-5, 5, [3, 2]),
                P.randperm(7), P.randperm(10), P.uniform([4], min=-2.0, max=3.0),
                P.normal(1.0, 2.0, [5]), P.standard_normal([3]), lin.weight, lin.bias,
                conv.weight, P.nn.functional.dropout(P.ones([10]), 0.4),
                P.rand_like(P.ones([3])), P.randn_like(P.ones([3])),
                P.randint_like(P.ones([4]), 0, 9), a, P.rand([3]), P.randn([100])]

    ref, got = _run(paddle, prog, seed), _run(ilp, prog, seed)
    assert len(ref) == len(got)
    for i, (r, g) in enumerate(zip(ref, got)):
        assert r.shape == g.shape and r.dtype == g.dtype, (i, r.dtype, g.dtype)
        np.testing.assert_allclose(g, r, rtol=1e-6, atol=1e-7, err_msg=f"draw {i}")


def test_random_split_and_subset_sampler_follow_paddle_seed():
    def prog(P):
        a, b = P.io.random_split(list(range(10)), [3, 7])
        sub = list(P.io.SubsetRandomSampler([10, 20, 30, 40, 50]))
        return [np.array(a.indices), np.array(b.indices), np.array(sub)]

    for ref, got in zip(_run(paddle, prog, 11), _run(ilp, prog, 11)):
        np.testing.assert_array_equal(got, ref)


def test_in_place_fills_bernoulli_and_multinomial_draw_paddles_numbers():
    def prog(P):
        x, y, z = P.zeros([5]), P.zeros([6]), P.zeros([4])
        x.uniform_(-1, 1)
        y.normal_()
        z.exponential_()
        return [x, y, z, P.bernoulli(P.full([6], 0.5)), P.bernoulli(P.full([3], 0.5, "float64")),
                P.bernoulli(P.zeros([4]), p=0.7),
                P.multinomial(P.to_tensor([0.2, 0.3, 0.5]), 4, replacement=True),
                P.multinomial(P.to_tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]), 3), P.rand([3])]

    for i, (r, g) in enumerate(zip(_run(paddle, prog, 1), _run(ilp, prog, 1))):
        assert r.shape == g.shape and r.dtype == g.dtype, (i, r.dtype, g.dtype)
        np.testing.assert_allclose(g, r, rtol=1e-6, atol=1e-7, err_msg=f"draw {i}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_truncated_normal_initializer_is_paddles_kernel(dtype):
    def prog(P):
        TN = P.nn.initializer.TruncatedNormal
        w = P.create_parameter([300, 40], dtype, default_initializer=TN(0.0, 0.02))
        v = P.create_parameter([500], dtype, default_initializer=TN(1.0, 0.5, a=0.5, b=1.2))
        return [w, v, P.rand([2])]

    for r, g in zip(_run(paddle, prog, 0), _run(ilp, prog, 0)):
        assert r.dtype == g.dtype
        np.testing.assert_allclose(g, r, rtol=1e-12 if dtype == "float64" else 0, atol=0)
