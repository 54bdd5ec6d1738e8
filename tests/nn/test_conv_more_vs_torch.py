"""conv3d, conv_transpose1d/2d/3d, unfold/fold and their modules vs torch 2.13.

The same numpy inputs go to both libraries: outputs, gradients of input/weight/bias, output
shapes and strides, node names, module reprs, parameter shapes, init bounds and the errors
(type and message) for bad arguments must agree. Each op also runs once on ``cuda`` (the
simulated GPU backed by cupy_like where there is no real one) against the CPU run.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as ilt  # noqa: E402
from inplace_lab import backend  # noqa: E402
from tests.differential.cupy_like import simulated_cupy  # noqa: E402


def _arrays(shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [None if s is None else rng.standard_normal(s).astype(dtype) for s in shapes]


def _run(lib, fn, arrays, upstream_seed=1):
    """fn(lib's F, *tensors) forward and backward with one fixed upstream gradient."""
    ts = [None if a is None else lib.tensor(a, requires_grad=True) for a in arrays]
    y = fn(lib.nn.functional, *ts)
    g = np.random.default_rng(upstream_seed).standard_normal(tuple(y.shape)).astype(arrays[0].dtype)
    y.backward(lib.tensor(g))
    return y, [None if t is None else t.grad for t in ts]


def _np(t):
    return t.detach().numpy()


# (function, input shapes (input, weight, bias))
CASES = {
    "conv_transpose2d plain": (lambda F, x, w, b: F.conv_transpose2d(x, w, b),
                               [(2, 3, 5, 4), (3, 4, 3, 3), (4,)]),
    "conv_transpose2d stride padding output_padding": (
        lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [(2, 3, 5, 4), (3, 4, 3, 3), (4,)]),
    "conv_transpose2d groups dilation": (
        lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=(2, 1), padding=(0, 2),
                                              output_padding=(1, 0), groups=2, dilation=(1, 2)),
        [(2, 4, 5, 6), (4, 3, 2, 3), (6,)]),
    "conv_transpose2d output_padding reached by dilation": (
        lambda F, x, w: F.conv_transpose2d(x, w, stride=1, padding=2, output_padding=1,
                                           dilation=3),
        [(2, 4, 5, 6), (4, 3, 3, 3)]),
    "conv_transpose2d unbatched": (lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2),
                                   [(3, 4, 4), (3, 2, 3, 3), (2,)]),
    "conv_transpose1d": (
        lambda F, x, w, b: F.conv_transpose1d(x, w, b, stride=3, padding=2, output_padding=2,
                                              groups=2, dilation=2),
        [(2, 4, 7), (4, 3, 3), (6,)]),
    "conv_transpose1d unbatched": (lambda F, x, w: F.conv_transpose1d(x, w, stride=2),
                                   [(3, 6), (3, 2, 4)]),
    "conv_transpose3d": (
        lambda F, x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1),
        [(2, 2, 3, 4, 3), (2, 3, 3, 2, 3), (3,)]),
    "conv_transpose3d groups unbatched": (
        lambda F, x, w: F.conv_transpose3d(x, w, stride=(1, 2, 1), groups=2, dilation=(2, 1, 1)),
        [(4, 3, 3, 2), (4, 1, 2, 2, 2)]),
    "conv3d": (lambda F, x, w, b: F.conv3d(x, w, b), [(2, 3, 5, 6, 4), (4, 3, 3, 3, 2), (4,)]),
    "conv3d stride padding dilation groups": (
        lambda F, x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 2),
                                    dilation=(2, 1, 1), groups=2),
        [(2, 4, 6, 7, 5), (6, 2, 3, 3, 2), (6,)]),
    "conv3d padding valid": (lambda F, x, w: F.conv3d(x, w, padding="valid"),
                             [(1, 2, 4, 4, 4), (3, 2, 3, 2, 3)]),
    "conv3d padding same": (lambda F, x, w: F.conv3d(x, w, padding="same", dilation=2),
                            [(1, 2, 5, 6, 5), (3, 2, 3, 3, 3)]),
    "conv3d unbatched": (lambda F, x, w: F.conv3d(x, w, stride=2), [(2, 5, 5, 5), (3, 2, 3, 3, 3)]),
    "unfold": (lambda F, x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
               [(2, 3, 6, 7)]),
    "unfold unbatched": (lambda F, x: F.unfold(x, 2), [(3, 4, 5)]),
    "fold": (lambda F, c: F.fold(c, (5, 6), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
             [(2, 12, 15)]),
    "fold unbatched": (lambda F, c: F.fold(c, 4, 2), [(8, 9)]),
}

