"""paddle.optimizer.lr: every scheduler gives real paddle's learning-rate sequence over 20
steps (exact floats: the recurrences are Paddle's), the same last_epoch and state_dict, and
Paddle's errors for bad arguments.
"""
from __future__ import annotations

import math
import warnings

import pytest

paddle = pytest.importorskip("paddle")

import inplace_lab.paddle as ip  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)

SCHEDULERS = {
    "StepDecay": lambda lr: lr.StepDecay(0.5, step_size=3, gamma=0.5),
    "MultiStepDecay": lambda lr: lr.MultiStepDecay(0.5, milestones=[2, 5, 11], gamma=0.3),
    "ExponentialDecay": lambda lr: lr.ExponentialDecay(0.5, gamma=0.9),
    "NaturalExpDecay": lambda lr: lr.NaturalExpDecay(0.5, gamma=0.1),
    "InverseTimeDecay": lambda lr: lr.InverseTimeDecay(0.5, gamma=0.1),
    "PolynomialDecay": lambda lr: lr.PolynomialDecay(0.5, decay_steps=7, end_lr=0.01, power=2.0),
    "PolynomialDecay-cycle": lambda lr: lr.PolynomialDecay(0.5, decay_steps=6, cycle=True),
    "PiecewiseDecay": lambda lr: lr.PiecewiseDecay(boundaries=[3, 8], values=[0.1, 0.05, 0.01]),
    "CosineAnnealingDecay": lambda lr: lr.CosineAnnealingDecay(0.5, T_max=6, eta_min=0.01),
    "LinearWarmup-float": lambda lr: lr.LinearWarmup(0.5, warmup_steps=5, start_lr=0.0,
                                                     end_lr=0.5),
    "LinearWarmup-sched": lambda lr: lr.LinearWarmup(lr.CosineAnnealingDecay(0.5, T_max=5),
                                                     warmup_steps=4, start_lr=0.01, end_lr=0.5),
    "LambdaDecay": lambda lr: lr.LambdaDecay(0.5, lr_lambda=lambda e: 0.95 ** e),
    "MultiplicativeDecay": lambda lr: lr.MultiplicativeDecay(0.5, lr_lambda=lambda e: 0.9),
    "NoamDecay": lambda lr: lr.NoamDecay(d_model=64, warmup_steps=5, learning_rate=2.0),
    "OneCycleLR": lambda lr: lr.OneCycleLR(max_learning_rate=1.0, total_steps=21),
    "OneCycleLR-3phase": lambda lr: lr.OneCycleLR(max_learning_rate=1.0, total_steps=25,
                                                  anneal_strategy="linear", three_phase=True),
    "CyclicLR": lambda lr: lr.CyclicLR(0.1, 1.0, step_size_up=3, step_size_down=5),
    "CyclicLR-tri2": lambda lr: lr.CyclicLR(0.1, 1.0, step_size_up=2, mode="triangular2"),
    "CyclicLR-exp": lambda lr: lr.CyclicLR(0.1, 1.0, step_size_up=2, mode="exp_range",
                                           exp_gamma=0.9),
    "LinearLR": lambda lr: lr.LinearLR(0.5, total_steps=8, start_factor=0.25),
    "CosineAnnealingWarmRestarts": lambda lr: lr.CosineAnnealingWarmRestarts(0.5, T_0=3,
                                                                              T_mult=2),
}


def _sequence(lib, make, steps=20):
    s = make(lib.optimizer.lr)
    out = []
    for _ in range(steps):
        out.append((s(), s.last_epoch, s.get_lr() if not hasattr(s, "T_cur") else s.last_lr))
        s.step()
    return out, s.state_dict()


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_twenty_steps_give_paddles_learning_rates(name):
    want, got = _sequence(paddle, SCHEDULERS[name]), _sequence(ip, SCHEDULERS[name])
    assert got[0] == want[0]
    assert got[1] == want[1]


