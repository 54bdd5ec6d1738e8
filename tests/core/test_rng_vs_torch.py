"""``torch.manual_seed(s)`` gives torch 2.13's numbers: every random program below runs on
torch and on ``inplace_lab.torch`` and must draw the same values (``inplace_lab/rng.py``).

Integer draws, uniforms and normals are compared exactly where the kernels are torch's to the
bit (the float32 Box-Muller included: avx_mathfun's log and sincos); draws that go through
numpy's float64 log/sin/cos (libm's in torch) or arithmetic after them within a few ulps.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402


def _draws(lib, prog):
    out = prog(lib)
    if not isinstance(out, (list, tuple)):
        out = [out]
    return [np.asarray(o.detach().numpy() if hasattr(o, "detach") else o) for o in out]


def _same(prog, exact=True, seed=0):
    torch.manual_seed(seed)
    ref = _draws(torch, prog)
    il.manual_seed(seed)
    got = _draws(il, prog)
    assert len(ref) == len(got)
    for i, (r, g) in enumerate(zip(ref, got)):
        assert r.shape == g.shape and r.dtype == g.dtype, (i, r.shape, g.shape, r.dtype, g.dtype)
        if exact:
            np.testing.assert_array_equal(g, r, err_msg=f"draw {i}")
        else:
            np.testing.assert_allclose(g, r, rtol=2e-6, atol=1e-6, err_msg=f"draw {i}")


@pytest.mark.parametrize("seed", [0, 1, 2 ** 40 + 3])
def test_factories_draw_torchs_numbers(seed):
    _same(lambda T: [T.rand(5), T.rand(3, dtype=T.float64), T.randint(0, 100, (7,)),
                     T.randint(3, (2, 2)), T.randint(-5, 2 ** 40, (3,)), T.randperm(10),
                     T.randn(3), T.randn(5), T.randn(2, dtype=T.float64),
                     T.randn(17, dtype=T.float64), T.rand(20, dtype=T.float16),
                     T.randint(-3, 3, (4,), dtype=T.float32), T.randn(1)], seed=seed)


def test_block_normals_are_bit_exact_and_keep_the_stream_in_step():
    _same(lambda T: [T.randn(16), T.randn(37), T.randn(70000)[-40:], T.randn(2, 3, 4),
                     T.randn(16, dtype=T.float16), T.randn(33, dtype=T.float16),
                     T.randn(20, dtype=T.float16), T.rand(4), T.empty(70001).normal_(2.5, 0.3)])


def test_small_normals_share_torchs_cached_second_value():
    # randn(3) keeps the sin of its second pair; the next randn(1) returns it
    _same(lambda T: [T.randn(3), T.randn(1), T.randn(1), T.rand(2), T.randn(5)])


def test_generator_objects():
    def prog(T):
        g = T.Generator().manual_seed(7)
        fresh = T.Generator()
        return [T.randn(4, generator=g), T.rand(3, generator=g), T.randperm(6, generator=g),
                T.empty(3).uniform_(generator=g), T.randn(2),
                np.array([fresh.initial_seed(), g.initial_seed()], dtype=np.uint64)]

    _same(prog)


def test_in_place_fills_in_memory_order():
    _same(lambda T: [T.empty(3, 4).uniform_(-2, 3), T.empty(4, 3).t().normal_(1, 2),
                     T.empty(20).normal_(0.5, 3), T.empty(5, dtype=T.float64).uniform_(1, 2),
                     T.empty(3, 5)[:, ::2].uniform_(), T.empty(2, 3, 4).permute(2, 0, 1).random_(9)],
          exact=False)


def test_discrete_and_other_distributions():
    _same(lambda T: [T.empty(6).bernoulli_(0.3), T.bernoulli(T.rand(2, 3)),
                     T.bernoulli(T.rand(4, dtype=T.float64)), T.empty(3, 2).bernoulli_(T.rand(3, 1)),
                     T.empty(4, dtype=T.int64).random_(0, 50), T.empty(4).random_(10),
                     T.empty(4, dtype=T.int64).random_(), T.empty(3, dtype=T.uint8).random_(),
                     T.empty(3, dtype=T.bool).random_(), T.empty(3).random_(),
                     T.empty(4).exponential_(2.0), T.empty(4).geometric_(0.2),
                     T.empty(4).log_normal_(), T.empty(3).cauchy_(),
                     T.randn_like(T.ones(2, 3)), T.rand_like(T.ones(4)),
                     T.randint_like(T.ones(3), 7)], exact=False)


def test_multinomial_and_normal_with_tensor_arguments():
    _same(lambda T: [T.multinomial(T.tensor([0.1, 0.5, 0.4]), 1),
                     T.multinomial(T.tensor([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]), 2),
                     T.multinomial(T.tensor([0.2, 0.8]), 6, replacement=True),
                     T.normal(T.zeros(3), T.ones(3)), T.normal(2.0, 3.0, size=(4,))],
          exact=False)


def test_modules_initialise_train_and_drop_out_as_torch():
    def prog(T):
        lin = T.nn.Linear(5, 3)
        conv = T.nn.Conv2d(2, 3, 3)
        net = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Dropout(0.5), T.nn.Linear(8, 2))
        y = net(T.randn(6, 4))
        y.pow(2).mean().backward()
        emb = T.nn.Embedding(5, 3)
        T.nn.init.xavier_normal_(lin.weight)
        w1 = lin.weight.detach().clone()
        T.nn.init.trunc_normal_(lin.weight)  # p > 0.3: normal_ and redraws
        w2 = lin.weight.detach().clone()
        T.nn.init.trunc_normal_(lin.weight, mean=0.0, std=1.0, a=0.0, b=0.1)  # rejection
        T.nn.init.kaiming_normal_(conv.weight)
        return [conv.bias, y, net[0].weight.grad, T.nn.functional.dropout(T.ones(3, 4), 0.3),
                emb.weight, w1, w2, lin.weight, conv.weight]

    _same(prog, exact=False, seed=1)


def test_state_round_trips_in_torchs_bytes():
    def prog(T):
        T.randn(3)  # (a cached normal is part of the state)
        s = T.get_rng_state()
        a = T.randn(5)
        T.set_rng_state(s)
        return [s, a, T.randn(5), np.array([T.initial_seed()], dtype=np.uint64)]

    _same(prog, seed=12345)
    s = il.seed()
    assert il.initial_seed() == s
    assert tuple(il.get_rng_state().shape) == (5056,)
    with pytest.raises(RuntimeError, match="RNG state size to be 3"):
        il.set_rng_state(il.tensor([1, 2, 3], dtype=il.uint8))


@pytest.mark.parametrize("call", [
    "randint(5)", "randint()", "randint(5, 3, (2,))", "randn(2, dtype=T.int64)", "rand(-1)",
    "randperm(3, dtype=T.bool)", "empty(2).bernoulli_(1.5)", "empty(2).geometric_(0)",
    "multinomial(T.tensor([0.0, 0.0]), 1)", "multinomial(T.tensor([0.5, 0.5]), 3)",
    "normal(T.zeros(2), -T.ones(2))", "poisson(-T.ones(2))", "Generator().manual_seed(2**70)",
    "set_rng_state(T.zeros(10, dtype=T.uint8))", "randint(0, 2**70, (2,))",
    "empty(3, dtype=T.int8).random_(0, 300)", "empty(3, dtype=T.uint8).random_(-1, 5)",
    "bernoulli(T.tensor([1.5]))", "empty(2).uniform_(2, 1)"])
def test_bad_random_calls_fail_as_torch(call):
    def outcome(T):
        try:
            eval("T." + call, {"T": T})
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            return type(e).__name__, str(e)
        return "ok", ""

    assert outcome(il) == outcome(torch)


def test_data_loader_shuffle_and_random_split_are_torchs():
    def prog(T):
        ds = T.utils.data.TensorDataset(T.arange(10.0))
        batches = [b[0] for b in T.utils.data.DataLoader(ds, batch_size=4, shuffle=True)]
        g = T.Generator().manual_seed(5)
        seeded = [b[0] for b in T.utils.data.DataLoader(ds, batch_size=5, shuffle=True,
                                                          generator=g)]
        split = T.utils.data.random_split(range(10), [0.3, 0.7])
        sub = list(T.utils.data.SubsetRandomSampler([10, 20, 30, 40]))
        rep = list(T.utils.data.RandomSampler(range(7), replacement=True, num_samples=40))
        return batches + seeded + [np.array(split[0].indices), np.array(sub), np.array(rep)]

    _same(prog, seed=3)


@pytest.mark.parametrize("fill", ["bernoulli_(0.3)", "bernoulli_(T.rand(3))", "random_()",
                                  "random_(5)", "random_(1, 5)", "normal_()", "uniform_(0, 2)",
                                  "exponential_()", "cauchy_()", "geometric_(0.3)",
                                  "log_normal_()"])
def test_random_fill_nodes_keep_nothing_as_torchs(fill):
    def names(T):
        x = T.ones(3, requires_grad=True).clone()
        eval(f"x.{fill}", {"T": T, "x": x})
        return x.grad_fn.name(), [a for a in dir(x.grad_fn) if a.startswith("_saved")]

    assert names(il) == names(torch)


def test_generator_state_tensors_and_fork_rng():
    def prog(T):
        g = T.Generator().manual_seed(9)
        T.randn(3, generator=g)
        s = g.get_state()
        a = T.randn(4, generator=g)
        g.set_state(s)
        with T.random.fork_rng():
            T.randn(7)
        return [s, a, T.randn(4, generator=g), T.randn(2), T.random.get_rng_state()[:64],
                np.array([T.default_generator.initial_seed()], dtype=np.uint64)]

    _same(prog, seed=5)
    assert str(il.Generator().get_state().dtype) == "torch.uint8"


@pytest.mark.parametrize("name,prog", [
    ("orthogonal", lambda T: T.nn.init.orthogonal_(T.empty(3, 4))),
    ("sparse", lambda T: T.nn.init.sparse_(T.empty(4, 3), 0.5)),
    ("kaiming_uniform", lambda T: T.nn.init.kaiming_uniform_(T.empty(3, 4))),
    ("rnn", lambda T: T.nn.GRU(3, 2).weight_ih_l0),
    ("bernoulli_generator", lambda T: T.bernoulli(T.full((5,), 0.5),
                                                  generator=T.Generator().manual_seed(1))),
    ("dropout2d", lambda T: T.nn.functional.dropout2d(T.ones(2, 3, 2, 2), 0.5)),
    ("alpha_dropout", lambda T: T.nn.functional.alpha_dropout(T.ones(6), 0.5, True)),
    ("feature_alpha_dropout", lambda T: T.nn.functional.feature_alpha_dropout(
        T.ones(2, 3, 2), 0.5, True)),
    ("rrelu", lambda T: T.nn.functional.rrelu(T.tensor([-1.0, 2.0, -3.0, 0.0, 4.0, -0.5]),
                                              training=True)),
    ("gumbel_softmax", lambda T: T.nn.functional.gumbel_softmax(T.zeros(2, 3), hard=True)),
    ("multinomial_replacement", lambda T: T.multinomial(T.tensor([[1.0, 2, 3], [3, 2, 1]]), 5,
                                                        replacement=True)),
    ("embedding_padding", lambda T: T.nn.Embedding(4, 2, padding_idx=0).weight),
    ("multihead_attention", lambda T: T.nn.MultiheadAttention(4, 2).in_proj_weight),
    ("conv_transpose", lambda T: T.nn.ConvTranspose2d(2, 3, 2).weight),
])
def test_modules_and_functionals_that_draw(name, prog):
    _same(lambda T: [prog(T), T.rand(3)], exact=False, seed=3)


@pytest.mark.parametrize("name,make", [
    ("poisson", lambda D, T: D.Poisson(T.tensor([2.0, 15.0, 0.0, 40.0]))),
    ("binomial", lambda D, T: D.Binomial(50, T.tensor([0.2, 0.7, 0.05]))),
    ("binomial_small", lambda D, T: D.Binomial(T.tensor([5.0, 1000.0, 0.0]),
                                               T.tensor([0.3, 0.05, 0.5]))),
    ("gamma", lambda D, T: D.Gamma(T.tensor([2.0, 0.5]), T.tensor([1.0, 3.0]))),
    ("gamma_float64", lambda D, T: D.Gamma(T.tensor([0.3, 5.0], dtype=T.float64),
                                           T.tensor([1.0, 1.0], dtype=T.float64))),
    ("beta", lambda D, T: D.Beta(T.tensor([2.0]), T.tensor([1.0]))),
    ("dirichlet", lambda D, T: D.Dirichlet(T.tensor([0.5, 1.0, 2.0]))),
    ("student_t", lambda D, T: D.StudentT(T.tensor([2.0]))),
    ("normal", lambda D, T: D.Normal(T.zeros(3), T.ones(3))),
    ("categorical", lambda D, T: D.Categorical(T.tensor([0.2, 0.3, 0.5]))),
    ("gumbel", lambda D, T: D.Gumbel(T.zeros(2), T.ones(2))),
    ("multivariate_normal", lambda D, T: D.MultivariateNormal(T.zeros(2), T.eye(2))),
])
def test_distribution_samples_are_torchs(name, make):
    _same(lambda T: [make(T.distributions, T).sample((2,)), T.rand(2)], exact=False, seed=5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_and_poisson_functions(dtype):
    def prog(T):
        dt = getattr(T, dtype)
        c = T.tensor([5.0, 100.0, 20.0, 0.0, 1000.0, 37.0, 12.0], dtype=dt)
        p = T.tensor([0.3, 0.4, 0.9, 0.5, 0.05, 0.77, 1.0], dtype=dt)
        return [T.binomial(c, p), T.binomial(c.expand(3, 7), p),
                T.poisson(T.tensor([[1.0, 12.0]], dtype=dt).expand(2, 2)), T.rand(2)]

    _same(prog)


def test_weighted_random_sampler_is_torchs_multinomial():
    def prog(T):
        w = [0.1, 0.9, 0.4, 0.0]
        S = T.utils.data.WeightedRandomSampler
        return [np.array(list(S(w, 6))), np.array(list(S(w, 4, replacement=False))),
                np.array(list(S(w, 3, replacement=False,
                                generator=T.Generator().manual_seed(3))))]

    _same(prog)


@pytest.mark.parametrize("call", ["empty(3).random_(2**30)", "empty(3).random_(2**25)",
                                  "empty(3, dtype=T.float64).random_(2**30)",
                                  "empty(3, dtype=T.int64).random_(2**33)",
                                  "empty(3, dtype=T.int8).random_(-5, None)",
                                  "empty(3, dtype=T.float16).random_(0, 65504)",
                                  "empty(3).random_(5, None)", "randint(0, 2**29, (3,))",
                                  "empty(2, dtype=T.bool).random_(0, None)"])
def test_random_ranges_and_warnings_are_torchs(call):
    import warnings

    def prog(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = eval("T." + call, {"T": T})
        return [r, np.array([str(x.message).split(" (Triggered")[0] for x in w])]

    _same(prog)


@pytest.mark.parametrize("init", ["uniform_(w, -1, 2, generator=g)", "normal_(w, 1, 2, generator=g)",
                                  "xavier_uniform_(w, generator=g)", "xavier_normal_(w, generator=g)",
                                  "kaiming_uniform_(w, generator=g)", "kaiming_normal_(w, generator=g)",
                                  "orthogonal_(w, generator=g)", "sparse_(w, 0.5, generator=g)",
                                  "trunc_normal_(w, generator=g)"])
def test_init_functions_draw_from_the_generator_given(init):
    def prog(T):
        g = T.Generator().manual_seed(11)
        w = T.empty(4, 5)
        eval("T.nn.init." + init, {"T": T, "w": w, "g": g})
        return [w, T.rand(2)]  # (the default stream: untouched, but for sparse_'s randperm)

    _same(prog, exact=False)


class _RandomItems:
    """A map-style dataset whose items draw: each worker's stream is seeded as torch's."""

    def __init__(self, T):
        self.T = T

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.T.rand(1) + i


def test_loader_workers_draw_torchs_numbers():
    def prog(T):
        loader = T.utils.data.DataLoader(_RandomItems(T), batch_size=2, shuffle=True,
                                         num_workers=2)
        return [b.view(-1) for b in loader]

    _same(prog)