NODES = {"unfold": "Im2ColBackward0", "fold": "Col2ImBackward0"}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", CASES)
def test_forward_and_gradients_match_torch(name, dtype):
    fn, shapes = CASES[name]
    arrays = _arrays(shapes, dtype)
    ty, tg = _run(torch, fn, arrays)
    iy, ig = _run(ilt, fn, arrays)
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-10}
    assert tuple(iy.shape) == tuple(ty.shape) and iy.stride() == ty.stride()
    assert str(iy.dtype) == str(ty.dtype)
    np.testing.assert_allclose(_np(iy), _np(ty), **tol)
    for a, b in zip(ig, tg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)
    assert type(iy.grad_fn).__name__ == type(ty.grad_fn).__name__


@pytest.mark.parametrize("name", ["conv_transpose2d plain", "conv3d", "unfold", "fold"])
def test_node_names_are_torchs(name):
    fn, shapes = CASES[name]
    y, _ = _run(ilt, fn, _arrays(shapes, np.float64))
    expected = NODES.get(name.split()[0], "ConvolutionBackward0")
    assert type(y.grad_fn).__name__ == expected


def test_conv_transpose_is_the_adjoint_of_conv():
    """<conv(x), y> == <x, conv_transpose(y)> with the same weight: the lesson in one line."""
    x, w, y = _arrays([(1, 3, 7, 7), (4, 3, 3, 3), (1, 4, 3, 3)], np.float64)
    F = ilt.nn.functional
    lhs = (F.conv2d(ilt.tensor(x), ilt.tensor(w), stride=2) * ilt.tensor(y)).sum().item()
    rhs = (ilt.tensor(x) * F.conv_transpose2d(ilt.tensor(y), ilt.tensor(w), stride=2)).sum().item()
    assert lhs == pytest.approx(rhs)


def test_conv_transpose_saves_input_and_weight():
    x, w = (ilt.tensor(a, requires_grad=True) for a in _arrays([(1, 2, 3, 3), (2, 2, 2, 2)],
                                                               np.float64))
    y = ilt.nn.functional.conv_transpose2d(x, w)
    with ilt.no_grad():
        x.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_fold_of_unfold_counts_how_often_each_pixel_is_read():
    x = np.ones((1, 1, 4, 4))
    F = ilt.nn.functional
    got = F.fold(F.unfold(ilt.tensor(x), 2), (4, 4), 2)
    want = torch.nn.functional.fold(torch.nn.functional.unfold(torch.tensor(x), 2), (4, 4), 2)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ---- errors (float64: ATen's reference kernels; float32 ones may go through oneDNN) -----------

ERRORS = [
    "F.conv_transpose2d(t(2, 5, 5, 5), t(3, 4, 3, 3))",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), output_padding=1)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), output_padding=(1, 0), stride=(1, 2))",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), output_padding=2, stride=2)",
    "F.conv_transpose1d(t(2, 3, 5), t(3, 4, 3), output_padding=1)",
    "F.conv_transpose3d(t(2, 3, 5, 5, 5), t(3, 4, 3, 3, 3), output_padding=1)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), output_padding=-1, stride=2)",
    "F.conv_transpose2d(t(2, 3, 5), t(3, 4, 3, 3))",
    "F.conv_transpose2d(t(3, 5), t(3, 4, 3, 3))",
    "F.conv_transpose1d(t(2, 3, 5, 5), t(3, 4, 3))",
    "F.conv_transpose3d(t(2, 3, 5, 5), t(3, 4, 3, 3, 3))",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), padding=4)",
    "F.conv_transpose1d(t(2, 3, 5), t(3, 4, 3), padding=5)",
    "F.conv_transpose3d(t(2, 3, 2, 2, 2), t(3, 4, 1, 1, 1), padding=1)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), groups=2)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), groups=0)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), padding='same')",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), stride=0)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), padding=-1)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), dilation=0)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), dilation=-1)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), stride=(1, 2, 3))",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), output_padding=(1, 1, 1), stride=2)",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3), t(5))",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3))",
    "F.conv_transpose2d(t(2, 3, 5, 5), t(3, 4, 3, 3).float())",
    "F.conv_transpose2d(t(2, 3, 5, 5).float(), t(3, 4, 3, 3))",
    "F.conv_transpose2d(t(2, 3, 5, 5).int(), t(3, 4, 3, 3).int())",
    "F.conv3d(t(2, 3, 5, 5), t(4, 3, 3, 3, 3))",
    "F.conv3d(t(5, 5, 5), t(4, 3, 3, 3, 3))",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 2, 3, 3, 3))",
    "F.conv3d(t(2, 3, 2, 5, 5), t(4, 3, 3, 3, 3))",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3, 3), padding='foo')",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3, 3), padding='same', stride=2)",
    "F.conv3d(t(2, 4, 5, 5, 5), t(3, 2, 3, 3, 3), groups=2)",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3, 3), groups=0)",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3, 3), stride=0)",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3, 3), padding=-1)",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3, 3), dilation=0)",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3, 3), padding=(1, 1))",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3))",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3, 3), t(3))",
    "F.conv3d(t(2, 3, 5, 5, 5).float(), t(4, 3, 3, 3, 3))",
    "F.conv3d(t(2, 3, 5, 5, 5), t(4, 3, 3, 3, 3).float())",
    "F.conv3d(t(2, 3, 5, 5, 5).float(), t(4, 3, 3, 3, 3).float(), t(4))",
    "F.unfold(t(5, 5), 2)",
    "F.unfold(t(2, 3, 5, 5), 6)",
    "F.unfold(t(2, 3, 5, 5), (2, 2, 2))",
    "F.unfold(t(2, 3, 5, 5), 2, stride=0)",
    "F.unfold(t(2, 3, 5, 5), 2, padding=-1)",
    "F.unfold(t(2, 3, 5, 5), 2, dilation=0)",
    "F.unfold(t(2, 3, 5, 5), 0)",
    "F.unfold(t(2, 0, 5, 5), 2)",
    "F.unfold(t(2, 3, 5, 5).int(), 2)",
    "F.fold(t(2, 12, 16), (5, 5), 3)",
    "F.fold(t(2, 12, 16), (6, 6), 2)",
    "F.fold(t(16), 5, 2)",
    "F.fold(t(2, 3, 4, 4), 5, 2)",
    "F.fold(t(2, 12, 16), (5, 5), 2, stride=0)",
    "F.fold(t(2, 12, 16), (5, 5), 2, padding=-1)",
    "F.fold(t(2, 12, 16), (5, 5), (2, 2, 2))",
    "F.fold(t(2, 12, 16), (5, 5, 5), 2)",
    "F.fold(t(2, 12, 16), (5, 5), 0)",
    "F.fold(t(2, 12, 16), (5, 5), 2, dilation=0)",
    "F.fold(t(2, 12, 0), (5, 5), 2)",
    "F.fold(t(2, 12, 16), (1, 1), 2)",
]


