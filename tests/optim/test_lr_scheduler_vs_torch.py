"""torch.optim.lr_scheduler against torch 2.13: the lr sequence of 30 steps is the same
floats (chainable and closed forms), momentum/betas cycling, ReduceLROnPlateau, state
dicts, warnings and error texts."""
from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as il  # noqa: E402


def _opt(lib, opt="SGD", two_groups=True, **kw):
    w1, w2 = lib.nn.Parameter(lib.zeros(2)), lib.nn.Parameter(lib.zeros(2))
    groups = [{"params": [w1]}, {"params": [w2], "lr": 0.03}] if two_groups else [w1]
    kw.setdefault("lr", 0.1)
    return getattr(lib.optim, opt)(groups, **kw)


_KEYS = ("lr", "initial_lr", "momentum", "betas", "max_lr", "min_lr", "max_momentum",
         "base_momentum")


def _hyper(o):
    return [{k: g[k] for k in _KEYS if k in g} for g in o.param_groups]


def _run(lib, make, n=30, opt="SGD", epochs=None, **okw):
    o = _opt(lib, opt, **okw)
    s = make(lib.optim.lr_scheduler, o)
    seq = [(s.get_last_lr(), _hyper(o))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(n):
            o.step()
            s.step() if epochs is None else s.step(epochs[i])
            seq.append((s.get_last_lr(), _hyper(o)))
    return seq, s, o


CASES = {
    "StepLR": lambda m, o: m.StepLR(o, 7, gamma=0.3),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, [3, 3, 10, 20], gamma=0.7),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, 0.93),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=8, eta_min=0.001),
    "LambdaLR": lambda m, o: m.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1 / (e + 1)]),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=10),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=30),
    "OneCycleLR3": lambda m, o: m.OneCycleLR(o, max_lr=1.0, epochs=3, steps_per_epoch=11,
                                             three_phase=True, anneal_strategy="linear"),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=12, power=2.0),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=4),
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lambda e: 0.9),
    "SequentialLR": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, 0.1, total_iters=5), m.ExponentialLR(o, 0.9)], milestones=[5]),
    "CosineAnnealingWarmRestarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, 4, T_mult=2,
                                                                              eta_min=1e-3),
    "CosineAnnealingWarmRestarts1": lambda m, o: m.CosineAnnealingWarmRestarts(o, 5),
    "CyclicLR": lambda m, o: m.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=4, step_size_down=7),
    "CyclicLR2": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="triangular2"),
    "CyclicLRexp": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=5, mode="exp_range",
                                           gamma=0.97),
    "ChainedScheduler": lambda m, o: m.ChainedScheduler([m.ExponentialLR(o, 0.9),
                                                          m.StepLR(o, 4, 0.5)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_lr_sequence_is_torchs(name, opt):
    kw = dict(momentum=0.9) if opt == "SGD" else {}
    a, ts, _ = _run(torch, CASES[name], opt=opt, **kw)
    b, s, _ = _run(il, CASES[name], opt=opt, **kw)
    assert b == a  # the same floats: lrs and every group hyper-parameter (momentum, betas)
    assert getattr(s, "last_epoch", None) == getattr(ts, "last_epoch", None)


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
                                  "LinearLR", "PolynomialLR", "ConstantLR", "LambdaLR",
                                  "CosineAnnealingWarmRestarts", "CosineAnnealingWarmRestarts1"])
def test_closed_form_with_epoch_argument(name):
    epochs = [3, 1, 8, 8, 15, 2, 0, 12, 4.5, 27.25, 30]
    a, _, _ = _run(torch, CASES[name], n=len(epochs), epochs=epochs)
    b, _, _ = _run(il, CASES[name], n=len(epochs), epochs=epochs)
    assert b == a


@pytest.mark.parametrize("kw", [dict(), dict(mode="max", threshold_mode="abs", patience=2,
                                             cooldown=2, factor=0.5, min_lr=[0.01, 0.02])])
def test_reduce_lr_on_plateau(kw):
    metrics = [5, 4, 4, 4.1, 4, 4, 3.9999, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 3, 3, 3, 3, 3, 3]
    metrics = metrics + [m + 0.5 for m in metrics]
    out = []
    for lib in (torch, il):
        o = _opt(lib)
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(o, **kw)
        assert isinstance(s, lib.optim.lr_scheduler.LRScheduler)
        seq = []
        for m in metrics:
            o.step()
            s.step(m)
            seq.append((s.get_last_lr(), s.num_bad_epochs, s.cooldown_counter, s.best))
        out.append(seq)
    assert out[1] == out[0]


def test_state_dict_round_trip_resumes_the_sequence():
    ref, _, _ = _run(torch, CASES["CosineAnnealingLR"], n=20)
    o = _opt(il)
    s = il.optim.lr_scheduler.CosineAnnealingLR(o, T_max=8, eta_min=0.001)
    for _ in range(10):
        o.step()
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 10
    osd = o.state_dict()
    o2 = _opt(il)
    o2.load_state_dict(osd)
    s2 = il.optim.lr_scheduler.CosineAnnealingLR(o2, T_max=8, eta_min=0.001, last_epoch=9)
    s2.load_state_dict(sd)
    seq = []
    for _ in range(10):
        o2.step()
        s2.step()
        seq.append(s2.get_last_lr())
    assert seq == [lrs for lrs, _ in ref[11:]]
    assert set(sd) == set(torch.optim.lr_scheduler.CosineAnnealingLR(
        _opt(torch), T_max=8).state_dict())


def test_warnings_and_errors_match_torch():
    for lib in (torch, il):
        o = _opt(lib)
        s = lib.optim.lr_scheduler.StepLR(o, 3)
        with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before"):
            s.step()
        with pytest.warns(UserWarning, match="please use `get_last_lr"):
            s.get_lr()
        with pytest.raises(TypeError, match="^list is not an Optimizer$"):
            lib.optim.lr_scheduler.StepLR([], 3)
        with pytest.raises(KeyError, match="param 'initial_lr' is not specified in "):
            lib.optim.lr_scheduler.StepLR(_opt(lib), 3, last_epoch=4)
        with pytest.raises(ValueError, match="^Starting multiplicative factor expected"):
            lib.optim.lr_scheduler.LinearLR(o, start_factor=0)
        with pytest.raises(ValueError, match="^Expected 2 lr_lambdas, but got 1$"):
            lib.optim.lr_scheduler.LambdaLR(o, [lambda e: 1])
        with pytest.raises(ValueError, match="^Factor should be < 1.0.$"):
            lib.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1.0)
        with pytest.raises(ValueError, match="^You must define either total_steps OR"):
            lib.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0)
        o2 = _opt(lib)
        oc = lib.optim.lr_scheduler.OneCycleLR(o2, max_lr=1.0, total_steps=2)
        o2.step()
        oc.step()
        oc.step()
        with pytest.raises(ValueError, match="^Tried to step 3 times. The specified number of "
                                             "total steps is 2$"):
            oc.step()


def test_import_forms():
    import inplace_lab.torch.optim.lr_scheduler as m
    from inplace_lab.torch.optim.lr_scheduler import StepLR

    assert m is il.optim.lr_scheduler and StepLR is m.StepLR
