"""torch.distributions on the inplace_lab.torch facade, against torch 2.13.

Each test runs one program on real torch and on ``inplace_lab.torch`` with the same
parameters and compares what a student can see: values (log_prob, entropy, cdf, moments,
KL), dtypes, shapes, grad_fn names, gradients w.r.t. the parameters, reprs and the
validation errors (type and message). Samples are compared by shape, dtype, support and
moments, and rsample's gradients through a fixed noise draw (the distributions' samplers are
not all torch's kernels: tests/core/test_rng_vs_torch.py covers the ones that are).
"""
from __future__ import annotations

import math
import warnings

import pytest

T = pytest.importorskip("torch")

import inplace_lab.torch as L  # noqa: E402


def describe(r):
    """What the comparison looks at, as plain Python data."""
    if isinstance(r, (tuple, list)):
        return [describe(p) for p in r]
    if isinstance(r, dict):
        return {k: describe(v) for k, v in r.items()}
    if not hasattr(r, "grad_fn"):
        if r is None or isinstance(r, (bool, int, float, str)):
            return r
        return repr(r)
    return {"values": r.detach().tolist(), "dtype": str(r.dtype), "shape": tuple(r.shape),
            "grad_fn": r.grad_fn.name() if r.grad_fn is not None else None,
            "requires_grad": r.requires_grad, "version": r._version}


def run(mod, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = describe(fn(mod, mod.distributions))
        except Exception as e:  # noqa: BLE001 - compared
            out = (type(e).__name__, str(e))
    return out, [(w.category.__name__, str(w.message)) for w in caught
                 if not _numpy_floating_point_warning(w)]


def _numpy_floating_point_warning(w):
    """numpy's 'invalid value encountered in log' from the library's kernels (torch is silent):
    a library-wide gap outside torch.distributions, not compared here."""
    return issubclass(w.category, RuntimeWarning) and " encountered in " in str(w.message)


def _close(a, b, rtol):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(
            a, b, rel_tol=rtol, abs_tol=rtol)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y, rtol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rtol) for k in a)
    return a == b


def same(fn, rtol=1e-5):
    want, got = run(T, fn), run(L, fn)
    assert _close(got, want, rtol), f"\ntorch: {want}\nlab:   {got}"
    return got[0]


def _w(mod, out):
    """A fixed, non-uniform weighting for backward."""
    return mod.arange(out.numel(), dtype=out.dtype).reshape(out.shape).add(1).sin()


def with_grads(make, method, value=None, params=()):
    """Build the distribution from leaf parameters, call ``method`` (with ``value``), backward
    a fixed weighting, return the result and the parameter gradients."""
    def go(mod, D):
        leaves = {}

        def p(name, data, dtype=None):
            t = mod.tensor(data, dtype=dtype, requires_grad=True)
            leaves[name] = t
            return t

        d = make(mod, D, p)
        out = getattr(d, method)
        if callable(out):
            out = out(value(mod)) if value is not None else out()
        if out.requires_grad:
            (out * _w(mod, out)).sum().backward()
        return [out, _grads(leaves)]
    return go


def _grads(leaves):
    """The parameters' .grad values and dtypes (a .grad's own _version is the backward
    kernels' business, not the distribution's)."""
    return {k: None if v.grad is None else (v.grad.tolist(), str(v.grad.dtype))
            for k, v in leaves.items()}


# ---- the distributions, their parameters and values in their support -------------------------

DISTS = {
    "Normal": (lambda m, D, p: D.Normal(p("loc", [0.5, -1.0, 2.0]), p("scale", [1.0, 0.5, 2.5])),
               lambda m: m.tensor([0.3, -2.0, 4.0])),
    "Normal_scalar": (lambda m, D, p: D.Normal(p("loc", 0.5), 2.0), lambda m: m.tensor([0.3, 1.0])),
    "Normal_f64": (lambda m, D, p: D.Normal(p("loc", [0.5, 1.0], m.float64),
                                           p("scale", [1.5, 0.2], m.float64)),
                   lambda m: m.tensor([[0.3, -2.0], [1.0, 1.1]], dtype=m.float64)),
    "Bernoulli_probs": (lambda m, D, p: D.Bernoulli(probs=p("probs", [0.2, 0.7, 0.5])),
                        lambda m: m.tensor([1.0, 0.0, 1.0])),
    "Bernoulli_logits": (lambda m, D, p: D.Bernoulli(logits=p("logits", [-1.0, 0.3, 2.0])),
                         lambda m: m.tensor([1.0, 0.0, 0.0])),
    "Categorical_probs": (lambda m, D, p: D.Categorical(probs=p("probs", [[0.2, 0.3, 0.5],
                                                                          [1.0, 2.0, 1.0]])),
                          lambda m: m.tensor([2, 1])),
    "Categorical_logits": (lambda m, D, p: D.Categorical(logits=p("logits", [[0.2, -1.3, 0.5],
                                                                             [1.0, 2.0, 1.0]])),
                           lambda m: m.tensor([[0, 1], [2, 2]])),
    "OneHotCategorical": (lambda m, D, p: D.OneHotCategorical(logits=p("logits", [0.2, -1.3, 0.5])),
                          lambda m: m.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])),
    "Uniform": (lambda m, D, p: D.Uniform(p("low", [0.0, -1.0]), p("high", [1.0, 3.0])),
                lambda m: m.tensor([0.3, 2.0])),
    "Beta": (lambda m, D, p: D.Beta(p("a", [0.5, 2.0, 3.0]), p("b", [1.5, 2.0, 0.7])),
             lambda m: m.tensor([0.3, 0.5, 0.9])),
    "Gamma": (lambda m, D, p: D.Gamma(p("conc", [0.5, 2.0, 3.0]), p("rate", [1.5, 2.0, 0.7])),
              lambda m: m.tensor([0.3, 1.5, 4.0])),
    "Exponential": (lambda m, D, p: D.Exponential(p("rate", [0.5, 2.0])),
                    lambda m: m.tensor([0.3, 1.5])),
    "Laplace": (lambda m, D, p: D.Laplace(p("loc", [0.5, -1.0]), p("scale", [1.0, 0.5])),
                lambda m: m.tensor([0.3, -2.0])),
    "MultivariateNormal_cov": (
        lambda m, D, p: D.MultivariateNormal(p("loc", [0.5, -1.0]),
                                             covariance_matrix=p("cov", [[2.0, 0.3], [0.3, 1.0]])),
        lambda m: m.tensor([[0.3, -2.0], [1.0, 0.0]])),
    "MultivariateNormal_tril": (
        lambda m, D, p: D.MultivariateNormal(p("loc", [0.5, -1.0, 0.0]),
                                             scale_tril=p("tril", [[1.0, 0.0, 0.0], [0.3, 2.0, 0.0],
                                                                   [-0.5, 0.2, 0.7]])),
        lambda m: m.tensor([0.3, -2.0, 1.0])),
    "MultivariateNormal_prec": (
        lambda m, D, p: D.MultivariateNormal(p("loc", [0.5, -1.0]),
                                             precision_matrix=p("prec", [[2.0, 0.3], [0.3, 1.0]])),
        lambda m: m.tensor([0.3, -2.0])),
    "Independent": (lambda m, D, p: D.Independent(D.Normal(p("loc", [[0.5, -1.0], [0.0, 1.0]]),
                                                           p("scale", [[1.0, 0.5], [2.0, 1.0]])),
                                                               1),
                    lambda m: m.tensor([[0.3, -2.0], [1.0, 1.0]])),
    "Binomial": (lambda m, D, p: D.Binomial(5, probs=p("probs", [0.2, 0.7])),
                 lambda m: m.tensor([1.0, 4.0])),
    "Binomial_logits": (lambda m, D, p: D.Binomial(m.tensor([3.0, 10.0]), logits=p("logits",
                                                                                   [0.2, -0.7])),
                        lambda m: m.tensor([3.0, 4.0])),
    "Poisson": (lambda m, D, p: D.Poisson(p("rate", [0.5, 3.0])), lambda m: m.tensor([0.0, 4.0])),
    "LogNormal": (lambda m, D, p: D.LogNormal(p("loc", [0.5, -1.0]), p("scale", [1.0, 0.5])),
                  lambda m: m.tensor([0.3, 2.0])),
    "Dirichlet": (lambda m, D, p: D.Dirichlet(p("conc", [[0.5, 2.0, 3.0], [1.0, 1.0, 1.0]])),
                  lambda m: m.tensor([0.2, 0.3, 0.5])),
    "RelaxedBernoulli": (lambda m, D, p: D.RelaxedBernoulli(m.tensor(0.5),
                                                            probs=p("probs", [0.2, 0.7])),
                         lambda m: m.tensor([0.3, 0.9])),
    "RelaxedOneHotCategorical": (
        lambda m, D, p: D.RelaxedOneHotCategorical(m.tensor(0.7), logits=p("logits", [0.2, -1.3,
                                                                                      0.5])),
        lambda m: m.tensor([0.2, 0.3, 0.5])),
    "Geometric": (lambda m, D, p: D.Geometric(p("probs", [0.2, 0.7])),
                  lambda m: m.tensor([3.0, 0.0])),
    "Cauchy": (lambda m, D, p: D.Cauchy(p("loc", [0.5, -1.0]), p("scale", [1.0, 0.5])),
               lambda m: m.tensor([0.3, -2.0])),
    "StudentT": (lambda m, D, p: D.StudentT(p("df", [3.0, 5.0]), p("loc", [0.5, -1.0]),
                                            p("scale", [1.0, 0.5])),
                 lambda m: m.tensor([0.3, -2.0])),
    "Chi2": (lambda m, D, p: D.Chi2(p("df", [3.0, 5.0])), lambda m: m.tensor([0.3, 2.0])),
    "HalfNormal": (lambda m, D, p: D.HalfNormal(p("scale", [1.0, 0.5])),
                   lambda m: m.tensor([0.3, 2.0])),
    "Gumbel": (lambda m, D, p: D.Gumbel(p("loc", [0.5, -1.0]), p("scale", [1.0, 0.5])),
               lambda m: m.tensor([0.3, -2.0])),
    "Multinomial": (lambda m, D, p: D.Multinomial(4, probs=p("probs", [0.2, 0.3, 0.5])),
                    lambda m: m.tensor([1.0, 1.0, 2.0])),
    "ContinuousBernoulli": (lambda m, D, p: D.ContinuousBernoulli(p("probs", [0.2, 0.7, 0.5])),
                            lambda m: m.tensor([0.3, 0.9, 0.5])),
    "FisherSnedecor": (lambda m, D, p: D.FisherSnedecor(p("df1", [3.0, 5.0]), p("df2", [5.0, 7.0])),
                       lambda m: m.tensor([0.3, 2.0])),
    "GeneralizedPareto": (lambda m, D, p: D.GeneralizedPareto(p("loc", [0.0, 1.0]),
                                                              p("scale", [1.0, 2.0]),
                                                              p("conc", [0.2, -0.1])),
                          lambda m: m.tensor([0.3, 2.0])),
    "HalfCauchy": (lambda m, D, p: D.HalfCauchy(p("scale", [1.0, 0.5])),
                   lambda m: m.tensor([0.3, 2.0])),
    "InverseGamma": (lambda m, D, p: D.InverseGamma(p("conc", [3.0, 5.0]), p("rate", [1.0, 2.0])),
                     lambda m: m.tensor([0.3, 2.0])),
    "Kumaraswamy": (lambda m, D, p: D.Kumaraswamy(p("a", [3.0, 5.0]), p("b", [1.0, 2.0])),
                    lambda m: m.tensor([0.3, 0.8])),
    "LogisticNormal": (lambda m, D, p: D.LogisticNormal(p("loc", [0.5, -1.0]),
                                                        p("scale", [1.0, 0.5])),
                       lambda m: m.tensor([0.2, 0.3, 0.5])),
    "LowRankMultivariateNormal": (
        lambda m, D, p: D.LowRankMultivariateNormal(p("loc", [0.5, -1.0]), p("W", [[1.0], [0.5]]),
                                                    p("diag", [1.0, 2.0])),
        lambda m: m.tensor([0.3, -2.0])),
    "MixtureSameFamily": (
        lambda m, D, p: D.MixtureSameFamily(D.Categorical(logits=p("logits", [0.3, -0.2])),
                                            D.Normal(p("loc", [0.5, -1.0]),
                                                     p("scale", [1.0, 0.5]))),
        lambda m: m.tensor([0.3, -2.0])),
    "NegativeBinomial": (lambda m, D, p: D.NegativeBinomial(p("count", [3.0, 5.0]),
                                                            p("probs", [0.2, 0.6])),
                         lambda m: m.tensor([1.0, 4.0])),
    "Pareto": (lambda m, D, p: D.Pareto(p("scale", [1.0, 0.5]), p("alpha", [3.0, 4.0])),
               lambda m: m.tensor([1.3, 2.0])),
    "VonMises": (lambda m, D, p: D.VonMises(p("loc", [0.5, -1.0]), p("conc", [1.0, 5.0])),
                 lambda m: m.tensor([0.3, -2.0])),
    "Weibull": (lambda m, D, p: D.Weibull(p("scale", [1.0, 0.5]), p("conc", [3.0, 0.8])),
                lambda m: m.tensor([0.3, 2.0])),
    "Wishart": (lambda m, D, p: D.Wishart(p("df", 4.0), covariance_matrix=p("cov", [[2.0, 0.3],
                                                                                    [0.3, 1.0]])),
                lambda m: m.tensor([[1.0, 0.2], [0.2, 0.5]])),
    "LKJCholesky": (lambda m, D, p: D.LKJCholesky(3, p("conc", 2.0)),
                    lambda m: m.tensor([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]])),
    "HalfNormal_icdf": (lambda m, D, p: D.HalfNormal(p("scale", [1.0, 0.5])),
                        lambda m: m.tensor([0.3, 2.0])),
}