def _outcome(lib, src):
    def t(*shape):
        return lib.tensor(np.zeros(shape))
    try:
        eval(src, {"F": lib.nn.functional, "t": t})
    except Exception as e:  # noqa: BLE001  (the point: which one, and what it says)
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("src", ERRORS)
def test_bad_arguments_raise_torchs_error(src):
    want = _outcome(torch, src)
    assert want is not None
    assert _outcome(ilt, src) == want


# ---- modules ------------------------------------------------------------------------------------

CONSTRUCTORS = [
    "Conv3d(2, 4, 3)", "Conv3d(4, 4, (1, 2, 3), stride=2, padding=1, dilation=2, groups=2, bias=False)",
    "Conv3d(2, 4, 3, padding='same')", "Conv3d(2, 4, 3, padding='valid')",
    "Conv3d(2, 4, 3, padding=1, padding_mode='reflect')",
    "Conv3d(2, 4, 3, padding=1, padding_mode='replicate')",
    "ConvTranspose2d(3, 4, 3)",
    "ConvTranspose2d(4, 6, (2, 3), stride=2, padding=1, output_padding=1, groups=2, bias=False, "
    "dilation=2)",
    "ConvTranspose1d(3, 4, 3, 2, 1, 1)", "ConvTranspose1d(4, 2, 5, groups=2, dilation=3)",
    "ConvTranspose3d(2, 4, 3, stride=(1, 2, 3))", "ConvTranspose3d(2, 4, (1, 2, 3), padding=(0, 1, 2))",
    "Unfold(2)", "Unfold((2, 3), dilation=2, padding=1, stride=(1, 2))", "Fold((4, 5), 2)",
    "Fold(4, (2, 3), 1, 2, 3)",
]


def _build(lib, src):
    return eval("nn." + src, {"nn": lib.nn})


@pytest.mark.parametrize("src", CONSTRUCTORS)
def test_module_repr_parameters_and_state_dict_match_torch(src):
    t, i = _build(torch, src), _build(ilt, src)
    assert repr(i) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in i.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    assert [(n, tuple(p.shape)) for n, p in i.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]


