"""nn.functional forward and backward on ``cuda`` against the CPU, through ``cupy_like``.

Where there is no GPU the cuda half runs on the simulated GPU backed by cupy_like (numpy
refusing what cupy refuses, allocating as cupy does; tests/differential/cupy_like.py), on a
real GPU through cupy. Each case: the same inputs on both devices, one forward, one backward
with the same upstream gradient; values, strides and gradients must agree.
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab.torch as T
from tests.differential.cupy_like import any_gpu

F = T.nn.functional


@pytest.fixture(autouse=True)
def gpu():
    with any_gpu():
        yield


def _x(*shape, seed=0, scale=1.0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * scale


_LABELS = np.array([1, 0, 3, 2])

CASES = {
    "conv1d": ([_x(2, 3, 9), _x(4, 3, 3, seed=1)], lambda x, w: F.conv1d(x, w, padding=1)),
    "conv2d strided": ([_x(2, 3, 8, 8), _x(4, 3, 3, 3, seed=1), _x(4, seed=2)],
                       lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1)),
    "conv2d groups dilation": ([_x(1, 4, 7, 7), _x(4, 2, 3, 3, seed=1)],
                               lambda x, w: F.conv2d(x, w, groups=2, dilation=2)),
    "max_pool2d": ([_x(2, 3, 8, 8)], lambda x: F.max_pool2d(x, 2)),
    "avg_pool2d": ([_x(2, 3, 8, 8)], lambda x: F.avg_pool2d(x, 3, 2, 1)),
    "adaptive_avg_pool2d": ([_x(2, 3, 7, 7)], lambda x: F.adaptive_avg_pool2d(x, (3, 2))),
    "batch_norm train": ([_x(4, 3, 5), _x(3, seed=1), _x(3, seed=2)],
                         lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)),
    "layer_norm": ([_x(4, 6), _x(6, seed=1), _x(6, seed=2)],
                   lambda x, w, b: F.layer_norm(x, (6,), w, b)),
    "group_norm": ([_x(2, 4, 5)], lambda x: F.group_norm(x, 2)),
    "cross_entropy": ([_x(4, 5)], lambda x: F.cross_entropy(x, T.tensor(_LABELS, device=x.device))),
    "cross_entropy smoothing": ([_x(4, 5)], lambda x: F.cross_entropy(
        x, T.tensor(_LABELS, device=x.device), label_smoothing=0.1)),
    "nll_loss weighted": ([_x(4, 5)], lambda x: F.nll_loss(
        F.log_softmax(x, 1), T.tensor(_LABELS, device=x.device),
        weight=T.tensor(np.abs(_x(5, seed=1)), device=x.device))),
    "mse_loss": ([_x(3, 4), _x(3, 4, seed=1)], lambda x, y: F.mse_loss(x, y)),
    "binary_cross_entropy_with_logits": ([_x(3, 4), _x(3, 4, seed=1)],
                                         lambda x, y: F.binary_cross_entropy_with_logits(
                                             x, y.sigmoid())),
    "smooth_l1_loss": ([_x(3, 4), _x(3, 4, seed=1)], lambda x, y: F.smooth_l1_loss(x, y)),
    "softmax": ([_x(3, 5)], lambda x: F.softmax(x, -1)),
    "log_softmax dim0": ([_x(3, 5)], lambda x: F.log_softmax(x, 0)),
    "gelu tanh": ([_x(3, 5)], lambda x: F.gelu(x, approximate="tanh")),
    "silu": ([_x(3, 5)], lambda x: F.silu(x)),
    "elu": ([_x(3, 5)], lambda x: F.elu(x)),
    "softplus": ([_x(3, 5)], lambda x: F.softplus(x, beta=2)),
    "hardswish": ([_x(3, 5)], lambda x: F.hardswish(x)),
    "leaky_relu": ([_x(3, 5)], lambda x: F.leaky_relu(x, 0.1)),
    "embedding": ([_x(6, 3)], lambda w: F.embedding(T.tensor([[0, 2], [5, 2]], device=w.device), w)),
    "one_hot matmul": ([_x(4, 3)], lambda w: F.one_hot(
        T.tensor([0, 3, 3], dtype=T.int64, device=w.device), 4).to(w.dtype) @ w),
    "pad reflect": ([_x(1, 2, 4, 4)], lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect")),
    "pad replicate": ([_x(1, 2, 5)], lambda x: F.pad(x, (2, 1), mode="replicate")),
    "interpolate nearest": ([_x(1, 2, 3, 3)], lambda x: F.interpolate(x, scale_factor=2)),
    "interpolate bilinear": ([_x(1, 2, 3, 4)], lambda x: F.interpolate(
        x, size=(5, 7), mode="bilinear", align_corners=False)),
    "scaled_dot_product_attention": ([_x(2, 3, 4), _x(2, 5, 4, seed=1), _x(2, 5, 4, seed=2)],
                                     lambda q, k, v: F.scaled_dot_product_attention(q, k, v)),
    "linear": ([_x(3, 4), _x(5, 4, seed=1), _x(5, seed=2)], lambda x, w, b: F.linear(x, w, b)),
    "cosine_similarity": ([_x(3, 4), _x(3, 4, seed=1)], lambda x, y: F.cosine_similarity(x, y)),
    "normalize": ([_x(3, 4)], lambda x: F.normalize(x, dim=0)),
}


def _run(dev, arrays, fn):
    xs = [T.tensor(a, device=dev, requires_grad=True) for a in arrays]
    y = fn(*xs)
    g = T.tensor(np.linspace(-1, 1, y.numel(), dtype=np.float32).reshape(tuple(y.shape)),
                 device=dev)
    y.backward(g)
    assert all(x.device.type == dev for x in [y] + xs)
    return y, [x.grad for x in xs]


@pytest.mark.parametrize("name", CASES)
def test_an_nn_op_on_cuda_matches_the_cpu(name):
    arrays, fn = CASES[name]
    y0, g0 = _run("cpu", arrays, fn)
    y1, g1 = _run("cuda", arrays, fn)
    assert y1.shape == y0.shape and y1.stride() == y0.stride() and y1.dtype == y0.dtype
    np.testing.assert_allclose(y1.detach().cpu().numpy(), y0.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    for a, b in zip(g1, g0):
        assert a.stride() == b.stride()
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_a_cnn_trains_the_same_on_cuda():
    """Conv2d + BatchNorm2d + MaxPool2d + Linear with Adam, three steps on each device. (The
    conv has no bias: before a BatchNorm its gradient is 0 but for rounding, which Adam turns
    into steps of +-lr in whichever direction each device's order of additions rounds.)"""
    def make():
        return T.nn.Sequential(T.nn.Conv2d(2, 4, 3, padding=1, bias=False), T.nn.BatchNorm2d(4),
                               T.nn.ReLU(),
                               T.nn.MaxPool2d(2), T.nn.Flatten(), T.nn.Linear(4 * 3 * 3, 3))

    T.manual_seed(0)
    weights = make().state_dict()
    x, y = _x(5, 2, 6, 6), np.array([0, 2, 1, 1, 0])
    runs = {}
    for dev in ("cpu", "cuda"):
        model = make().to(dev)
        model.load_state_dict(weights)
        opt = T.optim.Adam(model.parameters(), lr=0.01)
        xs, ys = T.tensor(x, device=dev), T.tensor(y, device=dev)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(model(xs), ys)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        runs[dev] = (losses, model[1].running_mean.cpu().tolist())
    np.testing.assert_allclose(runs["cuda"][0], runs["cpu"][0], rtol=1e-5)
    np.testing.assert_allclose(runs["cuda"][1], runs["cpu"][1], rtol=1e-5, atol=1e-7)
