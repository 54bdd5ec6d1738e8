"""paddle.nn.ClipGradByValue / ClipGradByNorm / ClipGradByGlobalNorm as an optimizer's
``grad_clip`` and paddle.nn.utils.clip_grad_norm_ / clip_grad_value_, against paddle 3.3.1:
the same parameters after 5 steps, ``p.grad`` left unclipped by the optimizer's clip,
clipped in place (with its version moving) by the utils.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")

import inplace_lab.paddle as ip  # noqa: E402
from inplace_lab.paddle.nn import clip as ip_clip  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)

RNG = np.random.default_rng(2)
W1, B1 = RNG.standard_normal((3, 4)).astype("f4"), RNG.standard_normal(4).astype("f4")
W2, B2 = RNG.standard_normal((4, 2)).astype("f4"), RNG.standard_normal(2).astype("f4")
X, Y = RNG.standard_normal((8, 3)).astype("f4"), RNG.standard_normal((8, 2)).astype("f4")


def _net(lib):
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    for layer, w, b in ((net[0], W1, B1), (net[2], W2, B2)):
        layer.weight.set_value(w)
        layer.bias.set_value(b)
    return net


def _train(lib, make_clip, opt_name="SGD", no_clip_bias=False):
    net = _net(lib)
    if no_clip_bias:
        net[0].bias.need_clip = False
    opt = getattr(lib.optimizer, opt_name)(learning_rate=0.1, parameters=net.parameters(),
                                           grad_clip=make_clip(lib.nn))
    grads = None
    for _ in range(5):
        loss = ((net(lib.to_tensor(X)) - lib.to_tensor(Y)) ** 2).mean()
        loss.backward()
        grads = [np.array(p.grad.numpy()) for p in net.parameters()]
        opt.step()
        grads_after = [np.array(p.grad.numpy()) for p in net.parameters()]
        opt.clear_grad()
    return ([np.array(p.numpy()) for p in net.parameters()], grads, grads_after,
            [p._inplace_version() for p in net.parameters()])


CLIPS = {
    "value": lambda nn: nn.ClipGradByValue(0.05),
    "value-min": lambda nn: nn.ClipGradByValue(max=0.1, min=-0.02),
    "norm": lambda nn: nn.ClipGradByNorm(0.1),
    "global": lambda nn: nn.ClipGradByGlobalNorm(0.2),
    "global-large": lambda nn: nn.ClipGradByGlobalNorm(1e6),
    "global-skip": lambda nn: nn.ClipGradByGlobalNorm(0.2, auto_skip_clip=True),
}


@pytest.mark.parametrize("name", list(CLIPS))
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_clipped_training_gives_paddles_parameters(name, opt_name):
    want, got = _train(paddle, CLIPS[name], opt_name), _train(ip, CLIPS[name], opt_name)
    for g, w in zip(got[0], want[0]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    for g, w in zip(got[2], want[2]):  # the optimizer's clip does not rewrite p.grad
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert got[3] == want[3]


@pytest.mark.parametrize("name", ["value", "norm", "global"])
def test_need_clip_false_passes_a_parameter_through(name):
    want = _train(paddle, CLIPS[name], no_clip_bias=True)
    got = _train(ip, CLIPS[name], no_clip_bias=True)
    for g, w in zip(got[0], want[0]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_clip_objects_print_as_paddle():
    for make in CLIPS.values():
        assert str(make(ip.nn)) == str(make(paddle.nn))


def _utils_run(lib, fn):
    net = _net(lib)
    ((net(lib.to_tensor(X)) - lib.to_tensor(Y)) ** 2).mean().backward()
    result = fn(lib, net)
    return (None if result is None else float(result),
            [np.array(p.grad.numpy()) for p in net.parameters()],
            [p.grad._inplace_version() for p in net.parameters()])


def _utils(lib):
    return paddle.nn.utils if lib is paddle else ip_clip


@pytest.mark.parametrize("max_norm,norm_type", [(0.2, 2.0), (1e6, 2.0), (0.3, 1),
                                                (0.05, float("inf")), (2.0, 0)])
def test_clip_grad_norm_scales_grads_in_place_as_paddle(max_norm, norm_type):
    def fn(lib, net):
        return _utils(lib).clip_grad_norm_(net.parameters(), max_norm, norm_type)

    want, got = _utils_run(paddle, fn), _utils_run(ip, fn)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)
    assert got[2] == want[2]


def test_clip_grad_value_clips_grads_in_place_as_paddle():
    def fn(lib, net):
        return _utils(lib).clip_grad_value_(net.parameters(), 0.05)

    want, got = _utils_run(paddle, fn), _utils_run(ip, fn)
    assert got[0] is want[0] is None
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)
    assert max(np.abs(g).max() for g in got[1]) == np.float32(0.05)
    assert got[2] == want[2]


def test_clip_grad_norm_rejects_other_norm_types_as_paddle():
    errs = []
    for lib in (paddle, ip):
        net = _net(lib)
        try:
            _utils(lib).clip_grad_norm_(net.parameters(), 1.0, norm_type=3)
        except ValueError as e:
            errs.append(str(e))
    assert len(errs) == 2 and errs[1] == errs[0]


@pytest.mark.parametrize("name", ["ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm",
                                  "clip_grad_norm_", "clip_grad_value_"])
def test_clip_apis_have_paddles_signature(name):
    import inspect

    def sig(f):
        return [(n, p.default) for n, p in inspect.signature(f).parameters.items()]

    if name.startswith("Clip"):
        assert sig(getattr(ip.nn, name).__init__) == sig(getattr(paddle.nn, name).__init__)
    else:
        assert sig(getattr(ip_clip, name)) == sig(getattr(paddle.nn.utils, name))
