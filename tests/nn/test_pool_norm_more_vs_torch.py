"""Pools with indices, unpooling, 3-d pools, instance/RMS/local response norms, lp pools,
channel shuffle and the new pads vs torch 2.13: the same numpy inputs to both; outputs,
indices (exactly), gradients, grad_fn names, module reprs, running statistics and errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as ilt  # noqa: E402
from inplace_lab import backend  # noqa: E402
from tests.differential.cupy_like import simulated_cupy  # noqa: E402

NAN, INF = float("nan"), float("inf")
rng = np.random.default_rng(0)
X1 = rng.standard_normal((2, 3, 9)).astype(np.float32)
X2 = rng.standard_normal((2, 3, 7, 7)).astype(np.float32)
X3 = rng.standard_normal((2, 3, 5, 6, 7)).astype(np.float32)
# ties, -inf, NaN and signed zeros in one plane
TIES = np.array([[[[1, 1, 0, -0.0, 2, 2], [NAN, 1, -INF, -INF, 2, NAN],
                   [3, 3, -INF, -INF, NAN, NAN], [0, -0.0, 5, 5, 1, 1]]]], dtype=np.float32)
INPUTS = {"x1": X1, "x2": X2, "x3": X3, "ties": TIES, "u1": X1[0], "u2": X2[0], "u3": X3[0]}

CASES = [  # (input, expression with F = nn.functional)
    ("x2", "F.max_pool2d(x, 3, 2, 1, return_indices=True)"),
    ("x2", "F.max_pool2d(x, 3, 2, 1, 2, True, True)"),
    ("x2", "F.max_pool2d(x, (2, 3), (1, 2), (1, 0), ceil_mode=True, return_indices=True)"),
    ("x2", "F.max_pool2d_with_indices(x, 2)"),
    ("u2", "F.max_pool2d(x, 2, return_indices=True)"),
    ("ties", "F.max_pool2d(x, 2, 1, return_indices=True)"),
    ("ties", "F.max_pool2d(x, 3, 1, 1, return_indices=True)"),
    ("ties", "F.max_pool2d(x, 2, 2, 1, ceil_mode=True, return_indices=True)"),
    ("x1", "F.max_pool1d(x, 3, 2, 1, return_indices=True)"),
    ("x1", "F.max_pool1d(x, 2, 2, 1, 2, True, True)"),
    ("x1", "F.max_pool1d_with_indices(x, 3)"),
    ("u1", "F.max_pool1d(x, 2, return_indices=True)"),
    ("x3", "F.max_pool3d(x, 3, 2, 1, return_indices=True)"),
    ("x3", "F.max_pool3d(x, 2, ceil_mode=True, dilation=(1, 2, 1))"),
    ("u3", "F.max_pool3d(x, (1, 2, 3), return_indices=True)"),
    ("x3", "F.avg_pool3d(x, 3, 2, 1)"),
    ("x3", "F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)"),
    ("u3", "F.avg_pool3d(x, 2, divisor_override=3)"),
    ("x3", "F.adaptive_avg_pool3d(x, (2, 4, 3))"),
    ("x3", "F.adaptive_avg_pool3d(x, 1)"),
    ("u3", "F.adaptive_avg_pool3d(x, (None, 2, 5))"),
    ("x3", "F.adaptive_max_pool3d(x, (2, 4, 3), True)"),
    ("u3", "F.adaptive_max_pool3d(x, 2)"),
    ("x1", "F.adaptive_max_pool1d(x, 4, True)"),
    ("u1", "F.adaptive_max_pool1d(x, 5)"),
    ("x2", "F.max_unpool2d(*F.max_pool2d(x[..., :6, :6], 2, return_indices=True), 2)"),
    ("x2", "F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2, output_size=(7, 7))"),
    ("x2", "F.max_unpool2d(*F.max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1, "
           "output_size=[2, 3, 7, 7])"),
    ("u2", "F.max_unpool2d(*F.max_pool2d(x[..., 1:, 1:], 2, return_indices=True), 2)"),
    ("x1", "F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2, output_size=(9,))"),
    ("x3", "F.max_unpool3d(*F.max_pool3d(x[..., :6], 2, return_indices=True), 2)"),
    ("x2", "F.instance_norm(x)"),
    ("x3", "F.instance_norm(x, eps=1e-3)"),
    ("x1", "F.instance_norm(x, weight=w3, bias=b3)"),
    ("x2", "F.rms_norm(x, (7,))"),
    ("x2", "F.rms_norm(x, (7, 7), weight=w77, eps=1e-3)"),
    ("x2", "F.local_response_norm(x, 3)"),
    ("x1", "F.local_response_norm(x, 2, 1e-2, 0.5, 2.0)"),
    ("x3", "F.local_response_norm(x, 4)"),
    ("x1", "F.lp_pool1d(x, 2, 3)"),
    ("x1", "F.lp_pool1d(x, float('inf'), 2)"),
    ("x2", "F.lp_pool2d(x, 3, 2, 1, True)"),
    ("x3", "F.lp_pool3d(x, 2, 2)"),
    ("x2", "F.channel_shuffle(x, 3)"),
    ("x3", "nn.ChannelShuffle(3)(x)"),
    ("x2", "nn.Softmax2d()(x)"),
    ("x3", "nn.ZeroPad3d((1, 0, 2, 1, 0, 1))(x)"),
    ("x1", "nn.CircularPad1d((2, 1))(x)"),
    ("x2", "nn.CircularPad2d((1, 2, 3, 0))(x)"),
    ("x3", "nn.CircularPad3d(1)(x)"),
    ("x2", "nn.MaxPool2d(3, 2, return_indices=True)(x)"),
    ("x1", "nn.MaxPool1d(3, 2, return_indices=True)(x)"),
    ("x3", "nn.MaxPool3d(2, return_indices=True)(x)"),
    ("x3", "nn.AvgPool3d(2, 1)(x)"),
    ("x3", "nn.AdaptiveAvgPool3d(2)(x)"),
    ("x1", "nn.AdaptiveMaxPool1d(3, True)(x)"),
    ("x3", "nn.AdaptiveMaxPool3d(2, True)(x)"),
    ("x2", "nn.MaxUnpool2d(2)(*nn.MaxPool2d(2, return_indices=True)(x[..., :6, :6]))"),
    ("x3", "nn.InstanceNorm3d(3)(x)"),
    ("u2", "nn.InstanceNorm2d(3)(x)"),
    ("x2", "nn.RMSNorm(7)(x)"),
    ("x2", "nn.LocalResponseNorm(2)(x)"),
    ("x2", "nn.LPPool2d(2, 2)(x)"),
]


def _run(m, key, src):
    x = m.tensor(INPUTS[key].copy(), requires_grad=True)
    w3 = m.tensor(np.array([1.5, -0.5, 2.0], np.float32), requires_grad=True)
    b3 = m.tensor(np.array([0.1, 0.2, -0.3], np.float32), requires_grad=True)
    w77 = m.tensor(_W77.copy(), requires_grad=True)
    out = eval(src, {"F": m.nn.functional, "nn": m.nn, "x": x, "w3": w3, "b3": b3, "w77": w77})
    outs = out if isinstance(out, tuple) else (out,)
    outs[0].backward(m.tensor(_grad_for(tuple(outs[0].shape))))
    return x, outs, (w3, b3, w77)


_W77 = np.random.default_rng(1).standard_normal((7, 7)).astype(np.float32)


def _grad_for(shape):
    return np.random.default_rng(2).standard_normal(shape).astype(np.float32)


def _np(t):
    return np.asarray(t.detach().numpy())


@pytest.mark.parametrize("key,src", CASES, ids=[s for _, s in CASES])
def test_outputs_indices_gradients_and_grad_fn_match_torch(key, src):
    tx, touts, tp = _run(torch, key, src)
    lx, louts, lp = _run(ilt, key, src)
    assert len(touts) == len(louts)
    for t, l in zip(touts, louts):
        if t.dtype == torch.int64:
            assert l.dtype == ilt.int64
            np.testing.assert_array_equal(_np(l), _np(t))
        else:
            assert l.dtype == ilt.float32
            np.testing.assert_allclose(_np(l), _np(t), rtol=1e-5, atol=1e-6)
            # the sign of a zero maximum is the first zero's, as torch
            real = ~np.isnan(_np(t))
            np.testing.assert_array_equal(np.signbit(_np(l))[real], np.signbit(_np(t))[real])
        assert tuple(l.shape) == tuple(t.shape)
    assert type(louts[0].grad_fn).__name__ == type(touts[0].grad_fn).__name__
    np.testing.assert_allclose(_np(lx.grad), _np(tx.grad), rtol=1e-5, atol=1e-5)
    for t, l in zip(tp, lp):
        assert (t.grad is None) == (l.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(_np(l.grad), _np(t.grad), rtol=1e-4, atol=1e-5)


def test_max_pool_indices_follow_torchs_rule_on_ties_nan_and_minus_inf():
    """First of equal values, the last NaN, a window of -inf points at its first cell."""
    row = np.array([[[NAN, 1, NAN, 2, 5, 5, -INF, -INF]]], np.float32)
    y, i = ilt.nn.functional.max_pool1d(ilt.tensor(row), 3, 1, return_indices=True)
    ty, ti = torch.nn.functional.max_pool1d(torch.tensor(row), 3, 1, return_indices=True)
    assert i.tolist() == ti.tolist() == [[[2, 2, 2, 4, 4, 5]]]


def test_max_pool_indices_are_int64_of_an_integer_input():
    x = np.arange(32, dtype=np.int64).reshape(2, 4, 4)[:, ::-1].copy()
    y, i = ilt.nn.functional.max_pool2d(ilt.tensor(x), 2, return_indices=True)
    ty, ti = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    assert y.tolist() == ty.tolist() and i.tolist() == ti.tolist() and i.dtype == ilt.int64


def test_max_pool_with_indices_saves_input_and_indices():
    x = ilt.tensor(X2, requires_grad=True)
    y, _ = ilt.nn.functional.max_pool2d(x, 2, return_indices=True)
    with ilt.no_grad():
        x.mul_(1)  # bumps the version: the saved input is now stale
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


MODULES = [
    "MaxPool3d(2)", "MaxPool3d(3, 1, 1, 2, True, True)", "AvgPool3d(2)",
    "AvgPool3d((1, 2, 3), 1, 0, True, False, 2)", "AdaptiveAvgPool3d(2)",
    "AdaptiveAvgPool3d((None, 2, 3))", "AdaptiveMaxPool1d(3)", "AdaptiveMaxPool3d(2, True)",
    "MaxUnpool1d(2)", "MaxUnpool2d(3, 2, 1)", "MaxUnpool3d((1, 2, 2))", "InstanceNorm1d(3)",
    "InstanceNorm2d(4, affine=True)", "InstanceNorm3d(3, 1e-3, None, track_running_stats=True)",
    "BatchNorm3d(3)", "BatchNorm3d(3, affine=False, track_running_stats=False)", "RMSNorm(4)",
    "RMSNorm([4, 5], eps=1e-3, elementwise_affine=False)", "LocalResponseNorm(2)",
    "LocalResponseNorm(3, 1e-3, 0.5, 2.0)", "LPPool1d(2, 3)", "LPPool2d(1.5, 2, 1, True)",
    "LPPool3d(2, 3)", "ChannelShuffle(2)", "Softmax2d()", "ZeroPad3d(1)",
    "ZeroPad3d((1, 2, 3, 4, 5, 6))", "CircularPad1d(1)", "CircularPad2d((1, 2, 3, 4))",
    "CircularPad3d(2)", "MaxPool2d(2, return_indices=True)", "MaxPool1d(2, return_indices=True)",
]


@pytest.mark.parametrize("src", MODULES)
def test_module_repr_and_state_dict_keys_match_torch(src):
    t, l = eval("nn." + src, {"nn": torch.nn}), eval("nn." + src, {"nn": ilt.nn})
    assert repr(l) == repr(t)
    assert list(l.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():
        np.testing.assert_array_equal(_np(l.state_dict()[k]), _np(v))
        assert l.state_dict()[k]._version == v._version


@pytest.mark.parametrize("src,shape", [
    ("InstanceNorm1d(3, track_running_stats=True)", (2, 3, 5)),
    ("InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3)", (2, 3, 4, 4)),
    ("InstanceNorm3d(3, track_running_stats=True, momentum=None)", (2, 3, 2, 3, 4)),
    ("InstanceNorm1d(3, track_running_stats=True)", (3, 5)),
    ("BatchNorm3d(3)", (2, 3, 2, 3, 4)),
    ("BatchNorm3d(3, momentum=None)", (2, 3, 2, 3, 4)),
])
def test_running_statistics_after_training_steps_and_eval_match_torch(src, shape):
    t, l = eval("nn." + src, {"nn": torch.nn}), eval("nn." + src, {"nn": ilt.nn})
    r = np.random.default_rng(3)
    for step in range(3):
        x = (r.standard_normal(shape) * (step + 1) + step).astype(np.float32)
        tx, lx = torch.tensor(x, requires_grad=True), ilt.tensor(x, requires_grad=True)
        ty, ly = t(tx), l(lx)
        np.testing.assert_allclose(_np(ly), _np(ty), rtol=1e-5, atol=1e-5)
        ty.pow(2).sum().backward()
        ly.pow(2).sum().backward()
        np.testing.assert_allclose(_np(lx.grad), _np(tx.grad), rtol=1e-4, atol=1e-4)
    for k, v in t.state_dict().items():
        np.testing.assert_allclose(_np(l.state_dict()[k]), _np(v), rtol=1e-5, atol=1e-6)
        assert l.state_dict()[k]._version == v._version, k
    t.eval()
    l.eval()
    x = r.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(_np(l(ilt.tensor(x))), _np(t(torch.tensor(x))), rtol=1e-5,
                               atol=1e-5)
    for k, v in t.state_dict().items():
        assert l.state_dict()[k]._version == v._version, k


ERRORS = [
    "F.max_pool2d(x2, 2, padding=2, return_indices=True)",
    "F.max_pool2d(x2[0, 0, :1, :1], 2, return_indices=True)",
    "F.max_pool2d(x2[:, :, :2, :2], 3, return_indices=True)",
    "F.max_pool2d(x2, 2, stride=0, return_indices=True)",
    "F.max_pool3d(x3, 2, padding=2)", "F.max_pool3d(x3[0, 0], 2)", "F.max_pool3d(x3, (2, 2))",
    "F.max_pool3d(x3, 2, dilation=0)", "F.max_pool3d(x3, 9)",
    "F.max_pool1d(x2, 2, return_indices=True)",
    "F.avg_pool3d(x3, 2, padding=2)", "F.avg_pool3d(x3, 9)", "F.avg_pool3d(x3[0, 0], 2)",
    "F.avg_pool3d(x3, 2, divisor_override=0)",
    "F.adaptive_avg_pool3d(x3[0, 0], 2)", "F.adaptive_max_pool3d(x3[0, 0], 2)",
    "F.adaptive_max_pool3d(x3, (2, 2))", "F.adaptive_max_pool1d(x1[0, 0], 2)",
    "F.max_unpool2d(y2, i2, 2, output_size=(9, 9))",
    "F.max_unpool2d(y2, i2, 2, output_size=(1, 2, 3))",
    "F.max_unpool2d(y2, bad2, 2)", "F.max_unpool2d(y2, i2.float(), 2)",
    "F.max_unpool2d(y2, i2[:, :1], 2)", "F.max_unpool2d(y2[0, 0], i2[0, 0], 2)",
    "F.max_unpool3d(y2[0], i2[0], 2)", "F.max_unpool3d(y3, i3.float(), 2)",
    "F.instance_norm(x1[:, :, :1])", "F.instance_norm(x1, use_input_stats=False)",
    "nn.InstanceNorm1d(3, affine=True)(x2[:, :, 0, :4].transpose(1, 2))",
    "nn.InstanceNorm2d(3)(x1[0])", "nn.InstanceNorm1d(3)(x2)", "nn.BatchNorm3d(3)(x2)",
    "nn.InstanceNorm3d(3)(x1)",
    "F.rms_norm(x2, (4,))", "F.rms_norm(x2, (7,), weight=x1[0, 0, :4])",
    "F.local_response_norm(x1[0], 2)", "F.channel_shuffle(x2[:, :2], 3)",
    "F.channel_shuffle(x1[0, 0], 1)", "F.channel_shuffle(x2, 0)", "nn.Softmax2d()(x1[0])",
    "F.lp_pool2d(x2, 2, 9)",
]


def _err(m, src):
    F = m.nn.functional
    x1, x2, x3 = (m.tensor(a) for a in (X1, X2, X3))
    y2, i2 = F.max_pool2d(x2[:, :, :4, :4], 2, return_indices=True)
    y3, i3 = F.max_pool3d(x3[..., :4, :4, :4], 2, return_indices=True)
    bad2 = i2.clone()
    bad2[0, 1, 1, 0] = 50
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            eval(src, {"F": F, "nn": m.nn, "x1": x1, "x2": x2, "x3": x3, "y2": y2, "i2": i2,
                       "y3": y3, "i3": i3, "bad2": bad2})
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("src", ERRORS)
def test_errors_match_torch(src):
    expected = _err(torch, src)
    assert expected is not None
    assert _err(ilt, src) == expected


def test_instance_norm_warns_as_torch_when_features_differ_without_affine():
    x = X2[:, :, 0, :4].transpose(0, 2, 1).copy()  # 4 channels for InstanceNorm1d(3)
    got = {}
    for m in (torch, ilt):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = m.nn.InstanceNorm1d(3)(m.tensor(x))
        got[m] = ([str(e.message) for e in w], _np(y))
    assert got[ilt][0] == got[torch][0] and len(got[torch][0]) == 1
    np.testing.assert_allclose(got[ilt][1], got[torch][1], rtol=1e-5, atol=1e-6)


def test_max_unpool_and_channel_shuffle_graph_edges_match_torch():
    for m in (torch, ilt):
        x = m.tensor(X2[..., :6, :6], requires_grad=True)
        y, i = m.nn.functional.max_pool2d(x, 2, return_indices=True)
        u = m.nn.functional.max_unpool2d(y, i, 2)
        assert len(u.grad_fn.next_functions) == 1
        assert type(u.grad_fn.next_functions[0][0]).__name__ == "MaxPool2DWithIndicesBackward0"


GPU_CASES = [
    "F.max_pool2d(x, 3, 2, 1, return_indices=True)", "F.max_pool3d(x[:, :, None].expand("
    "2, 3, 2, 7, 7), 2, return_indices=True)", "F.max_unpool2d(*F.max_pool2d(x[..., :6, :6], 2, "
    "return_indices=True), 2)", "F.avg_pool3d(x[:, None], (1, 2, 2))",
    "F.adaptive_avg_pool3d(x[:, None], (2, 3, 3))", "F.adaptive_max_pool3d(x[:, None], 2, True)",
    "F.instance_norm(x)", "F.rms_norm(x, (7,))", "F.local_response_norm(x, 3)",
    "F.channel_shuffle(x, 3)", "nn.CircularPad2d(1)(x)",
]


@pytest.mark.parametrize("src", GPU_CASES)
def test_new_ops_on_the_simulated_gpu_match_the_cpu(src):
    def run(dev):
        x = ilt.tensor(X2, device=dev, requires_grad=True)
        out = eval(src, {"F": ilt.nn.functional, "nn": ilt.nn, "x": x})
        outs = out if isinstance(out, tuple) else (out,)
        outs[0].pow(2).sum().backward()
        return [o.cpu().tolist() for o in outs] + [x.grad.cpu().tolist()], outs[0].device.type

    cpu, _ = run("cpu")
    if backend.gpu_count() and not backend.simulated_gpu():
        gpu, kind = run("cuda")
    else:
        with simulated_cupy():
            gpu, kind = run("cuda")
    assert kind == "cuda"
    for a, b in zip(gpu, cpu):  # (sums in two orders: a gradient that cancels to 0, as
        # rms_norm's of its own squares, keeps a few ulps of terms near 10)
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,pad", [((1, 3, 4), (1, 2)), ((1, 3, 4), (1, 1, 1, 1)),
                                       ((2, 2, 3, 4), (2, 1, 0, 2)), ((1, 3, 4), (-1, 2)),
                                       ((1, 2, 2, 3, 4), (1, 1, 1, 1, 1, 1)),
                                       ((1, 3, 4), (5, 0)), ((1, 3, 4), (1,)),
                                       ((1, 3, 4), (1, 1, 1, 1, 1, 1)), ((4,), (1, 1))])
def test_functional_pad_circular_matches_torch(shape, pad):
    import inplace_lab.torch as T

    data = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    outs = []
    for M in (torch, T):
        x = M.tensor(data, requires_grad=True)
        try:
            y = M.nn.functional.pad(x, pad, mode="circular")
        except Exception as e:  # noqa: BLE001 - the error is the observation
            outs.append((type(e).__name__, str(e)))
            continue
        (y * M.arange(float(y.numel()), dtype=M.float64).reshape(y.shape)).sum().backward()
        outs.append((y.tolist(), x.grad.tolist(), type(y.grad_fn).__name__))
    assert outs[1] == outs[0]


@pytest.mark.parametrize("cls,shape", [("Conv1d", (2, 2, 5)), ("Conv2d", (1, 2, 4, 5)),
                                       ("Conv3d", (1, 2, 3, 4, 4))])
def test_conv_with_circular_padding_matches_torch(cls, shape):
    import inplace_lab.torch as T

    data = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)
    outs = []
    for M in (torch, T):
        M.manual_seed(0)
        conv = getattr(M.nn, cls)(2, 3, 3, padding=1, padding_mode="circular").double()
        with M.no_grad():
            for p in conv.parameters():
                p.copy_(M.tensor(np.linspace(-0.5, 0.5, p.numel()).reshape(tuple(p.shape))))
        x = M.tensor(data, requires_grad=True)
        y = conv(x)
        y.sum().backward()
        outs.append((np.round(y.tolist(), 10).tolist(), np.round(x.grad.tolist(), 10).tolist(),
                     type(y.grad_fn).__name__, repr(conv)))
    assert outs[1] == outs[0]
