"""EmbeddingBag, affine_grid/grid_sample, the lazy Linear and norms, the fractional max pools,
the legacy upsamplers, AdaptiveLogSoftmaxWithLoss, Buffer, CrossMapLRN2d, feature_dropout and
nn.init's last functions vs torch 2.13.

Each program runs once on torch and once on ``inplace_lab.torch`` with the same numpy inputs
(and the same parameters, copied from torch's module); the outputs, the gradients of inputs
and parameters, the grad_fn names, the versions and the errors (type and message) must agree.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as ilt  # noqa: E402


def _np(t):
    if t is None:
        return None
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _same(a, b, rtol=1e-5, atol=1e-6):
    if a is None or b is None:
        assert a is None and b is None, (a, b)
        return
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _both(prog, rtol=1e-5, atol=1e-6):
    """prog(lib) -> list of tensors (or other values); the two runs must agree."""
    ref, got = prog(torch), prog(ilt)
    assert len(ref) == len(got)
    for r, g in zip(ref, got):
        if hasattr(r, "detach") or r is None:
            _same(r, g, rtol, atol)
        else:
            assert r == g, (r, g)
    return ref, got


def _error(prog):
    """prog(lib) must raise the same error type and message on both."""
    with pytest.raises(Exception) as ref:
        prog(torch)
    with pytest.raises(Exception) as got:
        prog(ilt)
    assert type(got.value).__name__ == type(ref.value).__name__, (ref.value, got.value)
    assert str(got.value) == str(ref.value)


def _gname(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


# ---- embedding_bag ------------------------------------------------------------------------------

_W = np.random.default_rng(0).standard_normal((10, 3)).astype(np.float32)
_IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9])
_PSW = np.random.default_rng(1).random(8).astype(np.float32)
_G = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("offsets,last", [([0, 4], False), ([0, 4, 4], False), ([0, 3, 3, 8], True),
                                          ([0, 0, 2, 6], False), (None, False)])
@pytest.mark.parametrize("padding_idx", [None, 4, -8])
@pytest.mark.parametrize("freq", [False, True])
def test_embedding_bag(mode, offsets, last, padding_idx, freq):
    if mode == "max" and freq:
        return

    def prog(lib):
        w = lib.tensor(_W, requires_grad=True)
        if offsets is None:
            inp, off = lib.tensor(_IDX).view(2, 4), None
        else:
            inp, off = lib.tensor(_IDX), lib.tensor(offsets)
        y = lib.nn.functional.embedding_bag(inp, w, off, mode=mode, include_last_offset=last,
                                            padding_idx=padding_idx, scale_grad_by_freq=freq)
        y.backward(lib.tensor(_G[:y.shape[0]]))
        return [y, w.grad, _gname(y), w._version]

    _both(prog)


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_per_sample_weights(padding_idx):
    def prog(lib):
        w = lib.tensor(_W, requires_grad=True)
        psw = lib.tensor(_PSW, requires_grad=True)
        y = lib.nn.functional.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0, 3, 3]),
                                            mode="sum", per_sample_weights=psw,
                                            padding_idx=padding_idx)
        (y * y).sum().backward()
        nf = [None if f is None else type(f).__name__ for f, _ in y.grad_fn.next_functions]
        return [y, w.grad, psw.grad, nf]

    _both(prog)


def test_embedding_bag_2d_psw_int32_and_max_norm():
    def prog(lib):
        w = lib.tensor(_W * 3, requires_grad=True)
        psw = lib.tensor(_PSW.reshape(2, 4))
        y = lib.nn.functional.embedding_bag(lib.tensor(_IDX, dtype=lib.int32).view(2, 4), w,
                                            mode="sum", per_sample_weights=psw, max_norm=1.0)
        y.sum().backward()
        return [y, w.grad, w._version, w.detach()]

    _both(prog)


def test_torch_embedding_bag_four_results():
    def prog(lib):
        w = lib.tensor(_W)
        out = []
        for mode in (0, 1, 2):
            out += list(lib.embedding_bag(w, lib.tensor(_IDX), lib.tensor([0, 4, 4]), False, mode,
                                          False, None, False, 4))
        return out

    _both(prog)


@pytest.mark.parametrize("case", [
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([1, 4])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0, 9])),
    lambda F, lib, w: F.embedding_bag(lib.tensor([1, 12]), w, lib.tensor([0, 1])),
    lambda F, lib, w: F.embedding_bag(lib.tensor([1, -1]), w, lib.tensor([0, 1])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0, 5, 4])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0, 4]), mode="foo"),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX).view(2, 4), w, mode="max",
                                      scale_grad_by_freq=True),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w[0], lib.tensor([0])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX).view(2, 2, 2), w, lib.tensor([0])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0]),
                                      per_sample_weights=lib.ones(3)),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX).view(2, 4), w, lib.tensor([0])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, None),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([[0, 4]])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0]), mode="max",
                                      per_sample_weights=lib.ones(8)),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0]), mode="sum",
                                      per_sample_weights=lib.ones(8, dtype=lib.float64)),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX).float(), w, lib.tensor([0])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w.int(), lib.tensor([0])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0.0])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0]), padding_idx=10),
    lambda F, lib, w: F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0]), padding_idx=-11),
    lambda F, lib, w: lib.nn.EmbeddingBag(10, 3, padding_idx=10),
    lambda F, lib, w: lib.nn.EmbeddingBag(10, 3, _weight=w[:5]),
    lambda F, lib, w: lib.nn.EmbeddingBag.from_pretrained(w[0]),
])
def test_embedding_bag_errors(case):
    _error(lambda lib: case(lib.nn.functional, lib, lib.tensor(_W)))


def test_embedding_bag_edge_shapes_and_old_order():
    def prog(lib):
        w = lib.tensor(_W)
        F = lib.nn.functional
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            old = F.embedding_bag(w, lib.tensor(_IDX), lib.tensor([0, 2]))
        return [F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([], dtype=lib.int64)),
                F.embedding_bag(lib.tensor([], dtype=lib.int64), w, lib.tensor([0])),
                F.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0]), include_last_offset=True),
                old, [str(r.message) for r in rec]]

    _both(prog)


def test_embedding_bag_module():
    def prog(lib):
        lib.manual_seed(0)
        m = lib.nn.EmbeddingBag(10, 3, mode="max", padding_idx=-2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(_W))
        y = m(lib.tensor(_IDX), lib.tensor([0, 5]))
        y.sum().backward()
        p = lib.nn.EmbeddingBag.from_pretrained(lib.tensor(_W), mode="sum", max_norm=2.0)
        z = p(lib.tensor(_IDX).view(4, 2), per_sample_weights=lib.tensor(_PSW).view(4, 2))
        return [y, m.weight.grad, repr(m), repr(p), p.weight.requires_grad, z,
                m.weight[8].abs().sum(), sorted(m.state_dict())]

    _both(prog)


# ---- affine_grid, grid_sample -------------------------------------------------------------------

def _grid_prog(nd, mode, pad, ac, dtype=np.float64):
    rng = np.random.default_rng(nd)
    x = rng.standard_normal((2, 3) + (4, 5, 3)[:nd]).astype(dtype)
    g = (rng.random((2,) + (3, 4, 2)[:nd] + (nd,)) * 3 - 1.5).astype(dtype)
    up = rng.standard_normal((2, 3) + (3, 4, 2)[:nd]).astype(dtype)

    def prog(lib):
        xt, gt = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
        y = lib.nn.functional.grid_sample(xt, gt, mode=mode, padding_mode=pad, align_corners=ac)
        y.backward(lib.tensor(up))
        return [y, xt.grad, gt.grad, _gname(y), tuple(y.stride())]

    return prog


@pytest.mark.parametrize("nd,mode", [(2, "bilinear"), (2, "nearest"), (2, "bicubic"),
                                     (3, "bilinear"), (3, "nearest")])
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [True, False])
def test_grid_sample(nd, mode, pad, ac):
    _both(_grid_prog(nd, mode, pad, ac), rtol=1e-7, atol=1e-9)


def test_grid_sample_float32_and_grid_only():
    _both(_grid_prog(2, "bilinear", "reflection", False, np.float32), rtol=1e-4, atol=1e-5)
    _both(_grid_prog(2, "bicubic", "border", True, np.float32), rtol=1e-4, atol=1e-5)

    def prog(lib):
        x = lib.ones(1, 1, 3, 3)
        g = lib.zeros(1, 2, 2, 3, 3, requires_grad=True)
        y = lib.nn.functional.grid_sample(x[:, :, None].expand(1, 1, 2, 3, 3), g,
                                          align_corners=True)
        y.sum().backward()
        nf = [None if f is None else type(f).__name__ for f, _ in y.grad_fn.next_functions]
        return [y, g.grad, _gname(y), nf]

    _both(prog)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("ac", [True, False])
def test_affine_grid(nd, ac):
    rng = np.random.default_rng(3)
    theta = rng.standard_normal((2, nd, nd + 1)).astype(np.float32)
    size = [2, 3, 4, 5] if nd == 2 else [2, 3, 4, 1, 5]
    up = rng.standard_normal([2] + size[2:] + [nd]).astype(np.float32)

    def prog(lib):
        t = lib.tensor(theta, requires_grad=True)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            y = lib.nn.functional.affine_grid(t, size, align_corners=ac)
        y.backward(lib.tensor(up))
        return [y, t.grad, _gname(y), tuple(y.stride()), [str(r.message) for r in rec]]

    _both(prog, rtol=1e-5, atol=1e-5)


def test_default_align_corners_warnings():
    def prog(lib):
        F = lib.nn.functional
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            grid = F.affine_grid(lib.eye(2, 3)[None], [1, 1, 3, 3])
            y = F.grid_sample(lib.arange(9.0).view(1, 1, 3, 3), grid)
        return [grid, y, [(r.category.__name__, str(r.message)) for r in rec]]

    _both(prog)


@pytest.mark.parametrize("case", [
    lambda F, lib: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 2).double(),
                                 align_corners=True),
    lambda F, lib: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(1, 6, 7, 2), align_corners=True),
    lambda F, lib: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 3), align_corners=True),
    lambda F, lib: F.grid_sample(lib.randn(3, 4, 5), lib.rand(6, 7, 2), align_corners=True),
    lambda F, lib: F.grid_sample(lib.randn(2, 3, 0, 5), lib.rand(2, 6, 7, 2), align_corners=True),
    lambda F, lib: F.grid_sample(lib.randn(2, 3, 4, 5, 6), lib.rand(2, 3, 4, 5, 3),
                                 mode="bicubic", align_corners=True),
    lambda F, lib: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 8, 2),
                                 align_corners=True),
    lambda F, lib: F.grid_sample(lib.randn(2, 3, 4, 5, 5), lib.rand(2, 6, 7, 3),
                                 align_corners=True),
    lambda F, lib: F.grid_sample(lib.ones(2, 3, 4, 5, dtype=lib.int32),
                                 lib.ones(2, 6, 7, 2, dtype=lib.int32), align_corners=True),
    lambda F, lib: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 2), mode="foo"),
    lambda F, lib: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 2), padding_mode="x"),
    lambda F, lib: F.affine_grid(lib.ones(2, 2, 3, dtype=lib.int32), [2, 3, 4, 5], False),
    lambda F, lib: F.affine_grid(lib.rand(2, 2, 3), [2, 3, 4, 5, 5], align_corners=False),
    lambda F, lib: F.affine_grid(lib.rand(2, 3, 4), [2, 3, 4, 5], align_corners=False),
    lambda F, lib: F.affine_grid(lib.rand(2, 2, 3), [2, 3, 4], align_corners=False),
    lambda F, lib: F.affine_grid(lib.rand(2, 2, 3), [2, 3, 0, 5], align_corners=False),
    lambda F, lib: F.affine_grid(lib.rand(2, 2, 3), [3, 3, 4, 5], align_corners=False),
])
def test_grid_errors(case):
    _error(lambda lib: case(lib.nn.functional, lib))


# ---- lazy Linear and norms ----------------------------------------------------------------------

def _shape(t):
    return None if type(t).__name__.startswith("Uninitialized") else tuple(t.shape)


def _lazy_facts(m):
    return [type(m).__name__, repr(m), sorted(m.state_dict()),
            [(n, type(p).__name__, _shape(p)) for n, p in m.named_parameters()],
            [(n, type(b).__name__, _shape(b)) for n, b in m.named_buffers()],
            m.has_uninitialized_params() if hasattr(m, "has_uninitialized_params") else None]


@pytest.mark.parametrize("name,kw,shape", [
    ("LazyLinear", {"out_features": 3}, (2, 5, 4)),
    ("LazyLinear", {"out_features": 3, "bias": False}, (4,)),
    ("LazyBatchNorm1d", {}, (4, 3)),
    ("LazyBatchNorm1d", {"affine": False, "track_running_stats": False}, (4, 3, 2)),
    ("LazyBatchNorm2d", {"momentum": None}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", {"affine": False}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", {"affine": False, "track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", {"eps": 1e-3}, (2, 3, 2, 3, 2)),
])
def test_lazy_modules(name, kw, shape):
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)

    def prog(lib):
        lib.manual_seed(0)
        m = getattr(lib.nn, name)(**kw)
        before = _lazy_facts(m)
        xt = lib.tensor(x, requires_grad=True)
        if name == "LazyLinear":  # materialise, then copy torch's weights in
            m(xt)
            with lib.no_grad():
                m.weight.copy_(lib.ones_like(m.weight) * 0.1 * lib.arange(m.weight.numel()).view(
                    m.weight.shape).float())
            y = m(xt)
        else:
            y = m(xt)
        y.sum().backward() if y.requires_grad else None
        after = _lazy_facts(m)
        grads = [p.grad for _, p in m.named_parameters()]
        bufs = [b for _, b in m.named_buffers()]
        return [before, after, isinstance(m, getattr(lib.nn, m.__class__.__name__)), xt.grad, y
                if name != "LazyLinear" else y.shape] + grads + bufs

    _both(prog, rtol=1e-4, atol=1e-5)


def test_lazy_load_state_dict_and_errors():
    def prog(lib):
        m = lib.nn.LazyLinear(3)
        m.load_state_dict({"weight": lib.ones(3, 2), "bias": lib.zeros(3)})
        facts = _lazy_facts(m)
        y = m(lib.ones(1, 2))
        return [facts, _lazy_facts(m), y, m.in_features]

    _both(prog)
    _error(lambda lib: lib.nn.LazyLinear(3)(lib.tensor(1.0)))
    _error(lambda lib: lib.nn.LazyBatchNorm2d()(lib.ones(2, 3)))


# ---- fractional max pooling ---------------------------------------------------------------------

@pytest.mark.parametrize("nd,shape,kw", [
    (2, (2, 3, 7, 8), {"kernel_size": 2, "output_size": (4, 5)}),
    (2, (2, 3, 9, 9), {"kernel_size": (3, 2), "output_ratio": (0.5, 0.6)}),
    (2, (3, 10, 7), {"kernel_size": 3, "output_size": 5}),
    (2, (1, 2, 5, 5), {"kernel_size": 2, "output_size": 4}),
    (2, (1, 2, 6, 6), {"kernel_size": 1, "output_size": 1}),
    (3, (2, 2, 5, 6, 7), {"kernel_size": 2, "output_size": (3, 4, 2)}),
    (3, (2, 6, 5, 7), {"kernel_size": (2, 1, 3), "output_ratio": (0.5, 0.7, 0.6)}),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fractional_max_pool(nd, shape, kw, dtype):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape).astype(dtype)
    x[..., 0] = x[..., 1]  # (ties)
    nb = shape[0] if len(shape) == nd + 2 else 1
    u = rng.random((nb, shape[-nd - 1], nd)).astype(dtype)

    def prog(lib):
        xt = lib.tensor(x, requires_grad=True)
        F = lib.nn.functional
        fn = getattr(F, f"fractional_max_pool{nd}d")
        y, i = fn(xt, return_indices=True, _random_samples=lib.tensor(u), **kw)
        up = lib.tensor(np.arange(y.numel(), dtype=dtype).reshape(tuple(y.shape)))
        y.backward(up)
        y2 = getattr(F, f"fractional_max_pool{nd}d_with_indices")(xt, _random_samples=lib.tensor(u),
                                                                 **kw)[0]
        m = getattr(lib.nn, f"FractionalMaxPool{nd}d")(_random_samples=lib.tensor(u), **kw)
        return [y, i, xt.grad, _gname(y), y2, m(xt), repr(m), sorted(m.state_dict())]

    _both(prog)


def test_fractional_max_pool_random_samples_shape():
    def prog(lib):
        x = lib.randn(2, 3, 7, 8)
        y, i = lib.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5),
                                                       return_indices=True)
        z = lib.nn.FractionalMaxPool3d(2, output_size=2)(lib.randn(3, 4, 5, 6))
        return [tuple(y.shape), tuple(i.shape), i.dtype == lib.int64, tuple(z.shape),
                bool((y == x.flatten(2).gather(2, i.flatten(2)).view_as(y)).all())]

    _both(prog)


@pytest.mark.parametrize("case", [
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 2, output_size=(7, 5), _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 2, output_size=(4, 5), _random_samples=s[:1]),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 2, output_size=(4, 5),
                                                 _random_samples=s[..., :1]),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 2, output_size=(4, 5),
                                                 _random_samples=s[:, :2]),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 2),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 2, output_ratio=0.5),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5, 0.5)),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, (2, 2, 2), output_size=3),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 2, output_size=(3, 4, 5)),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 9, output_size=3),
    lambda F, lib, x, s: F.fractional_max_pool2d(x.int(), 2, output_size=3),
    lambda F, lib, x, s: F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=s.double()),
    lambda F, lib, x, s: F.fractional_max_pool2d(x[0, 0, 0], 2, output_size=3),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3),
    lambda F, lib, x, s: F.fractional_max_pool3d(lib.ones(1, 1, 5, 2, 4), 2, output_size=1,
                                                 _random_samples=lib.rand(1, 1, 3)),
    lambda F, lib, x, s: F.fractional_max_pool3d(lib.ones(1, 1, 5, 5, 5), 1, output_size=(1, 5, 5),
                                                 _random_samples=lib.rand(1, 1, 3)),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool2d(2),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 1.5, 0.5)),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool3d(0, output_size=2),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool3d(2),
])
def test_fractional_max_pool_errors(case):
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 8)).astype(np.float32)
    s = np.random.default_rng(1).random((2, 3, 2)).astype(np.float32)
    _error(lambda lib: case(lib.nn.functional, lib, lib.tensor(x), lib.tensor(s)))


# ---- upsamplers, Buffer, CrossMapLRN2d, AdaptiveLogSoftmaxWithLoss, feature_dropout -------------

def test_legacy_upsamplers():
    x = np.random.default_rng(4).standard_normal((2, 3, 4, 5)).astype(np.float32)

    def prog(lib):
        xt = lib.tensor(x, requires_grad=True)
        a = lib.nn.UpsamplingNearest2d(scale_factor=2)
        b = lib.nn.UpsamplingBilinear2d(size=(7, 9))
        y = a(xt).sum() + (b(xt) * b(xt)).sum()
        y.backward()
        return [a(xt), b(xt), xt.grad, repr(a), repr(b)]  # (interpolate's grad_fn: not here)

    _both(prog)


def test_buffer():
    def prog(lib):
        m = lib.nn.Module()
        src = lib.ones(2, requires_grad=True)
        b = lib.nn.Buffer(src, persistent=False)
        m.x = b
        m.y = lib.nn.Buffer(lib.arange(3.0))
        m.z = lib.zeros(1)
        facts = [isinstance(b, lib.nn.Buffer), isinstance(lib.ones(1), lib.nn.Buffer),
                 b.persistent, b.requires_grad, b.grad_fn is None, m.x is b,
                 sorted(dict(m.named_buffers())), sorted(m.state_dict()),
                 sorted(m._non_persistent_buffers_set), tuple(lib.nn.Buffer().shape)]
        m.y = lib.zeros(3)  # (still a persistent buffer)
        return facts + [sorted(m.state_dict()), m.y]

    _both(prog)


@pytest.mark.parametrize("size,shape", [(3, (2, 5, 3, 3)), (2, (1, 4, 2, 3)), (5, (2, 3, 2, 2))])
def test_cross_map_lrn2d(size, shape):
    x = np.random.default_rng(5).standard_normal(shape)
    up = np.random.default_rng(6).standard_normal(shape)

    def prog(lib):
        xt = lib.tensor(x, requires_grad=True)
        m = lib.nn.CrossMapLRN2d(size, alpha=0.1, beta=0.6, k=2)
        y = m(xt)
        y.backward(lib.tensor(up))
        return [y, xt.grad, _gname(y), repr(m)]

    _both(prog)
    _error(lambda lib: lib.nn.CrossMapLRN2d(3)(lib.ones(2, 3, 4)))


def _asm(lib, seed=0):
    m = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return m


def test_adaptive_log_softmax_with_loss():
    x = np.random.default_rng(8).standard_normal((6, 8)).astype(np.float32)

    def prog(lib):
        m = _asm(lib)
        xt = lib.tensor(x, requires_grad=True)
        out = m(xt, lib.tensor([0, 9, 4, 2, 6, 7]))
        out.loss.backward()
        one = m(xt[0], lib.tensor(5))
        grads = [p.grad for p in m.parameters()]
        return [out.output, out.loss, xt.grad, type(out).__name__, list(out._fields), one.output,
                one.loss, m.log_prob(xt), m.predict(xt), m.predict(xt[:1] * 0), repr(m),
                sorted(m.state_dict()), _gname(out.loss)] + grads

    _both(prog, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]),
    lambda lib: _asm(lib)(lib.ones(3, 8), lib.tensor([0, 1])),
    lambda lib: _asm(lib)(lib.ones(3, 8, 1), lib.tensor([0, 1, 2])),
    lambda lib: _asm(lib)(lib.ones(3, 8), lib.tensor(1)),
    lambda lib: _asm(lib)(lib.ones(3, 8), lib.tensor([[1]])),
    lambda lib: _asm(lib)(lib.ones(2, 8), lib.tensor([1, 12])),
])
def test_adaptive_log_softmax_errors(case):
    _error(case)


def test_feature_dropout():
    def prog(lib):
        x = lib.ones(4, 6, 3, requires_grad=True)
        y = lib.feature_dropout(x, 0.5, True)
        kept = (y != 0).all(-1) | (y == 0).all(-1)
        y.sum().backward()
        z = lib.ones(3, 4)
        w = lib.feature_dropout_(z, 1.0, True)
        return [bool(kept.all()), sorted(set(y.detach().flatten().tolist())), _gname(y),
                lib.feature_dropout(x, 0.5, False) is x, w is z, z, z._version,
                sorted(set(x.grad.flatten().tolist()))]

    _both(prog)
    _error(lambda lib: lib.feature_dropout(lib.ones(3), 0.5, True))
    _error(lambda lib: lib.feature_dropout(lib.ones(3, 2), 1.5, True))


# ---- nn.init: eye_, dirac_, sparse_ and the deprecated names ------------------------------------

@pytest.mark.parametrize("shape,groups", [((4, 2, 3), 1), ((6, 2, 3, 3), 2), ((2, 4, 3, 2, 3), 1),
                                          ((4, 4, 1, 1), 4)])
def test_init_dirac(shape, groups):
    def prog(lib):
        t = lib.nn.Parameter(lib.empty(shape))
        r = lib.nn.init.dirac_(t, groups)
        return [t, r is t, t._version, t.requires_grad]

    _both(prog)


def test_init_eye_sparse():
    def prog(lib):
        p = lib.nn.Parameter(lib.empty(3, 5))
        lib.nn.init.eye_(p)
        q = lib.empty(6, 4)
        lib.nn.init.sparse_(q, 0.4, std=0.1)
        zeros_per_col = (q == 0).sum(0).tolist()
        return [p, p._version, p.requires_grad, q._version, zeros_per_col,
                bool(q.abs().max() < 1.0)]

    _both(prog)


@pytest.mark.parametrize("name,args", [
    ("uniform", (0.0, 1.0)), ("normal", ()), ("constant", (0.5,)), ("xavier_uniform", ()),
    ("xavier_normal", ()), ("kaiming_uniform", ()), ("kaiming_normal", ()), ("orthogonal", ()),
    ("sparse", (0.5,)), ("eye", ()), ("dirac", ()),
])
def test_init_deprecated_names(name, args):
    def prog(lib):
        t = lib.empty(4, 2, 3) if name == "dirac" else lib.empty(4, 3)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            r = getattr(lib.nn.init, name)(t, *args)
        return [r is t, t._version > 0, getattr(lib.nn.init, name).__name__,
                [(w.category.__name__, str(w.message)) for w in rec],
                t if name in ("constant", "eye", "dirac") else None]

    _both(prog)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.init.eye_(lib.empty(2, 2, 2)),
    lambda lib: lib.nn.init.dirac_(lib.empty(2, 2)),
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 2, 3), groups=2),
    lambda lib: lib.nn.init.sparse_(lib.empty(3), 0.5),
])
def test_init_errors(case):
    _error(case)


# ---- the same kernels on cuda (the simulated GPU where there is none) ---------------------------

def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


_GPU_CASES = {
    "embedding_bag mean padding": (
        [_x(10, 3)], lambda F, d, w: F.embedding_bag(
            ilt.tensor(_IDX, device=d), w, ilt.tensor([0, 3, 3], device=d), padding_idx=4)),
    "embedding_bag max": (
        [_x(10, 3)], lambda F, d, w: F.embedding_bag(ilt.tensor(_IDX, device=d).view(2, 4), w,
                                                     mode="max")),
    "embedding_bag sum psw freq": (
        [_x(10, 3), _x(8, seed=1)], lambda F, d, w, p: F.embedding_bag(
            ilt.tensor(_IDX, device=d), w, ilt.tensor([0, 5], device=d), mode="sum",
            per_sample_weights=p, scale_grad_by_freq=True)),
    "affine_grid": ([_x(2, 2, 3)], lambda F, d, t: F.affine_grid(t, [2, 1, 3, 4], False)),
    "grid_sample bilinear reflection": (
        [_x(2, 3, 4, 5), _x(2, 3, 2, 2, seed=1)],
        lambda F, d, x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=False)),
    "grid_sample bicubic border": (
        [_x(1, 2, 4, 5), _x(1, 3, 2, 2, seed=1)],
        lambda F, d, x, g: F.grid_sample(x, g, mode="bicubic", padding_mode="border",
                                         align_corners=True)),
    "grid_sample 3d nearest": (
        [_x(1, 2, 3, 4, 5), _x(1, 2, 2, 3, 3, seed=1)],
        lambda F, d, x, g: F.grid_sample(x, g, mode="nearest", align_corners=True)),
    "fractional_max_pool2d": (
        [_x(2, 3, 7, 8)], lambda F, d, x: F.fractional_max_pool2d(
            x, 2, output_size=(4, 5), _random_samples=ilt.tensor(
                np.random.default_rng(3).random((2, 3, 2)).astype(np.float32), device=d))),
    "conv_tbc": ([_x(5, 2, 3), _x(3, 3, 4, seed=1), _x(4, seed=2)],
                 lambda F, d, x, w, b: F.conv_tbc(x, w, b, 1)),
    "fractional_max_pool3d": (
        [_x(1, 2, 5, 6, 5)], lambda F, d, x: F.fractional_max_pool3d(
            x, 2, output_size=(3, 4, 2), _random_samples=ilt.tensor(
                np.random.default_rng(3).random((1, 2, 3)).astype(np.float32), device=d))),
}


@pytest.mark.parametrize("name", sorted(_GPU_CASES))
def test_kernels_on_cuda_match_the_cpu(name):
    from tests.differential.cupy_like import any_gpu

    arrays, fn = _GPU_CASES[name]

    def run(dev):
        xs = [ilt.tensor(a, device=dev, requires_grad=True) for a in arrays]
        y = fn(ilt.nn.functional, dev, *xs)
        up = np.random.default_rng(9).standard_normal(tuple(y.shape)).astype(np.float32)
        y.backward(ilt.tensor(up, device=dev))
        return [y.detach().cpu().numpy()] + [x.grad.cpu().numpy() for x in xs]

    ref = run("cpu")
    with any_gpu():
        got = run("cuda")
    for a, b in zip(ref, got):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_embedding_bag_sparse_forward():
    """sparse=True: the same output (the gradient is dense here: no sparse tensors)."""
    def prog(lib):
        w = lib.tensor(_W, requires_grad=True)
        y = lib.nn.functional.embedding_bag(lib.tensor(_IDX), w, lib.tensor([0, 4]), sparse=True)
        y.sum().backward()
        g = w.grad.to_dense() if getattr(w.grad, "is_sparse", False) else w.grad
        return [y, g, lib.embedding_bag.__name__]

    _both(prog)


# ---- linear_cross_entropy, LinearCrossEntropyLoss (torch 2.13) ----------------------------------

@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"},
                                {"label_smoothing": 0.2}, {"ignore_index": 2},
                                {"weight": True}, {"bias": True}, {"options": True},
                                {"options": True, "reduction": "none", "bias": True},
                                {"options": True, "label_smoothing": 0.1},
                                {"options": True, "unbatched": True},
                                {"probs": True}])
def test_linear_cross_entropy(kw):
    rng = np.random.default_rng(12)
    x, w = rng.standard_normal((5, 4)), rng.standard_normal((3, 4))
    b, cw = rng.standard_normal(3), rng.random(3)
    t = np.array([0, 2, 1, 2, 0])
    probs = rng.random((5, 3))

    def prog(lib):
        kw2 = dict(kw)
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        bt = lib.tensor(b, requires_grad=True) if kw2.pop("bias", False) else None
        if kw2.pop("weight", False):
            kw2["weight"] = lib.tensor(cw)
        if kw2.pop("options", False):
            kw2["options"] = lib.nn.LinearCrossEntropyOptions()
        tt = lib.tensor(probs) if kw2.pop("probs", False) else lib.tensor(t)
        if kw2.pop("unbatched", False):
            xt_, tt = xt[0], tt[0]
        else:
            xt_ = xt
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            y = lib.nn.functional.linear_cross_entropy(xt_, wt, tt, linear_bias=bt, **kw2)
        y.sum().backward()
        return [y, xt.grad, wt.grad, None if bt is None else bt.grad, _gname(y),
                [str(r.message) for r in rec]]

    _both(prog)


def test_linear_cross_entropy_module_k_dim():
    rng = np.random.default_rng(13)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    t = rng.integers(0, 3, (4, 2))

    def prog(lib):
        m = lib.nn.LinearCrossEntropyLoss(5, 3, out_features=(2,), bias=True,
                                          label_smoothing=0.1)
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.tensor(np.random.default_rng(i).standard_normal(tuple(p.shape))
                                   .astype(np.float32)))
        xt = lib.tensor(x, requires_grad=True)
        y = m(xt, lib.tensor(t))
        y.backward()
        return [y, xt.grad, m.linear.weight.grad, m.linear.bias.grad, repr(m),
                sorted(m.state_dict()), repr(lib.nn.LinearCrossEntropyOptions(batch_chunk_size=4))]

    _both(prog, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", [
    lambda lib, F: F.linear_cross_entropy(lib.ones(2, 2, 3), lib.ones(4, 3), lib.tensor([0, 1])),
    lambda lib, F: F.linear_cross_entropy(lib.ones(2, 3), lib.ones(4), lib.tensor([0, 1])),
    lambda lib, F: F.linear_cross_entropy(lib.ones(2, 3), lib.ones(4, 2), lib.tensor([0, 1])),
    lambda lib, F: F.linear_cross_entropy(lib.ones(2, 3), lib.ones(4, 3), lib.tensor([0, 1]),
                                          linear_bias=lib.ones(3)),
    lambda lib, F: F.linear_cross_entropy(lib.ones(3), lib.ones(4, 2, 3), lib.tensor(0)),
    lambda lib, F: F.linear_cross_entropy(lib.ones(2, 3), lib.ones(4, 3), lib.ones(2, 4),
                                          ignore_index=1),
    lambda lib, F: lib.nn.LinearCrossEntropyLoss(3, 4, weight=lib.ones(3)),
    lambda lib, F: lib.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5),
    lambda lib, F: lib.nn.LinearCrossEntropyOptions(acc_policy="x"),
    lambda lib, F: lib.nn.LinearCrossEntropyOptions(chunking_method="y:2"),
    lambda lib, F: lib.nn.LinearCrossEntropyOptions(batch_chunk_size=0),
    lambda lib, F: lib.nn.LinearCrossEntropyOptions(acc_dtype=lib.int32),
])
def test_linear_cross_entropy_errors(case):
    _error(lambda lib: case(lib, lib.nn.functional))


# ---- Container, SyncBatchNorm, DataParallel, factory_kwargs -------------------------------------

def test_container_sync_batchnorm_data_parallel():
    x = np.random.default_rng(14).standard_normal((4, 3, 2)).astype(np.float32)

    def prog(lib):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            c = lib.nn.Container(a=lib.nn.ReLU())
        s = lib.nn.SyncBatchNorm(3, momentum=None)
        xt = lib.tensor(x, requires_grad=True)
        y = s(xt)
        y.pow(2).sum().backward()
        s.eval()
        z = s(xt)
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(3))
        conv = lib.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        dp = lib.nn.DataParallel(lib.nn.ReLU())
        return [repr(c), [(r.category.__name__, str(r.message)) for r in rec], y, xt.grad,
                _gname(y), z, s.running_mean, s.running_var, s.num_batches_tracked, repr(s),
                repr(conv), type(conv[1]).__name__, conv[1].weight is net[1].weight, repr(dp),
                dp.device_ids, dp(lib.tensor([-1.0, 2.0])),
                str(lib.nn.factory_kwargs({"dtype": lib.float64,
                                           "factory_kwargs": {"device": "cpu"}}))]

    _both(prog)
    _error(lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(3)))
    _error(lambda lib: lib.nn.SyncBatchNorm(0)(lib.ones(3, 0)))
    _error(lambda lib: lib.nn.factory_kwargs({"dtype": 1, "factory_kwargs": {"dtype": 2}}))
    _error(lambda lib: lib.nn.factory_kwargs({"foo": 1}))


@pytest.mark.parametrize("pad", [0, 1, 4, -1])
def test_conv_tbc(pad):
    rng = np.random.default_rng(15)
    x, w, b = rng.standard_normal((5, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)

    def prog(lib):
        ts = [lib.tensor(a, requires_grad=True) for a in (x, w, b)]
        y = lib.nn.functional.conv_tbc(*ts, pad)
        y.backward(lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape))))
        nf = [type(f).__name__ for f, _ in y.grad_fn.next_functions]
        return [y, _gname(y), tuple(y.stride()), nf, lib.conv_tbc is lib.nn.functional.conv_tbc]\
            + [t.grad for t in ts]

    _both(prog)


@pytest.mark.parametrize("case", [
    lambda lib, x, w, b: lib.conv_tbc(x[0], w, b),
    lambda lib, x, w, b: lib.conv_tbc(x, w[0], b),
    lambda lib, x, w, b: lib.conv_tbc(x, w, b[None]),
    lambda lib, x, w, b: lib.conv_tbc(x, w[:, :2], b),
    lambda lib, x, w, b: lib.conv_tbc(x, w, b[:3]),
    lambda lib, x, w, b: lib.conv_tbc(x, w, b, -2),
    lambda lib, x, w, b: lib.conv_tbc(x.double(), w, b),
])
def test_conv_tbc_errors(case):
    _error(lambda lib: case(lib, lib.ones(5, 2, 3), lib.ones(3, 3, 4), lib.ones(4)))


# ---- multi_head_attention_forward ---------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    {}, {"self_attn": True}, {"kv_same": True}, {"need_weights": False},
    {"need_weights": False, "mask": "bool"}, {"average_attn_weights": False},
    {"separate": True}, {"bias_kv": True}, {"add_zero_attn": True, "mask": "float"},
    {"kpm": True}, {"kpm": True, "mask": "bool", "bias_kv": True}, {"unbatched": True},
    {"static": True}, {"no_bias": True, "mask": "3d"},
])
def test_multi_head_attention_forward(kw):
    rng = np.random.default_rng(16)
    L, S, N, E, H = 3, 4, 2, 6, 2
    arr = {n: rng.standard_normal(s) for n, s in {
        "q": (L, N, E), "k": (S, N, E), "v": (S, N, E), "w": (3 * E, E), "b": (3 * E,),
        "ow": (E, E), "ob": (E,), "bk": (1, 1, E), "bv": (1, 1, E), "qw": (E, E), "kw": (E, E),
        "vw": (E, E), "sk": (N * H, 5, E // H), "sv": (N * H, 5, E // H)}.items()}
    fmask = rng.standard_normal((L, S))
    bmask = rng.random((L, S)) < 0.3
    kpm = np.array([[False, False, True, False], [False, True, False, False]])

    def prog(lib):
        t = {n: lib.tensor(a, requires_grad=True) for n, a in arr.items()}
        q, k, v = t["q"], t["k"], t["v"]
        if kw.get("self_attn"):
            k = v = q
        elif kw.get("kv_same"):
            v = k
        if kw.get("unbatched"):
            q, k, v = q[:, 0], k[:, 0], v[:, 0]
        mask = {"float": lib.tensor(fmask), "bool": lib.tensor(bmask),
                "3d": lib.tensor(np.repeat(fmask[None], N * H, 0))}.get(kw.get("mask"))
        if kw.get("add_zero_attn") and mask is not None:
            mask = mask
        out, w = lib.nn.functional.multi_head_attention_forward(
            q, k, v, E, H, None if kw.get("separate") else t["w"],
            None if kw.get("no_bias") else t["b"],
            t["bk"] if kw.get("bias_kv") else None, t["bv"] if kw.get("bias_kv") else None,
            bool(kw.get("add_zero_attn")), 0.0, t["ow"], None if kw.get("no_bias") else t["ob"],
            key_padding_mask=lib.tensor(kpm) if kw.get("kpm") else None,
            need_weights=kw.get("need_weights", True), attn_mask=mask,
            use_separate_proj_weight=bool(kw.get("separate")),
            q_proj_weight=t["qw"], k_proj_weight=t["kw"], v_proj_weight=t["vw"],
            static_k=t["sk"] if kw.get("static") else None,
            static_v=t["sv"] if kw.get("static") else None,
            average_attn_weights=kw.get("average_attn_weights", True))
        (out.sum() + (0 if w is None else (w * w).sum())).backward()
        return [out, w, _gname(out), None if w is None else _gname(w)] + \
            [t[n].grad for n in sorted(t)]

    _both(prog, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("case", [
    lambda lib, F, x, w: F.multi_head_attention_forward(x, x, x, 5, 2, w, None, None, None,
                                                        False, 0.0, w[:6], None),
    lambda lib, F, x, w: F.multi_head_attention_forward(x, x, x, 6, 4, w, None, None, None,
                                                        False, 0.0, w[:6], None),
    lambda lib, F, x, w: F.multi_head_attention_forward(x, x[:, :1], x, 6, 2, w, None, None,
                                                        None, False, 0.0, w[:6], None),
    lambda lib, F, x, w: F.multi_head_attention_forward(x[0], x, x, 6, 2, w, None, None, None,
                                                        False, 0.0, w[:6], None),
    lambda lib, F, x, w: F.multi_head_attention_forward(x, x, x, 6, 2, w, None, None, None,
                                                        False, 0.0, w[:6], None,
                                                        attn_mask=lib.ones(2, 2)),
    lambda lib, F, x, w: F.multi_head_attention_forward(x, x, x, 6, 2, w, None, None, None,
                                                        False, 0.0, w[:6], None,
                                                        attn_mask=lib.ones(3, 3, dtype=lib.int64)),
    lambda lib, F, x, w: F.multi_head_attention_forward(x, x, x, 6, 2, w, None, w[:1, None], None,
                                                        False, 0.0, w[:6], None),
    lambda lib, F, x, w: F.multi_head_attention_forward(x, x, x, 6, 2, w, None, None, None,
                                                        False, 0.0, w[:6], None, is_causal=True),
    lambda lib, F, x, w: F.multi_head_attention_forward(x, x, x, 6, 2, None, None, None, None,
                                                        False, 0.0, w[:6], None),
    lambda lib, F, x, w: F.multi_head_attention_forward(x, x, x, 6, 2, w, None, None, None,
                                                        False, 0.0, w[:6], None,
                                                        key_padding_mask=lib.ones(2, 2)),
])
def test_multi_head_attention_forward_errors(case):
    _error(lambda lib: case(lib, lib.nn.functional, lib.ones(3, 2, 6), lib.ones(18, 6)))
