"""F.hardshrink / F.softshrink / F.rrelu and nn.Hardshrink / Softshrink / RReLU vs torch 2.13:
values (band edges, -0.0, NaN, inf), grads (a NaN arriving inside the band does not leak),
node names, in-place rrelu_, dtype and argument errors, reprs; rrelu's random slopes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

import inplace_lab.torch as ilt  # noqa: E402

SPECIAL = [-1.0, -0.5, -0.2, -0.0, 0.0, 0.5, 0.7, 0.3, float("nan"), float("inf"), -float("inf")]


def run(lib, fn, data, dtype, grad_in, **kw):
    x = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)
    y = getattr(lib.nn.functional, fn)(x, **kw)
    (g,) = lib.autograd.grad(y, x, lib.tensor(grad_in, dtype=getattr(lib, dtype)))
    return y, g


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,kw", [("hardshrink", {}), ("hardshrink", {"lambd": 0.3}),
                                   ("softshrink", {}), ("softshrink", {"lambd": 0.0}),
                                   ("rrelu", {}), ("rrelu", {"lower": 0.1, "upper": 0.5})])
@pytest.mark.parametrize("grad_kind", ["ones", "nan", "random"])
def test_values_grads_and_nodes_match_torch(fn, kw, dtype, grad_kind):
    data = np.array(SPECIAL)
    grad_in = {"ones": np.ones(len(data)), "nan": np.full(len(data), np.nan),
               "random": np.random.default_rng(0).normal(size=len(data))}[grad_kind]
    ty, tg = run(torch, fn, data, dtype, grad_in, **kw)
    iy, ig = run(ilt, fn, data, dtype, grad_in, **kw)
    assert iy.grad_fn.name() == ty.grad_fn.name()
    assert iy.dtype == getattr(ilt, dtype)
    np.testing.assert_array_equal(iy.detach().numpy(), ty.detach().numpy())
    if fn != "softshrink":  # ATen's softshrink signs its band zeros by vector lane / tail
        np.testing.assert_array_equal(np.signbit(iy.detach().numpy()),
                                      np.signbit(ty.detach().numpy()))
    np.testing.assert_array_equal(ig.numpy(), tg.numpy())


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-3, 3, width=32), min_size=1, max_size=8),
       st.floats(0, 2, width=32), st.sampled_from(["hardshrink", "softshrink"]))
def test_shrink_matches_torch_on_random_inputs(vals, lambd, fn):
    data = np.array(vals, dtype=np.float32)
    ty, tg = run(torch, fn, data, "float32", np.ones(len(data)), lambd=lambd)
    iy, ig = run(ilt, fn, data, "float32", np.ones(len(data)), lambd=lambd)
    np.testing.assert_array_equal(iy.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(ig.numpy(), tg.numpy())


def test_methods_and_top_level_names_exist_as_in_torch():
    x = ilt.tensor([-1.0, 0.2, 0.8])
    assert x.hardshrink(0.5).tolist() == torch.tensor([-1.0, 0.2, 0.8]).hardshrink(0.5).tolist()
    assert ilt.hardshrink(x).tolist() == [-1.0, 0.0, pytest.approx(0.8)]
    assert hasattr(torch.Tensor, "softshrink") is hasattr(ilt.Tensor, "softshrink") is False


@pytest.mark.parametrize("call", [
    "F.softshrink(m.ones(3), -1.0)", "F.softshrink(m.ones(3, dtype=m.float64), -0.5)",
    "F.hardshrink(m.arange(3))", "F.softshrink(m.arange(3))", "F.hardshrink(m.tensor([True]))",
    "F.rrelu(m.arange(3))", "F.rrelu(m.ones(3), 0.5, 0.1)"])
def test_errors_match_torch(call):
    def go(m):
        eval(call, {"m": m, "F": m.nn.functional})

    with pytest.raises(Exception) as te:
        go(torch)
    with pytest.raises(type(te.value)) as ie:
        go(ilt)
    assert str(ie.value) == str(te.value)


def test_rrelu_training_draws_one_slope_per_nonpositive_element_and_backprops_it():
    x = ilt.tensor(np.linspace(-3, 3, 4001), dtype=ilt.float64, requires_grad=True)
    y = ilt.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    y.sum().backward()
    xs, ys, g = x.detach().numpy(), y.detach().numpy(), x.grad.numpy()
    pos = xs > 0
    np.testing.assert_array_equal(ys[pos], xs[pos])
    assert (g[pos] == 1).all()
    slopes = ys[xs < 0] / xs[xs < 0]
    np.testing.assert_allclose(g[xs < 0], slopes)
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3 and len(np.unique(slopes)) > 100
    assert abs(slopes.mean() - 0.2) < 0.01
    assert 0.1 <= g[xs == 0][0] <= 0.3  # x == 0 takes a random slope too, as ATen's kernel


@pytest.mark.parametrize("training", [False, True])
def test_rrelu_inplace_matches_torch_versions_and_node(training):
    out = {}
    for lib in (torch, ilt):
        x = lib.tensor([-1.0, 2.0, -3.0], requires_grad=True)
        a = x * 1
        r = lib.nn.functional.rrelu(a, 0.2, 0.2 if not training else 0.2000001, training, True)
        r.backward(lib.ones(3))
        out[lib] = (r is a, a._version, a.grad_fn.name(), a.detach().numpy(), x.grad.numpy())
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            lib.nn.functional.rrelu_(x)
    t, i = out[torch], out[ilt]
    assert t[:3] == i[:3]
    np.testing.assert_allclose(i[3], t[3], rtol=1e-6)
    np.testing.assert_allclose(i[4], t[4], rtol=1e-6)


def test_modules_reprs_and_rrelu_follows_train_eval():
    for src in ["Hardshrink()", "Hardshrink(0.3)", "Softshrink()", "Softshrink(1.5)", "RReLU()",
                "RReLU(0.1, 0.2, True)", "RReLU(upper=0.5)"]:
        assert repr(eval("nn." + src, {"nn": ilt.nn})) == repr(eval("nn." + src,
                                                                     {"nn": torch.nn}))
    x = ilt.tensor([-2.0, 1.0])
    m = ilt.nn.RReLU(0.1, 0.3)
    m.eval()
    assert m(x).tolist() == pytest.approx([-0.4, 1.0])
    m.train()
    v = m(ilt.full((1000,), -1.0)).numpy()
    assert len(np.unique(v)) > 100 and (-0.3 <= v).all() and (v <= -0.1).all()
    assert ilt.nn.Softshrink(0.5)(ilt.tensor([2.0, -0.1, -3.0])).tolist() == [1.5, 0.0, -2.5]
