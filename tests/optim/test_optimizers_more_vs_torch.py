"""Adamax, NAdam, RAdam, Adadelta against torch 2.13 (foreach=False): 5-step parameter
trajectories to float32 rounding, state buffers, version counters, argument errors."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as il  # noqa: E402

CASES = [
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.05)),  # rho_t <= 5 for the first steps, then the rectified branch
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.9), weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.8), weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)),
]


def _trajectory(lib, name, kw, steps, **extra):
    rng = np.random.default_rng(0)
    w = lib.nn.Parameter(lib.tensor(rng.standard_normal((3, 4)).astype(np.float32)))
    b = lib.nn.Parameter(lib.tensor(rng.standard_normal(4).astype(np.float32)))
    x = lib.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    opt = getattr(lib.optim, name)([w, b], **kw, **extra)
    traj = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w + b).tanh() ** 2).sum()
        loss.backward()
        opt.step()
        traj.append((w.detach().numpy().copy(), b.detach().numpy().copy()))
    return traj, opt, (w, b)


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_trajectory_matches_torch(name, kw):
    steps = 8 if name == "RAdam" else 5
    ref, topt, tparams = _trajectory(torch, name, kw, steps, foreach=False)
    got, opt, params = _trajectory(il, name, kw, steps)
    for (tw, tb), (w, b) in zip(ref, got):
        np.testing.assert_allclose(w, tw, rtol=2e-6, atol=2e-7)
        np.testing.assert_allclose(b, tb, rtol=2e-6, atol=2e-7)
    for tp, p in zip(tparams, params):
        assert p._version == tp._version
        ts, s = topt.state[tp], opt.state[p]
        assert set(s) == set(ts)
        for k in ts:
            # (tanh and the GEMMs differ from torch's by an ulp or two; Adamax's exp_inf keeps
            # |grad| of the largest step, so those ulps reach 4e-7 on numpy 2.4's tanh)
            np.testing.assert_allclose(s[k].numpy(), ts[k].numpy(), rtol=2e-6, atol=6e-7)
            assert str(s[k].dtype).split(".")[-1] == str(ts[k].dtype).split(".")[-1]
            assert s[k]._version == ts[k]._version, k
    tg = {k: v for k, v in topt.param_groups[0].items() if k not in ("params", "foreach")}
    g = {k: v for k, v in opt.param_groups[0].items() if k != "params"}
    assert {k: g[k] for k in tg if k in g} == {k: tg[k] for k in tg if k in g}
    assert set(g) - {"foreach"} <= set(tg)


@pytest.mark.parametrize("name,kw", [
    ("Adamax", dict(lr=-1)), ("Adamax", dict(betas=(1.0, 0.9))), ("NAdam", dict(eps=-1)),
    ("NAdam", dict(momentum_decay=-1)), ("RAdam", dict(betas=(0.9, -0.1))),
    ("RAdam", dict(weight_decay=-1)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(eps=-1))])
def test_argument_errors_match_torch(name, kw):
    with pytest.raises(ValueError) as te:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(1))], **kw)
    with pytest.raises(ValueError) as ie:
        getattr(il.optim, name)([il.nn.Parameter(il.zeros(1))], **kw)
    assert str(ie.value) == str(te.value)


def test_state_dict_resume_continues_the_trajectory():
    ref, _, _ = _trajectory(il, "NAdam", dict(lr=0.05), 4)
    _, opt, (w, b) = _trajectory(il, "NAdam", dict(lr=0.05), 2)
    sd = opt.state_dict()
    w2 = il.nn.Parameter(w.detach().clone())
    b2 = il.nn.Parameter(b.detach().clone())
    opt2 = il.optim.NAdam([w2, b2], lr=0.05)
    opt2.load_state_dict(sd)
    rng = np.random.default_rng(0)
    rng.standard_normal((3, 4)), rng.standard_normal(4)
    x = il.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    for _ in range(2):
        opt2.zero_grad()
        ((x @ w2 + b2).tanh() ** 2).sum().backward()
        opt2.step()
    np.testing.assert_allclose(w2.detach().numpy(), ref[3][0], rtol=1e-6)
    assert float(opt2.state[w2]["mu_product"]) == float(opt2.state[w2]["mu_product"])