METHODS = ["log_prob", "entropy", "mean", "variance", "stddev", "mode", "cdf", "icdf"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", sorted(DISTS))
def test_values_and_parameter_gradients(name, method):
    make, value = DISTS[name]
    if method == "icdf":
        vals = {"Normal": lambda m: m.tensor([0.1, 0.5, 0.9])}
        value = vals.get(name, lambda m: m.tensor([0.25, 0.75]))
    same(with_grads(make, method, value if method in ("log_prob", "cdf", "icdf") else None),
         rtol=1e-4)


@pytest.mark.parametrize("name", sorted(DISTS))
def test_shapes_support_and_flags(name):
    make, _ = DISTS[name]

    def go(mod, D):
        d = make(mod, D, lambda n, data, dtype=None: mod.tensor(data, dtype=dtype))
        s = d.sample((4, 2))
        out = {"batch": d.batch_shape, "event": d.event_shape, "has_rsample": d.has_rsample,
               "has_enumerate_support": d.has_enumerate_support,
               "sample": (tuple(s.shape), str(s.dtype), s.requires_grad),
               "in_support": bool(d.support.check(s).all()),
               "support": repr(d.support), "repr": repr(d),
               "arg_constraints": sorted((k, repr(v)) for k, v in d.arg_constraints.items())}
        e = d.expand((5,) + tuple(d.batch_shape))
        out["expand"] = (e.batch_shape, e.event_shape, type(e).__name__)
        out["expand_log_prob"] = tuple(e.log_prob(e.sample()).shape)
        if d.has_enumerate_support:
            out["enumerate"] = describe(d.enumerate_support())
        return out
    same(go)


# ---- rsample: the reparameterised gradient through a fixed draw --------------------------------

RSAMPLE = {
    "Normal": (lambda m, D, p: D.Normal(p("loc", [0.5, -1.0]), p("scale", [1.0, 0.5])),
               "loc + eps * scale"),
    "Uniform": (lambda m, D, p: D.Uniform(p("low", [0.0, -1.0]), p("high", [1.0, 3.0])), "affine"),
    "Laplace": (lambda m, D, p: D.Laplace(p("loc", [0.5, -1.0]), p("scale", [1.0, 0.5])), "affine"),
    "Exponential": (lambda m, D, p: D.Exponential(p("rate", [0.5, 2.0])), "scale"),
    "LogNormal": (lambda m, D, p: D.LogNormal(p("loc", [0.5, -1.0]), p("scale", [1.0, 0.5])),
                  "exp"),
    "MultivariateNormal": (
        lambda m, D, p: D.MultivariateNormal(p("loc", [0.5, -1.0]),
                                             scale_tril=p("tril", [[1.0, 0.0], [0.3, 2.0]])),
                                                 "tril"),
}


@pytest.mark.parametrize("name", sorted(RSAMPLE))
def test_rsample_shapes_graph_and_gradient_shapes(name):
    """rsample's shape, dtype and last node; the gradients reach every parameter."""
    make, _ = RSAMPLE[name]

    def go(mod, D):
        leaves = {}

        def p(n, data, dtype=None):
            leaves[n] = mod.tensor(data, dtype=dtype, requires_grad=True)
            return leaves[n]

        d = make(mod, D, p)
        x = d.rsample((3,))
        (x * _w(mod, x)).sum().backward()
        grads = {k: v.grad for k, v in leaves.items()}
        return {"shape": tuple(x.shape), "grad_fn": x.grad_fn.name(), "dtype": str(x.dtype),
                "grad_shapes": {k: tuple(g.shape) for k, g in grads.items()}}
    same(go)


def test_normal_rsample_gradient_matches_the_noise():
    for mod in (T, L):
        mod.manual_seed(3)
        loc = mod.tensor([0.5, -1.0], requires_grad=True)
        scale = mod.tensor([1.0, 0.5], requires_grad=True)
        x = mod.distributions.Normal(loc, scale).rsample((4,))
        x.sum().backward()
        eps = ((x - loc) / scale).detach()
        assert loc.grad.tolist() == [4.0, 4.0]
        assert all(math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)
                   for a, b in zip(scale.grad.tolist(), eps.sum(0).tolist()))
        assert x.grad_fn.name() == "AddBackward0"