BAD_MODULES = [
    "ConvTranspose2d(3, 4, 3, padding_mode='reflect')", "ConvTranspose1d(3, 4, 3, groups=2)",
    "ConvTranspose2d(4, 3, 3, groups=2)", "ConvTranspose3d(4, 4, 3, groups=0)",
    "ConvTranspose2d(4, 4, 3, groups=-1)", "Conv3d(3, 4, 3, groups=2)",
    "Conv3d(3, 4, 3, padding='same', stride=2)"
]  # (not padding='full': torch prints a set of strings, whose order changes with the hash seed)


@pytest.mark.parametrize("src", BAD_MODULES)
def test_bad_module_arguments_raise_torchs_error(src):
    def outcome(lib):
        try:
            _build(lib, src)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
    want = outcome(torch)
    assert want is not None and outcome(ilt) == want


@pytest.mark.parametrize("src,fan_in", [("ConvTranspose2d(4, 8, (2, 3), groups=2)", 4 * 6),
                                        ("ConvTranspose1d(4, 6, 5)", 6 * 5),
                                        ("ConvTranspose3d(2, 3, 2)", 3 * 8),
                                        ("Conv3d(4, 6, 2, groups=2)", 2 * 8)])
def test_seeded_init_lies_in_torchs_bounds(src, fan_in):
    ilt.manual_seed(0)
    m = _build(ilt, src)
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) and the bias share it
    for p in (m.weight, m.bias):
        v = p.detach().numpy()
        assert np.abs(v).max() <= bound and v.std() > bound / 4
        assert p._version == 1 and p.dtype is ilt.float32
    assert torch.nn.modules.conv._ConvNd is not None  # (torch's fan-in is the same formula)
    t = _build(torch, src)
    assert init_fan_in(t.weight) == fan_in


def init_fan_in(w):
    return torch.nn.init._calculate_fan_in_and_fan_out(w)[0]


def _copy_params(t, i):
    i.load_state_dict({k: ilt.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})


@pytest.mark.parametrize("src,shape", [
    ("ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)", (2, 3, 5, 4)),
    ("ConvTranspose1d(4, 2, 3, stride=2, groups=2)", (4, 6)),
    ("ConvTranspose3d(2, 3, 2, stride=(2, 1, 2), dilation=2)", (1, 2, 3, 3, 2)),
    ("Conv3d(2, 4, 3, padding=1, padding_mode='reflect')", (1, 2, 4, 5, 4)),
    ("Conv3d(2, 4, 3, padding=(1, 0, 2), padding_mode='replicate', stride=2)", (1, 2, 4, 5, 4)),
    ("Conv3d(2, 4, 3, padding='same')", (1, 2, 4, 5, 4)),
    ("Unfold((2, 3), padding=1)", (2, 3, 4, 5)),
    ("Fold((4, 5), 2)", (2, 8, 12)),
])
def test_module_forward_and_backward_match_torch(src, shape):
    t, i = _build(torch, src).double(), _build(ilt, src).double()
    _copy_params(t, i)
    x = np.random.default_rng(3).standard_normal(shape)
    tx, ix = torch.tensor(x, requires_grad=True), ilt.tensor(x, requires_grad=True)
    ty, iy = t(tx), i(ix)
    np.testing.assert_allclose(_np(iy), _np(ty), rtol=1e-10, atol=1e-10)
    ty.sum().backward()
    iy.sum().backward()
    np.testing.assert_allclose(ix.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-10)
    for (n, a), (_, b) in zip(i.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


OUTPUT_SIZES = ["[10, 10]", "[9, 9]", "[1, 4, 10, 9]", "[11, 11]", "(8, 9)", "[4, 10, 10]",
                "lib.Size([10, 9])", "lib.Size([11, 9])", "[10]"]


@pytest.mark.parametrize("size", OUTPUT_SIZES)
@pytest.mark.parametrize("batched", [True, False])
def test_conv_transpose_output_size_picks_output_padding_as_torch(size, batched):
    def outcome(lib):
        lib.manual_seed(0)
        m = lib.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1)
        x = lib.tensor(np.ones((1, 3, 5, 5) if batched else (3, 5, 5), dtype=np.float32))
        try:
            return tuple(m(x, output_size=eval(size, {"lib": lib})).shape)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
    assert outcome(ilt) == outcome(torch)


