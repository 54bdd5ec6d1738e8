"""Rprop, ASGD, Adafactor and LBFGS against torch 2.13 (foreach=False): parameter
trajectories to float32 rounding, state_dict()['state'] keys and values, the parameters'
_version after every step, and torch's errors for bad hyper-parameters."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as il  # noqa: E402

CASES = [
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("Rprop", dict(lr=0.5, step_sizes=(1e-2, 0.6))),  # clamps and sign flips
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=1e-2, alpha=0.5, t0=2, weight_decay=0.1)),
    ("ASGD", dict(lr=0.1, t0=0, maximize=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-5, 1e-2), d=1.5, weight_decay=0.1)),
    ("Adafactor", dict(lr=0.2, maximize=True)),
]


def _params(lib):
    rng = np.random.default_rng(0)
    w = lib.nn.Parameter(lib.tensor(rng.standard_normal((3, 4)).astype(np.float32)))
    b = lib.nn.Parameter(lib.tensor(rng.standard_normal(4).astype(np.float32)))
    x = lib.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    return w, b, x


def _loss(x, w, b):
    return ((x @ w + b).tanh() ** 2).sum()


def _trajectory(lib, name, kw, steps, **extra):
    w, b, x = _params(lib)
    params = [w, b]
    if name == "Adafactor":  # a 3-d weight too: factored over the last two dims
        k = lib.nn.Parameter(lib.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4)))
        params.append(k)
    opt = getattr(lib.optim, name)(params, **kw, **extra)
    traj, versions = [], []
    for _ in range(steps):
        opt.zero_grad()
        loss = _loss(x, w, b)
        if len(params) == 3:
            loss = loss + (params[2].sin() * w).sum()
        loss.backward()
        opt.step()
        traj.append([p.detach().numpy().copy() for p in params])
        versions.append([p._version for p in params])
    return traj, versions, opt, params


def _same_state(state, tstate, rtol=2e-6, atol=6e-7):
    assert set(state) == set(tstate)
    for k, tv in tstate.items():
        v = state[k]
        if isinstance(tv, torch.Tensor):
            np.testing.assert_allclose(v.numpy(), tv.numpy(), rtol=rtol, atol=atol, err_msg=k)
            assert str(v.dtype).split(".")[-1] == str(tv.dtype).split(".")[-1], k
            assert tuple(v.shape) == tuple(tv.shape), k
        elif isinstance(tv, list):
            assert len(v) == len(tv), k
            for a, ta in zip(v, tv):
                if ta is None:
                    assert a is None, k
                else:
                    np.testing.assert_allclose(np.asarray(a.numpy()), ta.numpy(), rtol=rtol,
                                               atol=atol, err_msg=k)
        else:
            assert v == pytest.approx(tv, rel=rtol, abs=atol), k


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_trajectory_state_and_versions_match_torch(name, kw):
    ref, tvers, topt, tparams = _trajectory(torch, name, kw, 6, foreach=False)
    got, vers, opt, params = _trajectory(il, name, kw, 6)
    for tstep, step in zip(ref, got):
        for tp, p in zip(tstep, step):
            np.testing.assert_allclose(p, tp, rtol=1e-5, atol=1e-6)
    assert vers == tvers
    tsd, sd = topt.state_dict(), opt.state_dict()
    assert set(sd["state"]) == set(tsd["state"])
    for i in tsd["state"]:
        _same_state(sd["state"][i], tsd["state"][i], rtol=1e-5, atol=1e-6)
        for k, tv in tsd["state"][i].items():
            if isinstance(tv, torch.Tensor):
                assert sd["state"][i][k]._version == tv._version, k
    tg = {k: v for k, v in tsd["param_groups"][0].items() if k != "foreach"}
    g = {k: v for k, v in sd["param_groups"][0].items() if k != "foreach"}
    assert g == tg


@pytest.mark.parametrize("name,kw", [
    ("Rprop", dict(lr=-1)), ("Rprop", dict(etas=(1.0, 1.2))), ("Rprop", dict(etas=(0.5, 0.9))),
    ("ASGD", dict(lr=-0.1)), ("ASGD", dict(weight_decay=-1)),
    ("Adafactor", dict(lr=-1)), ("Adafactor", dict(beta2_decay=0.5)),
    ("Adafactor", dict(eps=(-1.0, 1e-3))), ("Adafactor", dict(eps=(None, -1.0))),
    ("Adafactor", dict(d=0.5)), ("Adafactor", dict(weight_decay=-0.1)),
    ("LBFGS", dict(lr=-1))])
def test_argument_errors_match_torch(name, kw):
    with pytest.raises(ValueError) as te:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(1))], **kw)
    with pytest.raises(ValueError) as ie:
        getattr(il.optim, name)([il.nn.Parameter(il.zeros(1))], **kw)
    assert str(ie.value) == str(te.value)


def test_asgd_averages_after_t0():
    """Until step t0 ``ax`` is a copy of the parameter; after it, a running average."""
    _, _, opt, (w, b) = _trajectory(il, "ASGD", dict(lr=0.05, t0=3), 6)
    st = opt.state[w]
    assert float(st["mu"]) == pytest.approx(1 / 3)
    assert not np.allclose(st["ax"].numpy(), w.detach().numpy())


# ---- LBFGS ----------------------------------------------------------------------------------
# Without a line search the fixed step on the tanh model is chaotic (torch against itself in
# float64 drifts apart), so those cases fit a linear model; the line search keeps tanh stable.
LBFGS_CASES = [
    dict(),
    dict(lr=0.5, max_iter=5),
    dict(lr=1, max_iter=4, history_size=2),
    dict(lr=0.3, max_iter=40, history_size=1),
    dict(line_search_fn="strong_wolfe"),
    dict(lr=0.8, max_iter=6, history_size=3, line_search_fn="strong_wolfe"),
    dict(max_iter=30, tolerance_grad=1e-3, tolerance_change=1e-4, line_search_fn="strong_wolfe"),
    dict(max_iter=7, max_eval=9, tolerance_change=1e-5),
]


def _lbfgs(lib, kw, steps, dt="float32"):
    w, b, x = _params(lib)
    w, b = (lib.nn.Parameter(p.detach().to(getattr(lib, dt))) for p in (w, b))
    # 20 samples and a ridge on both: a well-conditioned problem, so float32's last bits are
    # not amplified by the curvature estimates
    x = lib.tensor(np.random.default_rng(1).standard_normal((20, 3)).astype(dt))
    target = lib.tensor(np.linspace(-0.5, 0.5, 80, dtype=dt).reshape(20, 4))
    opt = lib.optim.LBFGS([w, b], **kw)
    calls = [0]

    def closure():
        calls[0] += 1
        opt.zero_grad()
        z = x @ w + b
        z = z.tanh() if kw.get("line_search_fn") else z
        loss = ((z - target) ** 2).mean() + 0.1 * (w ** 2).sum() + 0.1 * (b ** 2).sum()
        loss.backward()
        return loss

    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        out.append((float(loss.detach()), [p.detach().numpy().copy() for p in (w, b)],
                    [p._version for p in (w, b)], calls[0]))
    return out, opt


LONG = {3}  # 40 iterations with one curvature pair: float32 runs compared in float64 only


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("i", range(len(LBFGS_CASES)))
def test_lbfgs_matches_torch(i, dt):
    """float64: the same algorithm, to 1e-9. float32: the parameters to rtol 1e-5 (atol 3e-6:
    the model's matmul and mean already differ from torch's by an ulp, which the curvature
    estimates amplify); the curvature history itself (``ro``, ``al``, ``H_diag``: ratios of
    differences of nearly equal float32 gradients once converged) only to 2e-3."""
    if dt == "float32" and i in LONG:
        pytest.skip("long float32 run: compared in float64")
    kw = LBFGS_CASES[i]
    rtol, atol = (1e-5, 3e-6) if dt == "float32" else (1e-9, 1e-12)
    srtol, satol = (2e-3, 1e-5) if dt == "float32" else (1e-8, 1e-12)
    steps = 3 if dt == "float64" else 2
    ref, topt = _lbfgs(torch, kw, steps, dt)
    got, opt = _lbfgs(il, kw, steps, dt)
    for (tl, tps, tv, tc), (l, ps, v, c) in zip(ref, got):
        assert l == pytest.approx(tl, rel=rtol, abs=atol)
        for tp, p in zip(tps, ps):
            np.testing.assert_allclose(p, tp, rtol=rtol, atol=atol)
        assert c == tc  # closure evaluations
        assert v == tv  # add_ per move, copy_ back after each line-search trial
    tsd, sd = topt.state_dict(), opt.state_dict()
    assert set(sd["state"]) == set(tsd["state"]) == {0}
    ts, s = tsd["state"][0], sd["state"][0]
    assert set(s) == set(ts)
    assert s["func_evals"] == ts["func_evals"]
    if dt == "float64":
        assert s["n_iter"] == ts["n_iter"]
    else:  # (float32: the last iteration's tolerance_change test is decided by an ulp of the
        # loss, and torch's own float32 loss differs by one between CPUs: 9 on an AVX512 Xeon
        # with MKL, 8 on an AMD EPYC)
        assert abs(s["n_iter"] - ts["n_iter"]) <= 1
    keys = ("d", "prev_flat_grad", "old_dirs", "old_stps", "ro", "al")
    _same_state({k: s[k] for k in keys if k in s}, {k: ts[k] for k in keys if k in ts},
                rtol=srtol, atol=satol)
    for k in ("t", "H_diag", "prev_loss"):
        assert type(s[k]).__name__ == type(ts[k]).__name__, k
        assert float(s[k]) == pytest.approx(float(ts[k]), rel=srtol, abs=satol), k
    assert sd["param_groups"] == tsd["param_groups"]


def test_lbfgs_first_step_t_is_a_float32_tensor_like_torch():
    got, opt = _lbfgs(il, dict(max_iter=1), 1)
    ref, topt = _lbfgs(torch, dict(max_iter=1), 1)
    t, tt = opt.state[opt._params[0]]["t"], topt.state[topt._params[0]]["t"]
    assert isinstance(tt, torch.Tensor) and isinstance(t, il.Tensor)
    assert str(t.dtype) == "torch.float32" == str(tt.dtype)


def test_lbfgs_converges_on_a_quadratic():
    x = il.nn.Parameter(il.tensor([3.0, -2.0]))
    opt = il.optim.LBFGS([x], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((x - il.tensor([1.0, 0.5])) ** 2 * il.tensor([1.0, 10.0])).sum()
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 0.5], atol=1e-4)


def test_lbfgs_errors_match_torch():
    for lib in (torch, il):
        p, q = lib.nn.Parameter(lib.zeros(1)), lib.nn.Parameter(lib.zeros(1))
        with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options "
                                             r"\(parameter groups\)$"):
            lib.optim.LBFGS([{"params": [p]}, {"params": [q]}])
        opt = lib.optim.LBFGS([p], line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = ((p - 1) ** 2).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError, match="^only 'strong_wolfe' is supported$"):
            opt.step(closure)
        with pytest.raises(TypeError):
            opt.step()


def test_lbfgs_stops_at_once_when_the_gradient_is_small():
    for lib in (torch, il):
        p = lib.nn.Parameter(lib.tensor([1.0]))
        opt = lib.optim.LBFGS([p])

        def closure():
            opt.zero_grad()
            loss = ((p - 1) ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        assert p._version == 0
        assert opt.state_dict()["state"][0] == {"func_evals": 1, "n_iter": 0}