def test_mvn_rsample_gradient_matches_the_noise():
    for mod in (T, L):
        mod.manual_seed(3)
        loc = mod.tensor([0.5, -1.0], requires_grad=True)
        tril = mod.tensor([[1.0, 0.0], [0.3, 2.0]], requires_grad=True)
        x = mod.distributions.MultivariateNormal(loc, scale_tril=tril).rsample((5,))
        x.sum().backward()
        eps = mod.linalg.inv(tril.detach()) @ (x - loc).detach().T  # (2, 5)
        want = mod.ones(2, 1) @ eps.sum(1, keepdim=True).T
        assert loc.grad.tolist() == [5.0, 5.0]
        got = (tril.grad * mod.tril(mod.ones(2, 2))).tolist()
        want = (want * mod.tril(mod.ones(2, 2))).tolist()
        assert all(math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5)
                   for ra, rb in zip(got, want) for a, b in zip(ra, rb))


def test_gamma_rsample_gradient_matches_torch_standard_gamma_grad():
    from inplace_lab.torch.distributions import _torch as shim

    alpha = [0.3, 1.0, 2.5, 7.0, 20.0]
    x = [0.05, 0.8, 3.0, 6.0, 18.0]
    want = T._standard_gamma_grad(T.tensor(alpha), T.tensor(x)).tolist()
    got = shim._standard_gamma_grad(L.tensor(alpha), L.tensor(x)).tolist()
    assert all(math.isclose(a, b, rel_tol=1e-3) for a, b in zip(got, want)), (got, want)
    a64 = T.tensor(alpha, dtype=T.float64)
    x64 = T.tensor(x, dtype=T.float64)
    want = T._standard_gamma_grad(a64, x64).tolist()
    got = shim._standard_gamma_grad(L.tensor(alpha, dtype=L.float64), L.tensor(x, dtype=L.float64))
    assert all(math.isclose(a, b, rel_tol=1e-4) for a, b in zip(got.tolist(), want))
    L.manual_seed(0)
    conc = L.tensor([0.5, 3.0], requires_grad=True)
    s = L.distributions.Gamma(conc, L.tensor([1.0, 2.0])).rsample((2,))
    assert s.requires_grad and s.grad_fn.name() == "DivBackward0"
    s.sum().backward()
    assert conc.grad is not None and all(g > 0 for g in conc.grad.tolist())


def test_dirichlet_grad_matches_torch():
    from inplace_lab.torch.distributions import _torch as shim

    x = [[0.2, 0.3, 0.5], [0.05, 0.9, 0.05]]
    conc = [[0.5, 2.0, 3.0], [1.0, 4.0, 0.7]]
    tot = [[5.5] * 3, [5.7] * 3]
    want = T._dirichlet_grad(T.tensor(x), T.tensor(conc), T.tensor(tot)).tolist()
    got = shim._dirichlet_grad(L.tensor(x), L.tensor(conc), L.tensor(tot)).tolist()
    assert _close(got, want, 2e-3), (got, want)


# ---- sampling: shapes, dtypes, seeds, moments ----------------------------------------------------

@pytest.mark.parametrize("name,make,mean,var", [
    ("Normal", lambda D, m: D.Normal(m.tensor(1.0), m.tensor(2.0)), 1.0, 4.0),
    ("Bernoulli", lambda D, m: D.Bernoulli(m.tensor(0.3)), 0.3, 0.21),
    ("Categorical", lambda D, m: D.Categorical(m.tensor([0.2, 0.3, 0.5])), 1.3, 0.61),
    ("Uniform", lambda D, m: D.Uniform(m.tensor(2.0), m.tensor(5.0)), 3.5, 0.75),
    ("Gamma", lambda D, m: D.Gamma(m.tensor(3.0), m.tensor(2.0)), 1.5, 0.75),
    ("Beta", lambda D, m: D.Beta(m.tensor(2.0), m.tensor(3.0)), 0.4, 0.04),
    ("Exponential", lambda D, m: D.Exponential(m.tensor(4.0)), 0.25, 1 / 16),
    ("Laplace", lambda D, m: D.Laplace(m.tensor(1.0), m.tensor(0.5)), 1.0, 0.5),
    ("Poisson", lambda D, m: D.Poisson(m.tensor(3.0)), 3.0, 3.0),
    ("Binomial", lambda D, m: D.Binomial(10, m.tensor(0.3)), 3.0, 2.1),
    ("LogNormal", lambda D, m: D.LogNormal(m.tensor(0.0), m.tensor(0.5)), math.exp(0.125),
     (math.exp(0.25) - 1) * math.exp(0.25)),
    ("Geometric", lambda D, m: D.Geometric(m.tensor(0.25)), 3.0, 12.0),
])
def test_sample_moments(name, make, mean, var):
    L.manual_seed(0)
    n = 40_000
    x = make(L.distributions, L).sample((n,)).double()
    se = math.sqrt(var / n)
    assert abs(x.mean().item() - mean) < 6 * se
    assert abs(x.var().item() - var) < 0.06 * var


def test_samples_reproduce_under_manual_seed_and_dtypes():
    def draw():
        L.manual_seed(7)
        return [L.distributions.Normal(L.zeros(3), 1.0).sample((2,)).tolist(),
                L.distributions.Categorical(logits=L.zeros(4)).sample((5,)).tolist(),
                L.distributions.Dirichlet(L.ones(3)).sample().tolist()]
    assert draw() == draw()
    same(lambda m, D: [D.Categorical(logits=m.zeros(2, 4)).sample((3,)).dtype,
                       D.Bernoulli(logits=m.zeros(2, dtype=m.float64)).sample().dtype,
                       D.Poisson(m.ones(2)).sample().dtype,
                       D.OneHotCategorical(m.ones(3)).sample((2,)).dtype,
                       D.Normal(m.zeros(2, dtype=m.float64), 1.0).rsample().dtype,
                       D.Normal(0.0, 1.0).sample().shape,
                       D.Normal(0.0, 1.0).batch_shape])


def test_sample_has_no_grad_and_rsample_refused_where_torch_refuses():
    same(lambda m, D: D.Normal(m.zeros(2, requires_grad=True), 1.0).sample().requires_grad)
    same(lambda m, D: D.Bernoulli(m.tensor([0.3])).rsample())
    same(lambda m, D: D.Categorical(m.tensor([0.3, 0.7])).rsample())


def test_categorical_normalises_and_exposes_probs_logits():
    same(lambda m, D: [D.Categorical(probs=m.tensor([[1.0, 3.0], [2.0, 2.0]])).probs,
                       D.Categorical(probs=m.tensor([1.0, 3.0])).logits,
                       D.Categorical(logits=m.tensor([1.0, 3.0])).logits,
                       D.Categorical(logits=m.tensor([1.0, 3.0])).probs,
                       D.Bernoulli(logits=m.tensor([0.3])).probs,
                       D.Bernoulli(probs=m.tensor([0.3])).logits,
                       D.Categorical(logits=m.zeros(2, 3)).param_shape])


# ---- validation errors ---------------------------------------------------------------------------