def test_conv_transpose3d_output_size_and_1d_unbatched():
    for lib in (ilt, torch):
        assert tuple(lib.nn.ConvTranspose3d(3, 2, 3, stride=2)(
            lib.zeros(1, 3, 2, 3, 2), output_size=[6, 8, 6]).shape) == (1, 2, 6, 8, 6)
        assert tuple(lib.nn.ConvTranspose1d(3, 2, 3, stride=3)(
            lib.zeros(3, 5), output_size=[15]).shape) == (2, 15)


# ---- the GPU paths (cupy_like where there is no GPU) --------------------------------------------

GPU_CASES = ["conv_transpose2d groups dilation", "conv_transpose1d", "conv_transpose3d",
             "conv3d stride padding dilation groups", "unfold", "fold"]


@pytest.mark.parametrize("name", GPU_CASES)
def test_op_on_cuda_matches_the_cpu(name):
    fn, shapes = CASES[name]
    arrays = _arrays(shapes, np.float32)

    def run(dev):
        ts = [ilt.tensor(a, device=dev, requires_grad=True) for a in arrays]
        y = fn(ilt.nn.functional, *ts)
        g = np.linspace(-1, 1, y.numel(), dtype=np.float32).reshape(tuple(y.shape))
        y.backward(ilt.tensor(g, device=dev))
        assert all(t.device.type == dev for t in [y] + ts)
        return y, [t.grad for t in ts]

    if backend.gpu_count() and not backend.simulated_gpu():
        y1, g1 = run("cuda")
    else:
        with simulated_cupy():
            y1, g1 = run("cuda")
    y0, g0 = run("cpu")
    assert y1.shape == y0.shape and y1.stride() == y0.stride()
    np.testing.assert_allclose(y1.detach().cpu().numpy(), y0.detach().numpy(), rtol=1e-5, atol=1e-5)
    for a, b in zip(g1, g0):
        assert a.stride() == b.stride()
        # (the CPU adds in PyTorch's order, the simulated GPU pairwise: a gradient that cancels
        # to 0 keeps a few ulps of its terms, which reach 168 here)
        atol = 1e-5 * max(1.0, float(np.abs(b.numpy()).max(initial=0.0)))
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-5, atol=atol)


# ---- lazy convolutions ----------------------------------------------------------------------------

LAZY = [("LazyConv1d(4, 3, bias=False)", (2, 5)), ("LazyConv2d(4, 3, stride=2, padding=1)", (1, 3, 6, 6)),
        ("LazyConv3d(4, 3, groups=2)", (1, 4, 5, 5, 5)), ("LazyConv3d(4, 3, groups=2)", (1, 3, 5, 5, 5)),
        ("LazyConvTranspose2d(4, 3, stride=2)", (1, 5, 4, 4)),
        ("LazyConvTranspose1d(4, 2, groups=2)", (2, 3)), ("LazyConvTranspose3d(2, 2)", (1, 3, 2, 2, 2)),
        ("LazyConv2d(4, 3)", (5, 5)),
        ("LazyConv2d(4, 3, padding='same', padding_mode='reflect')", (2, 3, 5, 5))]


@pytest.mark.parametrize("src,shape", LAZY)
def test_lazy_conv_reads_in_channels_from_the_first_input_as_torch(src, shape):
    def outcome(lib):
        lib.manual_seed(0)
        m = _build(lib, src)
        before = (repr(m), type(m.weight).__name__, list(m.state_dict()), m.in_channels,
                  m.has_uninitialized_params())
        try:
            y = m(lib.zeros(*shape))
        except Exception as e:  # noqa: BLE001
            return before, (type(e).__name__, str(e))
        return before, (repr(m), type(m).__name__, tuple(y.shape), m.weight._version,
                        [(k, tuple(v.shape)) for k, v in m.state_dict().items()],
                        str(m.weight.dtype), type(m.weight).__name__)
    assert outcome(ilt) == outcome(torch)


def test_a_materialized_lazy_conv_is_the_facades_module_and_computes_as_torch():
    m = ilt.nn.LazyConvTranspose2d(4, 3, stride=2)
    x = np.random.default_rng(0).standard_normal((1, 5, 4, 4)).astype(np.float32)
    m(ilt.tensor(x))
    assert isinstance(m, ilt.nn.ConvTranspose2d) and str(m.weight.dtype) == "torch.float32"
    t = torch.nn.ConvTranspose2d(5, 4, 3, stride=2)
    _copy_params(t, m)
    np.testing.assert_allclose(_np(m(ilt.tensor(x))), _np(t(torch.tensor(x))), rtol=1e-5,
                               atol=1e-5)