def test_step_with_an_epoch_uses_the_closed_form_as_paddle():
    out = []
    for lib in (paddle, ip):
        s = lib.optimizer.lr.CosineAnnealingDecay(0.5, T_max=4)
        seq = []
        for e in (3, 7, 1, 10):
            s.step(e)
            seq.append((s.last_epoch, s()))
        out.append(seq)
    assert out[1] == out[0]


def test_reduce_on_plateau_follows_the_metrics_as_paddle():
    metrics = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.6, 0.6, 0.61, 0.7, 0.7, 0.7]
    out = []
    for lib in (paddle, ip):
        s = lib.optimizer.lr.ReduceOnPlateau(1.0, patience=2, factor=0.5, cooldown=1)
        seq = []
        for m in metrics:
            s.step(m)
            seq.append((s.last_epoch, s(), s.num_bad_epochs, s.cooldown_counter))
        out.append((seq, s.state_dict()))
    assert out[1] == out[0]


def test_set_state_dict_restores_the_position_as_paddle():
    out = []
    for lib in (paddle, ip):
        a = lib.optimizer.lr.StepDecay(0.5, step_size=2)
        for _ in range(5):
            a.step()
        b = lib.optimizer.lr.StepDecay(0.5, step_size=2)
        b.set_state_dict(a.state_dict())
        b.step()
        out.append((b.last_epoch, b()))
    assert out[1] == out[0] and out[0][0] == 6 and math.isclose(out[0][1], 0.5 * 0.1 ** 3)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - type and text are what is compared
        return type(e), str(e).splitlines()[0]
    return None


BAD = [
    lambda lr: lr.StepDecay(0.5, step_size=2.0),
    lambda lr: lr.StepDecay(0.5, step_size=2, gamma=1.5),
    lambda lr: lr.MultiStepDecay(0.5, milestones=[5, 2]),
    lambda lr: lr.MultiStepDecay(0.5, milestones=3),
    lambda lr: lr.PiecewiseDecay(boundaries=[], values=[0.1]),
    lambda lr: lr.PiecewiseDecay(boundaries=[1, 2], values=[0.1, 0.2]),
    lambda lr: lr.CosineAnnealingDecay(0.5, T_max=2.5),
    lambda lr: lr.LinearWarmup("x", 3, 0.0, 1.0),
    lambda lr: lr.ReduceOnPlateau(1.0, mode="avg"),
    lambda lr: lr.ReduceOnPlateau(1.0, factor=2.0),
    lambda lr: lr.OneCycleLR(1.0, total_steps=0),
    lambda lr: lr.CyclicLR(0.1, 1.0, step_size_up=0),
    lambda lr: lr.LambdaDecay(0.5, lr_lambda=3),
    lambda lr: lr.NoamDecay(d_model=0, warmup_steps=3),
    lambda lr: lr.StepDecay("0.5", step_size=2),
    lambda lr: lr.StepDecay(-0.5, step_size=2),
    lambda lr: lr.CosineAnnealingWarmRestarts(0.5, T_0=0),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_arguments_raise_paddles_errors(i):
    want = _error(lambda: BAD[i](paddle.optimizer.lr))
    assert want is not None and _error(lambda: BAD[i](ip.optimizer.lr)) == want


def test_one_cycle_past_total_steps_raises_as_paddle():
    errs = []
    for lib in (paddle, ip):
        s = lib.optimizer.lr.OneCycleLR(1.0, total_steps=3)
        errs.append(_error(lambda: [s.step() for _ in range(4)]))
    assert errs[1] == errs[0] and errs[0][0] is ValueError


@pytest.mark.parametrize("name", paddle.optimizer.lr.__all__)
def test_schedulers_have_paddles_signature(name):
    import inspect

    def sig(f):
        return [(n, p.default) for n, p in inspect.signature(f).parameters.items()]

    assert sig(getattr(ip.optimizer.lr, name).__init__) == \
        sig(getattr(paddle.optimizer.lr, name).__init__)