ERRORS = [
    lambda m, D: D.Normal(m.tensor([0.0]), m.tensor([-1.0])),
    lambda m, D: D.Normal(m.tensor([0.0, 1.0]), m.tensor([1.0, 0.0])),
    lambda m, D: D.Normal(0.0, 1.0).log_prob(m.tensor([float("nan")])),
    lambda m, D: D.Bernoulli(m.tensor([1.5])),
    lambda m, D: D.Bernoulli(probs=m.tensor([0.5]), logits=m.tensor([0.0])),
    lambda m, D: D.Bernoulli(),
    lambda m, D: D.Bernoulli(m.tensor([0.5])).log_prob(m.tensor([0.5])),
    lambda m, D: D.Categorical(m.tensor([0.5, -0.1])),
    lambda m, D: D.Categorical(m.tensor([0.5, 0.5])).log_prob(m.tensor([2])),
    lambda m, D: D.Uniform(m.tensor([1.0]), m.tensor([0.0])),
    lambda m, D: D.Uniform(0.0, 1.0).log_prob(m.tensor([2.0])),
    lambda m, D: D.Beta(m.tensor([0.0]), m.tensor([1.0])),
    lambda m, D: D.Gamma(m.tensor([1.0]), m.tensor([1.0])).log_prob(m.tensor([-1.0])),
    lambda m, D: D.Exponential(m.tensor([-1.0])),
    lambda m, D: D.MultivariateNormal(m.zeros(2), m.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda m, D: D.MultivariateNormal(m.zeros(2)),
    lambda m, D: D.MultivariateNormal(m.zeros(2), m.eye(2), precision_matrix=m.eye(2)),
    lambda m, D: D.MultivariateNormal(m.zeros(2), scale_tril=m.tensor([[1.0, 1.0], [0.0, 1.0]])),
    lambda m, D: D.MultivariateNormal(m.zeros(2), m.eye(3)),
    lambda m, D: D.MultivariateNormal(m.zeros(2), m.eye(2)).log_prob(m.zeros(3)),
    lambda m, D: D.Independent(D.Normal(m.zeros(2), 1.0), 2),
    lambda m, D: D.Dirichlet(m.tensor([0.5, -1.0])),
    lambda m, D: D.Dirichlet(m.tensor([0.5, 1.0])).log_prob(m.tensor([0.5, 0.6])),
    lambda m, D: D.Binomial(5, m.tensor([0.5])).log_prob(m.tensor([6.0])),
    lambda m, D: D.Poisson(m.tensor([1.0])).log_prob(m.tensor([1.5])),
    lambda m, D: D.Normal(m.zeros(2), 1.0).log_prob(m.zeros(3)),
    lambda m, D: D.Normal("a", 1.0),
    lambda m, D: D.Normal(m.zeros(2), m.ones(3)),
    lambda m, D: D.Normal(m.tensor([0.0]), m.tensor([-1.0]), validate_args=False).scale,
    lambda m, D: D.Normal(0.0, 1.0).expand((2,)).log_prob(m.tensor([1.0, float("inf")])),
    lambda m, D: D.kl_divergence(D.Normal(0.0, 1.0), D.Beta(1.0, 1.0)),
    lambda m, D: D.Distribution().mean,
    lambda m, D: D.Categorical(m.tensor([0.5, 0.5])).cdf(m.tensor(0)),
    lambda m, D: D.Beta(m.tensor(1.0), m.tensor(1.0)).cdf(m.tensor(0.5)),
    lambda m, D: D.Normal(m.tensor([0.0]), m.tensor([1.0])).expand((3, 2)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_validation_errors(i):
    same(ERRORS[i])


def test_default_validate_args_switch():
    def go(mod, D):
        prev = D.Distribution._validate_args
        try:
            D.Distribution.set_default_validate_args(False)
            d = D.Normal(mod.tensor([0.0]), mod.tensor([-1.0]))
            lp = d.log_prob(mod.tensor([1.0]))
        finally:
            D.Distribution.set_default_validate_args(prev)
        return [lp, d._validate_args, D.Normal(0.0, 1.0)._validate_args]
    same(go)
    same(lambda m, D: D.Distribution.set_default_validate_args(1))


# ---- KL divergence -------------------------------------------------------------------------------

KL = {
    "Normal": lambda m, D, p: (D.Normal(p("l1", [0.5, -1.0]), p("s1", [1.0, 0.5])),
                               D.Normal(p("l2", [0.0, 1.0]), p("s2", [2.0, 0.7]))),
    "Bernoulli": lambda m, D, p: (D.Bernoulli(p("p1", [0.2, 0.7])),
                                  D.Bernoulli(logits=p("p2", [0.1, -0.3]))),
    "Categorical": lambda m, D, p: (D.Categorical(p("p1", [[0.2, 0.3, 0.5]])),
                                    D.Categorical(logits=p("p2", [[0.1, -0.3, 1.0], [0.0, 0.0,
                                                                                     0.0]]))),
    "OneHotCategorical": lambda m, D, p: (D.OneHotCategorical(p("p1", [0.2, 0.3, 0.5])),
                                          D.OneHotCategorical(logits=p("p2", [0.1, -0.3, 1.0]))),
    "MultivariateNormal": lambda m, D, p: (
        D.MultivariateNormal(p("l1", [0.5, -1.0]), p("c1", [[2.0, 0.3], [0.3, 1.0]])),
        D.MultivariateNormal(p("l2", [0.0, 1.0]), scale_tril=p("t2", [[1.0, 0.0], [0.4, 0.7]]))),
    "Independent": lambda m, D, p: (D.Independent(D.Normal(p("l1", [[0.5, -1.0]]), 1.0), 1),
                                    D.Independent(D.Normal(p("l2", [[0.0, 1.0]]),
                                                           p("s2", [[2.0, 0.7]])), 1)),
    "Uniform": lambda m, D, p: (D.Uniform(p("a1", [0.2, 0.0]), p("b1", [0.5, 1.0])),
                                D.Uniform(p("a2", [0.0, 0.5]), p("b2", [1.0, 2.0]))),
    "Beta": lambda m, D, p: (D.Beta(p("a1", [0.5, 2.0]), p("b1", [1.5, 2.0])),
                             D.Beta(p("a2", [1.0, 3.0]), p("b2", [1.0, 0.5]))),
    "Gamma": lambda m, D, p: (D.Gamma(p("a1", [0.5, 2.0]), p("b1", [1.5, 2.0])),
                              D.Gamma(p("a2", [1.0, 3.0]), p("b2", [1.0, 0.5]))),
    "Exponential": lambda m, D, p: (D.Exponential(p("r1", [0.5, 2.0])),
                                    D.Exponential(p("r2", [1.0, 3.0]))),
    "Laplace": lambda m, D, p: (D.Laplace(p("l1", [0.5, -1.0]), p("s1", [1.0, 0.5])),
                                D.Laplace(p("l2", [0.0, 1.0]), p("s2", [2.0, 0.7]))),
    "Dirichlet": lambda m, D, p: (D.Dirichlet(p("c1", [0.5, 2.0, 1.0])),
                                  D.Dirichlet(p("c2", [1.0, 1.0, 3.0]))),
    "Poisson": lambda m, D, p: (D.Poisson(p("r1", [0.5, 2.0])), D.Poisson(p("r2", [1.0, 3.0]))),
    "Normal_Gumbel": lambda m, D, p: (D.Normal(p("l1", [0.5]), p("s1", [1.0])),
                                      D.Gumbel(p("l2", [0.0]), p("s2", [2.0]))),
    "Exponential_Gamma": lambda m, D, p: (D.Exponential(p("r1", [0.5, 2.0])),
                                          D.Gamma(p("a2", [1.0, 3.0]), p("b2", [1.0, 0.5]))),
    "Uniform_Normal": lambda m, D, p: (D.Uniform(p("a1", [0.2]), p("b1", [0.5])),
                                       D.Normal(p("l2", [0.0]), p("s2", [2.0]))),
    "Beta_Uniform": lambda m, D, p: (D.Beta(p("a1", [0.5]), p("b1", [1.5])),
                                     D.Uniform(0.0, p("b2", [1.0]))),
    "LogNormal": lambda m, D, p: (D.LogNormal(p("l1", [0.5]), p("s1", [1.0])),
                                  D.LogNormal(p("l2", [0.0]), p("s2", [2.0]))),
}


@pytest.mark.parametrize("name", sorted(KL))
def test_kl_divergence_and_gradients(name):
    def go(mod, D):
        leaves = {}

        def p(n, data, dtype=None):
            leaves[n] = mod.tensor(data, dtype=dtype, requires_grad=True)
            return leaves[n]

        a, b = KL[name](mod, D, p)
        kl = D.kl_divergence(a, b)
        (kl * _w(mod, kl)).sum().backward()
        return [kl, _grads(leaves), mod.distributions.kl.kl_divergence is D.kl_divergence]
    same(go, rtol=1e-4)


def test_register_kl_and_ambiguity_warning():
    def go(mod, D):
        class MyNormal(D.Normal):
            pass

        @D.register_kl(MyNormal, D.Normal)
        def _kl(p, q):
            return p.loc * 0 + 42.0

        r1 = D.kl_divergence(MyNormal(mod.zeros(2), 1.0), D.Normal(0.0, 1.0))
        r2 = D.kl_divergence(MyNormal(mod.zeros(2), 1.0), MyNormal(0.0, 1.0))
        return [r1, r2]
    same(go)
    same(lambda m, D: D.register_kl(int, D.Normal) and None)
    same(lambda m, D: D.register_kl(D.Normal, D.Normal)(lambda p, q: 0) and None)


# ---- constraints, transforms, TransformedDistribution ---------------------------------------

CONSTRAINTS = {
    "real": lambda m, C: C.real.check(m.tensor([0.0, float("inf"), float("nan")])),
    "positive": lambda m, C: C.positive.check(m.tensor([0.0, 1.0, -1.0])),
    "nonnegative": lambda m, C: C.nonnegative.check(m.tensor([0.0, 1.0, -1.0])),
    "unit_interval": lambda m, C: C.unit_interval.check(m.tensor([0.0, 1.0, 1.5])),
    "simplex": lambda m, C: C.simplex.check(m.tensor([[0.2, 0.8], [0.5, 0.6]])),
    "boolean": lambda m, C: C.boolean.check(m.tensor([0.0, 1.0, 0.5])),
    "integer_interval": lambda m, C: C.integer_interval(0, 3).check(m.tensor([0.0, 3.0, 1.5, 4.0])),
    "interval": lambda m, C: C.interval(m.tensor(0.0), 2.0).check(m.tensor([0.0, 2.0, 1.5, 4.0])),
    "half_open_interval": lambda m, C: C.half_open_interval(0.0, 2.0).check(m.tensor([0.0, 2.0])),
    "greater_than": lambda m, C: C.greater_than(1.0).check(m.tensor([1.0, 2.0])),
    "lower_cholesky": lambda m, C: C.lower_cholesky.check(
        m.tensor([[[1.0, 0.0], [2.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]])),
    "lower_triangular": lambda m, C: C.lower_triangular.check(m.tensor([[1.0, 0.0], [2.0, 1.0]])),
    "positive_definite": lambda m, C: C.positive_definite.check(
        m.tensor([[[2.0, 0.3], [0.3, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    "nonnegative_integer": lambda m, C: C.nonnegative_integer.check(m.tensor([0.0, 2.0, -1.0,
                                                                              0.5])),
    "independent": lambda m, C: C.independent(C.positive, 1).check(m.tensor([[1.0, 2.0],
                                                                             [1.0, -1.0]])),
    "corr_cholesky": lambda m, C: C.corr_cholesky.check(m.tensor([[1.0, 0.0], [0.6, 0.8]])),
    "reprs": lambda m, C: [repr(C.real), repr(C.interval(0.0, 1.0)), repr(C.simplex),
                           repr(C.integer_interval(0, 3)), repr(C.independent(C.real, 1)),
                           C.positive.is_discrete, C.simplex.event_dim, C.boolean.is_discrete],
}


@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
def test_constraints(name):
    same(lambda m, D: CONSTRAINTS[name](m, D.constraints))


TRANSFORMS = {
    "Exp": lambda m, D: D.transforms.ExpTransform(),
    "Affine": lambda m, D: D.transforms.AffineTransform(m.tensor([0.5, -1.0, 2.0]),
                                                        m.tensor([2.0, 0.5, -1.0])),
    "Sigmoid": lambda m, D: D.transforms.SigmoidTransform(),
    "Tanh": lambda m, D: D.transforms.TanhTransform(),
    "Softmax": lambda m, D: D.transforms.SoftmaxTransform(),
    "StickBreaking": lambda m, D: D.transforms.StickBreakingTransform(),
    "Power": lambda m, D: D.transforms.PowerTransform(m.tensor(2.0)),
    "Compose": lambda m, D: D.transforms.ComposeTransform([D.transforms.AffineTransform(0.5, 2.0),
                                                          D.transforms.ExpTransform()]),
    "Inv": lambda m, D: D.transforms.ExpTransform().inv,
    "Abs": lambda m, D: D.transforms.AbsTransform(),
    "LowerCholesky": lambda m, D: D.transforms.LowerCholeskyTransform(),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transforms(name):
    def go(mod, D):
        t = TRANSFORMS[name](mod, D)
        if name == "LowerCholesky":
            x = mod.tensor([[0.3, -0.2], [0.1, 0.5]], requires_grad=True)
        elif name == "Inv":
            x = mod.tensor([0.3, 0.2, 2.0], requires_grad=True)
        else:
            x = mod.tensor([0.3, -0.2, 0.8], requires_grad=True)
        y = t(x)
        out = {"y": y, "repr": repr(t), "bijective": t.bijective, "sign": None,
               "domain": repr(t.domain), "codomain": repr(t.codomain)}
        try:
            out["sign"] = t.sign if not hasattr(t.sign, "shape") else t.sign.tolist()
        except NotImplementedError as e:
            out["sign"] = str(e)
        if name not in ("Abs", "LowerCholesky"):
            out["inv"] = t.inv(y)
            if name not in ("Softmax",):
                out["ladj"] = t.log_abs_det_jacobian(x, y)
                (out["ladj"].sum() + (y * _w(mod, y)).sum()).backward()
                out["grad"] = x.grad
        return out
    same(go)


def test_transformed_distributions():
    def go(mod, D):
        tr = D.transforms
        loc = mod.tensor([0.5, -1.0], requires_grad=True)
        base = D.Normal(loc, mod.tensor([1.0, 0.5]))
        d1 = D.TransformedDistribution(base, [tr.AffineTransform(1.0, 2.0), tr.ExpTransform()])
        d2 = D.TransformedDistribution(base, tr.SigmoidTransform())
        d3 = D.TransformedDistribution(base, [tr.TanhTransform(cache_size=1)])
        y = mod.tensor([0.4, 0.3])
        lps = [d1.log_prob(mod.tensor([2.0, 0.4])), d2.log_prob(y), d3.log_prob(y),
               d1.cdf(mod.tensor([2.0, 0.4])), d2.icdf(y)]
        sum(l.sum() for l in lps).backward()
        s = d3.rsample((3,))
        return [lps, loc.grad, d1.batch_shape, d1.event_shape, repr(d1.support), d1.has_rsample,
                tuple(s.shape), bool(((s > -1) & (s < 1)).all()), repr(d2.support),
                type(d1.expand((4, 2))).__name__, d1.expand((4, 2)).batch_shape]
    same(go)


def test_transform_errors_and_biject_to():
    same(lambda m, D: D.transforms.ComposeTransform([D.transforms.ExpTransform()])
         .inv(m.tensor([1.0])))
    same(lambda m, D: D.TransformedDistribution(D.Normal(0.0, 1.0), [1]))
    same(lambda m, D: [D.biject_to(D.constraints.positive)(m.tensor([0.3])),
                       D.transform_to(D.constraints.simplex)(m.tensor([0.3, 0.1])),
                       D.biject_to(D.constraints.interval(0.0, 2.0))(m.tensor([0.3])),
                       repr(D.biject_to(D.constraints.unit_interval))])


# ---- module layout -------------------------------------------------------------------------

def test_import_paths_and_submodules():
    import importlib

    import inplace_lab.torch.distributions as dist
    from inplace_lab.torch.distributions import Normal

    assert L.distributions is dist and dist.Normal is Normal
    for sub in ("normal", "kl", "constraints", "transforms", "utils", "distribution",
                "multivariate_normal", "constraint_registry", "categorical", "independent"):
        m = importlib.import_module(f"inplace_lab.torch.distributions.{sub}")
        assert getattr(dist, sub) is m
    assert dist.normal.Normal is Normal and dist.kl.kl_divergence is dist.kl_divergence
    assert sorted(dist.__all__) == sorted(T.distributions.__all__)
    missing = [n for n in T.distributions.__all__ if not hasattr(dist, n)]
    assert not missing
    assert dist.utils.probs_to_logits(L.tensor([0.5]), is_binary=True).tolist() == [0.0]


def test_vae_style_training_step_matches():
    """A VAE's ELBO: reparameterised Normal posterior, Bernoulli likelihood, KL to N(0, 1)."""
    def go(mod, D):
        mu = mod.tensor([[0.1, -0.3], [0.5, 0.2]], requires_grad=True)
        log_var = mod.tensor([[-0.2, 0.1], [0.0, -1.0]], requires_grad=True)
        eps = mod.tensor([[0.3, -1.2], [0.8, 0.05]])
        std = (0.5 * log_var).exp()
        z = mu + eps * std
        q = D.Normal(mu, std)
        prior = D.Normal(mod.zeros_like(mu), mod.ones_like(std))
        logits = z @ mod.tensor([[1.0, -1.0, 0.5], [0.2, 0.3, -0.4]])
        x = mod.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
        rec = D.Bernoulli(logits=logits).log_prob(x).sum(-1)
        kl = D.kl_divergence(q, prior).sum(-1)
        kl2 = (q.log_prob(z) - prior.log_prob(z)).sum(-1)
        loss = -(rec - kl).mean()
        loss.backward()
        return [loss, kl, kl2, mu.grad, log_var.grad]
    same(go)


def test_policy_gradient_step_matches():
    def go(mod, D):
        logits = mod.tensor([[0.2, -0.5, 1.0], [0.0, 0.3, -0.2]], requires_grad=True)
        d = D.Categorical(logits=logits)
        actions = mod.tensor([2, 0])
        adv = mod.tensor([1.5, -0.5])
        loss = -(d.log_prob(actions) * adv).sum() - 0.01 * d.entropy().sum()
        loss.backward()
        return [loss, logits.grad, d.log_prob(actions)]
    same(go)


# ---- assorted programs: properties, broadcasting, dtypes, enumerate_support, errors -----------

def _mvn_props(m, D, kind):
    c = m.tensor([[2.0, 0.3], [0.3, 1.0]], requires_grad=True)
    d = D.MultivariateNormal(m.zeros(2), **{kind: c})
    return [d.scale_tril, d.covariance_matrix, d.precision_matrix, d.loc]


PROGRAMS = {
    "mvn_props": lambda m, D: _mvn_props(m, D, "covariance_matrix"),
    "mvn_prec_props": lambda m, D: _mvn_props(m, D, "precision_matrix"),
    "mvn_batch": lambda m, D: D.MultivariateNormal(m.zeros(3, 2),
                                                   m.eye(2)).log_prob(m.ones(4, 1, 2)),
    "mvn_rsample": lambda m, D: D.MultivariateNormal(m.zeros(3, 2, requires_grad=True),
                                                     m.eye(2)).rsample((4,)).shape,
    "mvn_rsample_fn": lambda m, D: D.MultivariateNormal(m.zeros(3, 2, requires_grad=True),
                                                        m.eye(2)).rsample((4,)).grad_fn.name(),
    "normal_rsample_fn": lambda m, D: D.Normal(m.zeros(3, requires_grad=True),
                                               1.0).rsample((4,)).grad_fn.name(),
    "unif_rsample_fn": lambda m, D: D.Uniform(m.zeros(3, requires_grad=True),
                                              1.0).rsample((4,)).grad_fn.name(),
    "gamma_rsample_fn": lambda m, D: D.Gamma(m.ones(3, requires_grad=True), 1.0).rsample((4,))
     .grad_fn.next_functions[0][0].next_functions[0][0].name(),
    "dirichlet_rsample_fn": lambda m, D: D.Dirichlet(m.ones(3, requires_grad=True))
    .rsample((4,)).grad_fn.name(),
    "beta_rsample_fn": lambda m, D: D.Beta(m.ones(3, requires_grad=True),
                                           2.0).rsample((4,)).grad_fn.name(),
    "beta_rsample_shape": lambda m, D: D.Beta(m.ones(3, requires_grad=True),
                                              2.0).rsample((4,)).shape,
    "cat_sample": lambda m, D: [D.Categorical(m.ones(2, 3)).sample().shape,
                                D.Categorical(m.ones(3)).sample((2, 2)).shape],
    "bern_ent": lambda m, D: D.Bernoulli(m.tensor([0.0, 1.0, 0.5])).entropy(),
    "cat_ent0": lambda m, D: D.Categorical(m.tensor([0.0, 1.0])).entropy(),
    "cat_lp_bcast": lambda m, D: D.Categorical(m.ones(2, 3)).log_prob(m.tensor([[0], [1], [2]])),
    "normal_int": lambda m, D: D.Normal(m.tensor([0, 1]), 1),
    "normal_int_lp": lambda m, D: D.Normal(0, 1).log_prob(m.tensor(1)),
    "normal_scalar_lp": lambda m, D: D.Normal(0., 1.).log_prob(0.5),
    "normal_scale0": lambda m, D: D.Normal(0., 0.),
    "perplexity": lambda m, D: D.Categorical(m.tensor([0.2, 0.8])).perplexity(),
    "exp_family_ent": lambda m, D: D.Exponential(m.tensor([2.0])).entropy(),
    "indep_repr": lambda m, D: repr(D.Independent(D.Normal(m.zeros(2, 3), 1.0), 1)),
    "td_repr": lambda m, D: repr(D.TransformedDistribution(D.Normal(0., 1.),
                                                           [D.transforms.ExpTransform()])),
    "lognormal_repr": lambda m, D: repr(D.LogNormal(0., 1.)),
    "kl_shapes": lambda m, D: D.kl_divergence(D.Normal(m.zeros(2, 1), 1.), D.Normal(m.zeros(3),
                                                                                    2.)),
    "kl_mvn_batch": lambda m, D: D.kl_divergence(D.MultivariateNormal(m.zeros(2, 2), m.eye(2)),
                                                 D.MultivariateNormal(m.ones(2), 2 * m.eye(2))),
    "bern_sample_dtype": lambda m, D: D.Bernoulli(m.tensor([0.5], dtype=m.float64)).sample().dtype,
    "float64_lp": lambda m, D: D.Normal(m.tensor(0., dtype=m.float64), 1.).log_prob(m.tensor(1.)),
    "half": lambda m, D: D.Normal(m.tensor([0.], dtype=m.float64), m.tensor([1.])).loc.dtype,
    "multinom_lp": lambda m, D: D.Multinomial(probs=m.tensor([0.2, 0.8]))
    .log_prob(m.tensor([1.0, 3.0])),
    "cat_enum": lambda m, D: D.Categorical(m.ones(2, 3)).enumerate_support(expand=False),
    "bern_enum": lambda m, D: D.Bernoulli(m.ones(2) / 2).enumerate_support(),
    "lp_grad_value": lambda m, D: (lambda x: (D.Normal(0., 2.).log_prob(x).sum().backward(),
                                              x.grad)[1])(m.tensor([1., 2.], requires_grad=True)),
    "sample_n": lambda m, D: D.Normal(m.zeros(2), 1.).sample_n(3).shape,
    "ohc_sample": lambda m, D: D.OneHotCategorical(m.ones(2, 3)).sample((4,)).sum(-1),
    "ohcst": lambda m, D: D.OneHotCategoricalStraightThrough(m.ones(3, requires_grad=True))
    .rsample().grad_fn.name(),
    "binom_sample": lambda m, D: D.Binomial(m.tensor([5., 10.]), m.tensor([0., 1.])).sample(),
    "poisson_sample0": lambda m, D: D.Poisson(m.tensor([0.])).sample(),
    "validate_sample": lambda m, D: D.Normal(0., 1.)
    .log_prob(m.tensor([1.0], dtype=m.float64)).dtype,
    "cdf_err": lambda m, D: D.Exponential(1.).cdf(m.tensor(-1.)),
    "icdf_err": lambda m, D: D.Normal(0., 1.).icdf(m.tensor(1.5)),
    "uniform_cdf_clamp": lambda m, D: D.Uniform(0., 1., validate_args=False)
    .cdf(m.tensor([-1., 2.])),
    "lp_outside_novalidate": lambda m, D: D.Uniform(0., 1., validate_args=False)
    .log_prob(m.tensor([-1., 0.5])),
    "transform_cache": lambda m, D: (lambda t, x: t.inv(t(x)) is x)(
        D.transforms.ExpTransform(cache_size=1), m.tensor([1.])),
    "transform_eq": lambda m, D: [D.transforms.ExpTransform() == D.transforms.ExpTransform(),
                                  D.transforms.identity_transform],
    "constraint_err": lambda m, D: D.constraints.positive.check(1.0),
    "dependent": lambda m, D: D.constraints.dependent.check(m.zeros(1)),
    "is_dependent": lambda m, D: [D.constraints.is_dependent(D.Binomial(5, 0.5).support),
                                  D.constraints.is_dependent(D.constraints.real)],
    "getattr_missing": lambda m, D: D.NoSuch,
    "entropy_notimpl": lambda m, D: D.Binomial(5, 0.5).entropy(),
    "kl_err": lambda m, D: D.kl_divergence(D.Normal(0., 1.), D.StudentT(1.)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs(name):
    same(PROGRAMS[name])


def test_pickle_and_deepcopy_round_trip():
    import copy
    import pickle

    def go(mod, D):
        out = []
        for d in [D.Normal(mod.tensor([0.5, 1.0]), 2.0),
                  D.Categorical(logits=mod.tensor([0.1, 0.2])),
                  D.Independent(D.Normal(mod.zeros(2, 2), 1.0), 1),
                  D.MultivariateNormal(mod.zeros(2), mod.tensor([[2.0, 0.3], [0.3, 1.0]])),
                  D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()])]:
            e, c = pickle.loads(pickle.dumps(d)), copy.deepcopy(d)
            x = mod.ones(d.batch_shape + d.event_shape) * 0.5
            out += [repr(e), repr(c), type(e).__name__, e.log_prob(x), c.log_prob(x)]
        out.append(repr(pickle.loads(pickle.dumps(D.constraints.interval(0.0, 1.0)))))
        out.append(repr(pickle.loads(pickle.dumps(D.transforms.ExpTransform().inv))))
        out.append(str(type(D.Normal(0.0, 1.0))))
        return out
    same(go)


# ---- teaching programs: policy gradient with nn + optim, Parameters, conjugate Bayes, MCMC
# targets, mixtures, in-place edits between forward and backward, reprs ---------------------------

def policy(m, D):
    m.manual_seed(0)
    net = m.nn.Linear(4, 3)
    with m.no_grad():
        net.weight.copy_(m.arange(12.).reshape(3, 4).sin())
        net.bias.fill_(0.1)
    opt = m.optim.Adam(net.parameters(), lr=0.01)
    x = m.arange(8.).reshape(2, 4).cos()
    d = D.Categorical(logits=net(x))
    lp = d.log_prob(m.tensor([0, 2]))
    loss = -(lp * m.tensor([1.0, -2.0])).mean() - 0.1 * d.entropy().mean()
    opt.zero_grad(); loss.backward(); opt.step()
    return [loss, net.weight, net.weight.grad, repr(d)]

def param_dist(m, D):
    mu = m.nn.Parameter(m.tensor([0.5, 1.0]))
    log_s = m.nn.Parameter(m.tensor([0.0, -1.0]))
    d = D.Normal(mu, log_s.exp())
    lp = d.log_prob(m.tensor([0.1, 0.2])).sum()
    lp.backward()
    return [repr(d), lp, mu.grad, log_s.grad, d.loc is mu]

def bayes(m, D):
    a, b = m.tensor(2.0), m.tensor(3.0)
    data = m.tensor([1., 0., 1., 1., 0., 1.])
    post = D.Beta(a + data.sum(), b + (1 - data).sum())
    theta = m.linspace(0.01, 0.99, 5)
    return [post.mean, post.variance, post.log_prob(theta), post.cdf(theta) if False else None,
            D.Bernoulli(theta[:, None]).log_prob(data).sum(-1) + D.Beta(a, b).log_prob(theta)]

def mh(m, D):
    target = D.MultivariateNormal(m.zeros(2), m.tensor([[1.0, 0.8], [0.8, 1.0]]))
    pts = m.tensor([[0.0, 0.0], [1.0, -1.0], [0.5, 0.5]])
    return [target.log_prob(pts), target.log_prob(pts[0]) - target.log_prob(pts[1]),
            target.entropy()]

def gmm(m, D):
    mix = D.Categorical(m.tensor([0.3, 0.7]))
    comp = D.Independent(D.Normal(m.tensor([[0., 0.], [2., 2.]]), m.tensor([[1., 1.], [.5, .5]])),
                         1)
    g = D.MixtureSameFamily(mix, comp)
    return [g.log_prob(m.tensor([[0.5, 0.5], [2., 1.]])), g.mean, g.variance, g.batch_shape,
            g.event_shape, repr(g)]

def _runtime_error_text(fn):
    """The library's SavedTensorModifiedError is a RuntimeError: compare that and the text."""
    def go(m, D):
        try:
            return fn(m, D)
        except RuntimeError as e:
            return "RuntimeError", str(e)
    return go


@_runtime_error_text
def inplace_after(m, D):
    loc = m.tensor([0.5, 1.0], requires_grad=True)
    scale = m.tensor([1.0, 2.0], requires_grad=True)
    d = D.Normal(loc * 2, scale)
    lp = d.log_prob(m.tensor([0.0, 0.0])).sum()
    with m.no_grad():
        scale.add_(1.0)
    lp.backward()
    return loc.grad, scale.grad

@_runtime_error_text
def inplace_err(m, D):
    loc = m.tensor([0.5, 1.0], requires_grad=True)
    s = m.tensor([1.0, 2.0], requires_grad=True)
    scale = s * 1
    d = D.Normal(loc, scale)
    lp = d.log_prob(m.tensor([0.0, 0.0])).sum()
    scale.mul_(2)
    lp.backward()
    return loc.grad

def versions(m, D):
    loc = m.tensor([0.5, 1.0], requires_grad=True)
    d = D.Normal(loc, 1.0)
    x = d.rsample()
    g = D.Gamma(m.tensor([2.0]), 1.0).sample()
    return [loc._version, d.scale._version, d.loc._version, g._version > -1]

def entropy_kl_td(m, D):
    base = D.Normal(m.tensor([0.0]), m.tensor([1.0]))
    ln = D.LogNormal(m.tensor([0.0]), m.tensor([1.0]))
    return [ln.mean, ln.variance, ln.entropy(), D.kl_divergence(ln, D.LogNormal(m.tensor([1.0]),
                                                                                m.tensor([2.0])))]

def bern_logits_big(m, D):
    b = D.Bernoulli(logits=m.tensor([100., -100., 0.]))
    return [b.log_prob(m.tensor([1., 1., 0.])), b.entropy(), b.probs, b.mean]

def cat_lp_extreme(m, D):
    c = D.Categorical(probs=m.tensor([0.0, 1.0]))
    return [c.log_prob(m.tensor([0, 1])), c.entropy(), c.logits]

def std_f64_mix(m, D):
    return D.Normal(m.tensor([0.], dtype=m.float64), m.tensor([1.])).log_prob(m.tensor([0.5]))

def expand_err(m, D):
    return D.Categorical(m.ones(2, 3)).expand((4,))

def sample_shape_int(m, D):
    return D.Normal(0., 1.).sample(3)

def arg_repr(m, D):
    return [repr(D.Bernoulli(0.3)), repr(D.Categorical(m.ones(3))), repr(D.Uniform(0., 1.)),
            repr(D.Dirichlet(m.ones(3))), repr(D.Binomial(3, 0.5)), str(D.Normal(m.zeros(1),
                                                                                 1.).mean)]


TEACHING = [policy, param_dist, bayes, mh, gmm, inplace_after, inplace_err, versions,
            entropy_kl_td, bern_logits_big, cat_lp_extreme, std_f64_mix, expand_err,
                sample_shape_int, arg_repr]


@pytest.mark.parametrize("fn", TEACHING, ids=lambda f: f.__name__)
def test_teaching_programs(fn):
    same(fn)


def test_size_arithmetic_and_tensor_new_with_a_size():
    """The two shared hooks the distributions rely on (their error texts print
    batch_shape + event_shape; samplers call ``param.new(shape)``)."""
    same(lambda m, D: [repr(m.Size([2]) + m.Size([3])), repr(m.Size([2]) + (1,)),
                       repr((1,) + m.Size([2])), repr(m.Size([2, 3, 4])[1:]), repr(m.Size([2]) * 2),
                       m.Size([2, 3])[0], type(m.Size([2, 3])[-1]).__name__])
    same(lambda m, D: [m.zeros(2, dtype=m.float64).new(m.Size([3, 2])).shape,
                       m.zeros(2, dtype=m.float64).new(m.Size([3, 2])).dtype,
                       m.zeros(2).new((3, 2)), m.zeros(2).new([3.5]), m.zeros(2).new(2, 3).shape])
    same(lambda m, D: m.Size([2]) + [1])


DISCRETE = {"Bernoulli_probs", "Bernoulli_logits", "Categorical_probs", "Categorical_logits",
            "OneHotCategorical", "Binomial", "Binomial_logits", "Poisson", "Geometric",
            "NegativeBinomial", "Multinomial"}


@pytest.mark.parametrize("method", ["log_prob", "cdf"])
@pytest.mark.parametrize("name", sorted(set(DISTS) - DISCRETE))
def test_gradient_with_respect_to_the_value(name, method):
    make, value = DISTS[name]

    def go(mod, D):
        d = make(mod, D, lambda n, data, dtype=None: mod.tensor(data, dtype=dtype))
        x = value(mod).requires_grad_()
        out = getattr(d, method)(x)
        (out * _w(mod, out)).sum().backward()
        return [out, x.grad]
    same(go, rtol=1e-4)


def test_as_tensor_keeps_the_tensor_and_its_graph():
    """The shared hook behind the value gradients above (Gamma/HalfCauchy log_prob)."""
    same(lambda m, D: (lambda x: [m.as_tensor(x) is x, m.as_tensor(x, dtype=m.float32) is x,
                                  m.as_tensor(x, dtype=m.float64), m.as_tensor([1, 2]),
                                  m.as_tensor(2.5, dtype=m.float64)])(
        m.tensor([1.0, 2.0], requires_grad=True)))


def _saved_bool_modified(m, D):
    a = m.ones(3, requires_grad=True)
    mask = m.tensor([True, False, True])
    y = m.where(mask, a, a * 2)
    mask.logical_not_()
    y.sum().backward()


def _wishart_rsample_backward(m, D):
    """torch 2.13's Wishart.rsample edits a saved bool mask in place: backward fails there."""
    m.manual_seed(0)
    cov = m.tensor([[2.0, 0.3], [0.3, 1.0]], requires_grad=True)
    D.Wishart(m.tensor(4.0), covariance_matrix=cov).rsample((3,)).sum().backward()


@pytest.mark.parametrize("fn", [_saved_bool_modified, _wishart_rsample_backward])
def test_saved_bool_tensor_modified_error_names_cpu_bool_type(fn):
    """torch words a bool tensor as ATen's CPUBoolType in the saved-tensor version error."""
    def go(m, D):
        try:
            fn(m, D)
        except RuntimeError as e:
            return "RuntimeError", str(e)
    same(go)


@pytest.mark.parametrize("name", sorted(set(DISTS) - {"Wishart"}))
def test_rsample_of_every_distribution(name):
    """rsample (where torch has it): shape, dtype, last node, which parameters get a gradient,
    and the draw lies in the support; NotImplementedError where torch raises it."""
    make, _ = DISTS[name]

    def go(mod, D):
        leaves = {}

        def p(n, data, dtype=None):
            leaves[n] = mod.tensor(data, dtype=dtype, requires_grad=True)
            return leaves[n]

        mod.manual_seed(0)
        d = make(mod, D, p)
        x = d.rsample((3,))
        x.sum().backward()
        return [tuple(x.shape), str(x.dtype), x.grad_fn.name(), bool(d.support.check(x).all()),
                sorted(k for k, v in leaves.items() if v.grad is not None)]
    same(go)


@pytest.mark.parametrize("name", sorted(DISTS))
def test_log_prob_broadcasts_a_sample_shape(name):
    make, value = DISTS[name]

    def go(mod, D):
        leaves = {}

        def p(n, data, dtype=None):
            leaves[n] = mod.tensor(data, dtype=dtype, requires_grad=True)
            return leaves[n]

        d = make(mod, D, p)
        v = value(mod)
        x = mod.stack([v, v.flip(0)]).unsqueeze(1)  # (2, 1, *value.shape)
        out = d.log_prob(x)
        (out * _w(mod, out)).sum().backward()
        return [out, _grads(leaves)]
    same(go, rtol=1e-4)


REPARAM = {  # name: (make(mod, leaves), {param: d x / d param as a function of x and the params})
    "Uniform": (lambda m, p: m.distributions.Uniform(p("low", [0.0, -1.0]), p("high", [1.0, 3.0])),
                {"low": lambda x, q: 1 - (x - q["low"]) / (q["high"] - q["low"]),
                 "high": lambda x, q: (x - q["low"]) / (q["high"] - q["low"])}),
    "Exponential": (lambda m, p: m.distributions.Exponential(p("rate", [0.5, 2.0])),
                    {"rate": lambda x, q: -x / q["rate"]}),
    "Laplace": (lambda m, p: m.distributions.Laplace(p("loc", [0.5, -1.0]), p("scale", [1.0, 0.5])),
                {"loc": lambda x, q: x * 0 + 1, "scale": lambda x, q: (x - q["loc"]) / q["scale"]}),
    "LogNormal": (lambda m, p: m.distributions.LogNormal(p("loc", [0.5, -1.0]),
                                                         p("scale", [1.0, 0.5])),
                  {"loc": lambda x, q: x,
                   "scale": lambda x, q: x * (x.log() - q["loc"]) / q["scale"]}),
    "Gamma_rate": (lambda m, p: m.distributions.Gamma(m.tensor([0.5, 3.0]), p("rate", [1.5, 2.0])),
                   {"rate": lambda x, q: -x / q["rate"]}),
    "Cauchy": (lambda m, p: m.distributions.Cauchy(p("loc", [0.5, -1.0]), p("scale", [1.0, 0.5])),
               {"loc": lambda x, q: x * 0 + 1, "scale": lambda x, q: (x - q["loc"]) / q["scale"]}),
}


@pytest.mark.parametrize("name", sorted(REPARAM))
@pytest.mark.parametrize("mod", [T, L], ids=["torch", "lab"])
def test_rsample_gradient_is_the_closed_form_of_its_own_draw(mod, name):
    """Seed-independent: on each side, d(sum rsample)/d param equals the reparameterisation's
    closed form evaluated at that side's own draw."""
    make, forms = REPARAM[name]
    leaves = {}

    def p(n, data):
        leaves[n] = mod.tensor(data, requires_grad=True)
        return leaves[n]

    mod.manual_seed(5)
    x = make(mod, p).rsample((4,))
    x.sum().backward()
    q = {k: v.detach() for k, v in leaves.items()}
    for k, form in forms.items():
        want = form(x.detach(), q).sum(0).tolist()
        assert _close(leaves[k].grad.tolist(), want, 1e-4), (k, leaves[k].grad.tolist(), want)


# ---- transforms beyond the common ones, biject_to, errors of the rarer families ----------------

MORE_PROGRAMS = {
    "lowrank_err": lambda m, D: D.LowRankMultivariateNormal(m.zeros(2), m.ones(3, 1), m.ones(2)),
    "cat_nan": lambda m, D: D.Categorical(logits=m.tensor([float('nan'), 0.0])),
    "normal_nan_loc": lambda m, D: D.Normal(m.tensor([float('nan')]), 1.0),
    "beta_mode": lambda m, D: D.Beta(m.tensor([2.0, 0.5]), m.tensor([3.0, 0.5])).mode,
    "relaxed_temp": lambda m, D: D.RelaxedOneHotCategorical(m.tensor(0.5), m.tensor([0.2, 0.8]))
    .log_prob(m.tensor([0.3, 0.7])),
    "binomial_total_count_tensor_err": lambda m, D: D.Binomial(m.tensor([-1.0]), m.tensor([0.5])),
    "ohc_lp_err": lambda m, D: D.OneHotCategorical(m.ones(3)).log_prob(m.tensor([0.5, 0.5, 0.0])),
    "indep_lp": lambda m, D: D.Independent(D.Bernoulli(m.tensor([[0.2, 0.7]])),
                                           1).log_prob(m.tensor([[1.0, 0.0]])),
    "transform_sign_err": lambda m, D: D.transforms.SigmoidTransform().sign,
    "affine_event": lambda m, D: D.transforms.AffineTransform(0.0, m.ones(2), event_dim=1)
    .log_abs_det_jacobian(m.zeros(2), m.zeros(2)),
    "compose_event": lambda m, D: [
        D.transforms.ComposeTransform([D.transforms.ExpTransform(),
                                       D.transforms.SoftmaxTransform()]).domain.event_dim,
        repr(D.transforms.ComposeTransform([]))],
    "reshape_t": lambda m, D: D.transforms.ReshapeTransform((4,), (2, 2))(m.arange(4.)),
    "cat_t": lambda m, D: D.transforms.CatTransform([D.transforms.ExpTransform(),
                                                     D.transforms.identity_transform], 0,
                                                         [1, 1])(m.tensor([1.0, 2.0])),
    "stack_t": lambda m, D: D.transforms.StackTransform([D.transforms.ExpTransform(),
                                                         D.transforms.identity_transform],
                                                             0)(m.tensor([1.0, 2.0])),
    "cumdist": lambda m, D: D.transforms.CumulativeDistributionTransform(D.Normal(0., 1.))(
        m.tensor([0.5])),
    "corr_chol_t": lambda m, D: D.transforms.CorrCholeskyTransform()(m.tensor([0.3, -0.2, 0.5])),
    "pos_def_t": lambda m, D: D.transforms.PositiveDefiniteTransform()(m.tensor([[0.3, 0.0],
                                                                                 [0.5, 0.1]])),
    "biject_pd": lambda m, D: D.biject_to(D.constraints.positive_definite)(m.tensor([0.3, 0.2,
                                                                                     0.1])),
    "biject_corr": lambda m, D: D.biject_to(D.constraints.corr_cholesky)(m.tensor([0.3])),
    "lkj_sample_shape": lambda m, D: D.LKJCholesky(3, 0.5).sample((2,)).shape,
    "vm_sample": lambda m, D: D.VonMises(m.tensor([0.0, 1.0]),
                                         m.tensor([1.0, 50.0])).sample((5,)).shape,
    "gp_icdf": lambda m, D: D.GeneralizedPareto(0., 1., 0.2).icdf(m.tensor([0.3, 0.7])),
    "mixture_cdf": lambda m, D: D.MixtureSameFamily(D.Categorical(m.tensor([0.3, 0.7])),
                                                    D.Normal(m.tensor([0., 2.]),
                                                             1.)).cdf(m.tensor([0.5, 1.0])),
}


@pytest.mark.parametrize("name", sorted(MORE_PROGRAMS))
def test_more_programs(name):
    same(MORE_PROGRAMS[name])


def test_cholesky_failure_without_validation():
    """validate_args=False lets a non-positive-definite covariance reach linalg.cholesky."""
    def go(m, D):
        try:
            D.MultivariateNormal(m.zeros(2), m.tensor([[1.0, 2.0], [2.0, 1.0]]),
                                 validate_args=False)
        except m.linalg.LinAlgError as e:
            return str(e)
    same(go)


# ---- scalar (0-d) parameters: sample shapes from () up, dtypes, support, log_prob shapes -----

D0 = {  # scalar (0-d) parameters
    "Normal": lambda m, D: D.Normal(0., 1.), "Gamma": lambda m, D: D.Gamma(2., 1.),
        "Beta": lambda m, D: D.Beta(2., 1.),
    "Dirichlet": lambda m, D: D.Dirichlet(m.ones(3)), "StudentT": lambda m, D: D.StudentT(3.),
        "FisherSnedecor": lambda m, D: D.FisherSnedecor(3., 4.),
    "Chi2": lambda m, D: D.Chi2(3.), "Geometric": lambda m, D: D.Geometric(0.3),
        "Poisson": lambda m, D: D.Poisson(2.),
    "Binomial": lambda m, D: D.Binomial(5, 0.3),
        "NegativeBinomial": lambda m, D: D.NegativeBinomial(5, 0.3),
    "Bernoulli": lambda m, D: D.Bernoulli(0.3),
        "Categorical": lambda m, D: D.Categorical(m.ones(3)),
    "Uniform": lambda m, D: D.Uniform(0., 1.), "Exponential": lambda m, D: D.Exponential(1.),
        "Laplace": lambda m, D: D.Laplace(0., 1.),
    "Cauchy": lambda m, D: D.Cauchy(0., 1.), "Gumbel": lambda m, D: D.Gumbel(0., 1.),
        "HalfNormal": lambda m, D: D.HalfNormal(1.),
    "HalfCauchy": lambda m, D: D.HalfCauchy(1.), "LogNormal": lambda m, D: D.LogNormal(0., 1.),
        "Pareto": lambda m, D: D.Pareto(1., 2.),
    "Weibull": lambda m, D: D.Weibull(1., 2.), "Kumaraswamy": lambda m, D: D.Kumaraswamy(1., 2.),
        "VonMises": lambda m, D: D.VonMises(0., 2.),
    "InverseGamma": lambda m, D: D.InverseGamma(2., 1.),
        "ContinuousBernoulli": lambda m, D: D.ContinuousBernoulli(0.3),
    "GeneralizedPareto": lambda m, D: D.GeneralizedPareto(0., 1., 0.1),
        "LKJCholesky": lambda m, D: D.LKJCholesky(2, 1.),
    "RelaxedBernoulli": lambda m, D: D.RelaxedBernoulli(m.tensor(0.5), 0.3),
        "Multinomial": lambda m, D: D.Multinomial(3, m.ones(3)),
    "MVN": lambda m, D: D.MultivariateNormal(m.zeros(2), m.eye(2)),
        "Wishart": lambda m, D: D.Wishart(m.tensor(3.), m.eye(2)),
    "LowRankMVN": lambda m, D: D.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(2)),
    "OneHot": lambda m, D: D.OneHotCategorical(m.ones(3)),
        "RelaxedOneHot": lambda m, D: D.RelaxedOneHotCategorical(m.tensor(0.5), m.ones(3)),
    "LogisticNormal": lambda m, D: D.LogisticNormal(m.zeros(2), m.ones(2)),
}


@pytest.mark.parametrize("sample_shape", [(), (3,), (2, 2)], ids=str)
@pytest.mark.parametrize("name", sorted(D0))
def test_scalar_parameters_sample_shapes(name, sample_shape):
    def go(m, D):
        d = D0[name](m, D)
        s = d.sample(sample_shape)
        return [tuple(s.shape), str(s.dtype), bool(d.support.check(s).all()),
                tuple(d.log_prob(s).shape)]
    same(go)


def test_scalar_samplers_and_new_with_an_empty_size():
    """The shared kernels behind 0-d draws: poisson/binomial of a 0-d rate, new(Size([]))."""
    same(lambda m, D: [m.poisson(m.tensor(2.0)).shape, m.binomial(m.tensor(4.0),
                                                                  m.tensor(0.3)).shape,
                       m.zeros(2).new(m.Size([])).shape, m.zeros(2).new(()).shape])
