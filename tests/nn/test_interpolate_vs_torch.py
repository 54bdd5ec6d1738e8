"""F.interpolate against torch 2.13, kernel by kernel (inplace_lab/ops/nn_upsample.py).

Every mode x rank x size/scale_factor/recompute x align_corners x dtype: values (float16,
float32 and float64 bit for bit where ATen's kernel is reproduced exactly: nearest,
nearest-exact, linear, bilinear, trilinear; bicubic and the antialiased kernels to a few
ulps), gradients for a random upstream gradient (bit for bit but for 'area' and antialias),
grad_fn names and saved attributes, result and gradient strides for contiguous and
channels-last inputs, and the errors (type and message) of interpolate's Python checks and of
ATen's size / dtype checks.
"""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402

TF, LF = torch.nn.functional, il.nn.functional

MODES = {3: ("nearest", "nearest-exact", "linear", "area"),
         4: ("nearest", "nearest-exact", "bilinear", "bicubic", "area"),
         5: ("nearest", "nearest-exact", "trilinear", "area")}
SHAPES = {3: (2, 3, 5), 4: (2, 3, 4, 5), 5: (1, 2, 3, 4, 3)}
SIZES = {  # the size / scale_factor forms, per number of spatial dims
    1: [dict(size=8), dict(size=3), dict(size=1), dict(scale_factor=2), dict(scale_factor=1.3),
        dict(scale_factor=0.6), dict(scale_factor=2.5, recompute_scale_factor=True),
        dict(size=(5,))],
    2: [dict(size=(7, 9)), dict(size=(2, 3)), dict(size=4), dict(scale_factor=2),
        dict(scale_factor=(1.5, 0.7)), dict(scale_factor=1.3, recompute_scale_factor=True),
        dict(scale_factor=(3, 1)), dict(size=(1, 1))],
    3: [dict(size=(4, 6, 5)), dict(size=2), dict(scale_factor=2),
        dict(scale_factor=(1.5, 0.7, 2.2)), dict(scale_factor=1.4, recompute_scale_factor=True)],
}
EXACT = {"nearest", "nearest-exact", "linear", "bilinear", "trilinear"}


def _cases():
    out = []
    for nd, modes in MODES.items():
        for mode in modes:
            for kw in SIZES[nd - 2]:
                aligns = (None,) if mode in ("nearest", "nearest-exact", "area") else \
                    (None, False, True)
                for ac in aligns:
                    k = dict(kw, mode=mode)
                    if ac is not None:
                        k["align_corners"] = ac
                    if mode == "area" and "recompute_scale_factor" in k:
                        continue
                    out.append((nd, k))
    return out


def _run(lib, F, a, kw, cl=False, grad=None):
    x = lib.tensor(a, requires_grad=True)
    if cl:
        x = lib.tensor(a).to(memory_format=lib.channels_last if a.ndim == 4 else
                             lib.channels_last_3d).requires_grad_()
    y = F.interpolate(x, **kw)
    if grad is not None:
        y.backward(lib.tensor(grad))
    return x, y


def _compare(a, kw, dtype, cl=False, exact=True, grad_exact=False):
    rng = np.random.default_rng(1)
    tx, ty = _run(torch, TF, a, kw, cl)
    g = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    ty.backward(torch.tensor(g))
    lx, ly = _run(il, LF, a, kw, cl, grad=g)
    assert tuple(ly.shape) == tuple(ty.shape)
    assert str(ly.dtype) == str(ty.dtype)
    assert ly.grad_fn.name() == ty.grad_fn.name()
    assert ly.stride() == ty.stride()
    assert lx.grad.stride() == tx.grad.stride()
    tv, lv = ty.detach().numpy(), ly.detach().numpy()
    if exact:
        np.testing.assert_array_equal(lv, tv)
    else:
        tol = {"float16": 2e-3, "float32": 5e-6, "float64": 1e-13}[dtype]
        np.testing.assert_allclose(lv, tv, rtol=tol, atol=tol)
    if grad_exact:  # (ATen's backward loops: the same products and adds, in its order)
        np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())
    gtol = {"float16": 1e-2, "float32": 2e-5, "float64": 1e-12}[dtype]
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=gtol, atol=gtol)
    return ty, ly


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nd,kw", _cases())
def test_values_gradients_names(nd, kw, dtype):
    a = np.random.default_rng(0).standard_normal(SHAPES[nd]).astype(dtype)
    exact = kw["mode"] in EXACT
    ty, ly = _compare(a, kw, dtype, exact=exact, grad_exact=kw["mode"] != "area")
    if kw["mode"] != "area":  # (the adaptive pools' nodes are not this module's)
        names = sorted(n for n in dir(ty.grad_fn) if n.startswith("_saved_"))
        assert sorted(n for n in dir(ly.grad_fn) if n.startswith("_saved_")) == names
        for n in names:
            assert getattr(ly.grad_fn, n) == getattr(ty.grad_fn, n), n


@pytest.mark.parametrize("nd,mode", [(n, m) for n, ms in MODES.items() for m in ms])
def test_float16(nd, mode):
    a = np.random.default_rng(2).standard_normal(SHAPES[nd]).astype("float16")
    kw = dict(scale_factor=1.7, mode=mode)
    if mode == "area":
        kw = dict(size=3, mode=mode)
    _compare(a, kw, "float16", exact=mode != "area")


@pytest.mark.parametrize("nd,mode", [(4, m) for m in MODES[4]] + [(5, m) for m in MODES[5]])
@pytest.mark.parametrize("size", [None, 2])
def test_channels_last(nd, mode, size):
    shape = (2, 5, 4, 5) if nd == 4 else (2, 4, 3, 4, 3)
    a = np.random.default_rng(3).standard_normal(shape).astype("float32")
    kw = dict(mode=mode, size=size) if size else dict(mode=mode, scale_factor=1.5)
    if mode == "area" and not size:
        kw = dict(mode=mode, size=3)
    _compare(a, kw, "float32", cl=True, exact=mode in ("nearest", "nearest-exact"))


def test_uint8_nearest():
    a = np.random.default_rng(4).integers(0, 255, (1, 2, 3, 4)).astype("uint8")
    for mode in ("nearest", "nearest-exact"):
        t = TF.interpolate(torch.tensor(a), scale_factor=1.5, mode=mode)
        q = LF.interpolate(il.tensor(a), scale_factor=1.5, mode=mode)
        assert str(q.dtype) == str(t.dtype)
        np.testing.assert_array_equal(q.numpy(), t.numpy())


def test_nonfinite_stay_local():
    a = np.arange(20, dtype="float32").reshape(1, 1, 4, 5)
    a[0, 0, 0, 0] = np.inf
    a[0, 0, 3, 4] = np.nan
    for mode in ("bilinear", "bicubic", "nearest"):
        t = TF.interpolate(torch.tensor(a), size=(8, 10), mode=mode)
        q = LF.interpolate(il.tensor(a), size=(8, 10), mode=mode)
        np.testing.assert_array_equal(np.isnan(q.numpy()), np.isnan(t.numpy()))
        np.testing.assert_array_equal(np.isinf(q.numpy()), np.isinf(t.numpy()))


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


ERRORS = [
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=(2, 2), scale_factor=2),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4)),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), scale_factor=2, align_corners=True),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=2, mode="area", align_corners=False),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=2, mode="nearest-exact",
                               align_corners=True),
    lambda m, F: F.interpolate(m.ones(1, 2, 3), scale_factor=2, mode="bilinear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3), scale_factor=2, mode="trilinear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), scale_factor=2, mode="linear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), scale_factor=2, mode="trilinear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, 5), scale_factor=2, mode="linear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, 5), scale_factor=2, mode="bilinear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, 5), scale_factor=2, mode="bicubic"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3), scale_factor=2, mode="bicubic"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), scale_factor=2, mode="foo"),
    lambda m, F: F.interpolate(m.ones(2, 3), scale_factor=2),
    lambda m, F: F.interpolate(m.ones(2, 3, 4, 5, 6, 7), size=2),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=(2, 2, 2)),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), scale_factor=(2, 2, 2)),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=(2.0, 3)),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=(2, 3), recompute_scale_factor=True),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=(2, 3), recompute_scale_factor=False),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=2, antialias=True),
    lambda m, F: F.interpolate(m.ones(1, 2, 3), size=2, mode="linear", antialias=True),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=2, mode="lanczos"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=2, mode="lanczos", align_corners=True),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=0),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=(2, -1), mode="bilinear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), scale_factor=0.2, mode="bicubic"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3), size=0, mode="linear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 3, 3), scale_factor=0.1, mode="trilinear"),
    lambda m, F: F.interpolate(m.ones(1, 0, 3, 4), size=2),
    lambda m, F: F.interpolate(m.ones(1, 0, 3), size=2, mode="linear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 0, 4), size=2),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, dtype=m.int64), size=2),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, dtype=m.int32), size=2),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 3, 3, dtype=m.bool), size=2),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, dtype=m.uint8), size=2, mode="linear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, dtype=m.int64), size=2, mode="bilinear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, dtype=m.int8), size=2, mode="bicubic"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, 5, dtype=m.int64), size=2, mode="trilinear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, dtype=m.int64), size=2, mode="area"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, dtype=m.complex64), size=2),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=2.5),
    lambda m, F: F.interpolate(m.ones(1, 2, 3), size=2.5, mode="linear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=2.5, mode="bilinear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, 5), size=1.5, mode="nearest-exact"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4, 5), size=1.5, mode="trilinear"),
    lambda m, F: F.interpolate(m.ones(1, 2, 3, 4), size=2.5, mode="bicubic", antialias=True),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        want = _err(lambda: ERRORS[case](torch, TF))
    with warnings.catch_warnings(record=True) as lw:
        warnings.simplefilter("always")
        got = _err(lambda: ERRORS[case](il, LF))
    if want is None:  # (accepted: recompute_scale_factor=False with a size)
        assert got is None
        return
    assert got == want
    assert [str(w.message) for w in lw] == [str(w.message) for w in tw]


def test_empty_batch():
    for mode, shape in (("nearest", (0, 2, 3, 4)), ("bilinear", (0, 2, 3, 4)),
                        ("linear", (0, 2, 3))):
        t = TF.interpolate(torch.ones(shape), size=5, mode=mode)
        q = LF.interpolate(il.ones(shape), size=5, mode=mode)
        assert tuple(q.shape) == tuple(t.shape) and q.stride() == t.stride()


def test_upsample_modules():
    a = np.random.default_rng(5).standard_normal((1, 2, 3, 4)).astype("float32")
    mods = [
        lambda nn: nn.Upsample(scale_factor=2),
        lambda nn: nn.Upsample(size=(5, 6), mode="bilinear", align_corners=True),
        lambda nn: nn.Upsample(scale_factor=(1.5, 2), mode="bicubic"),
        lambda nn: nn.Upsample(size=5, mode="nearest-exact"),
        lambda nn: nn.UpsamplingNearest2d(scale_factor=2),
        lambda nn: nn.UpsamplingBilinear2d(size=(4, 7)),
    ]
    for make in mods:
        tm, lm = make(torch.nn), make(il.nn)
        assert repr(lm) == repr(tm)
        t = tm(torch.tensor(a, requires_grad=True))
        q = lm(il.tensor(a, requires_grad=True))
        assert q.grad_fn.name() == t.grad_fn.name()
        np.testing.assert_allclose(q.detach().numpy(), t.detach().numpy(), rtol=5e-6,
                                   atol=5e-6)


@pytest.mark.parametrize("mode,shape,size", [
    ("nearest", (1, 2, 3, 4), (5, 6)), ("nearest-exact", (1, 2, 3), (5,)),
    ("linear", (1, 2, 3), (5,)), ("bilinear", (1, 2, 3, 4), (5, 3)),
    ("bicubic", (1, 2, 3, 4), (5, 6)), ("trilinear", (1, 2, 3, 2, 3), (4, 3, 2)),
    ("nearest", (1, 1, 2, 3, 2), (3, 4, 5))])
def test_double_backward(mode, shape, size):
    """The gradient kernel is differentiable again (Upsample*BackwardBackward0), with the
    forward kernel as its backward."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal(shape)
    gy = rng.standard_normal((shape[0], shape[1], *size))
    w = rng.standard_normal(shape)
    res = []
    for lib, F in ((torch, TF), (il, LF)):
        x = lib.tensor(a, requires_grad=True)
        y = F.interpolate(x, size=size, mode=mode)
        g = lib.tensor(gy, requires_grad=True)
        gx, = lib.autograd.grad(y, x, g, create_graph=True)
        (gx * lib.tensor(w)).sum().backward()
        res.append((gx.grad_fn.name(), g.grad.numpy()))
    assert res[1][0] == res[0][0]
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode,shape,kw", [
    ("nearest-exact", (1, 2, 5), dict(size=7)), ("linear", (1, 2, 5), dict(scale_factor=1.6)),
    ("bicubic", (1, 2, 3, 4), dict(size=(5, 6), align_corners=True)),
    ("bilinear", (1, 5, 3, 4), dict(scale_factor=1.5)),
    ("trilinear", (1, 2, 3, 2, 3), dict(size=(4, 3, 2))),
    ("nearest", (1, 2, 3, 2, 3), dict(scale_factor=(1.5, 0.7, 2.2)))])
def test_gpu_path_matches_cpu(mode, shape, kw):
    """The kernels on the (simulated or real) GPU: the CPU's values, strides, gradients."""
    from tests.differential.cupy_like import any_gpu

    a = np.random.default_rng(7).standard_normal(shape).astype("float32")
    with any_gpu():
        out = []
        for dev in ("cpu", "cuda"):
            x = il.tensor(a, device=dev, requires_grad=True)
            if len(shape) == 4:
                x = il.tensor(a, device=dev).to(memory_format=il.channels_last) \
                    .requires_grad_()
            y = LF.interpolate(x, mode=mode, **kw)
            y.backward(il.ones(tuple(y.shape), device=dev))
            out.append((y.detach().cpu().numpy(), y.stride(), x.grad.cpu().numpy()))
    assert out[1][1] == out[0][1]
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-5, atol=1e-6)


AA = [((1, 2, 8, 9), dict(size=(3, 4))), ((1, 2, 8, 9), dict(size=(3, 9))),
      ((1, 2, 5, 6), dict(size=(9, 13))), ((2, 3, 10, 7), dict(scale_factor=0.45)),
      ((1, 2, 8, 9), dict(size=(3, 4), align_corners=True)),
      ((1, 2, 17, 9), dict(scale_factor=(0.3, 1.6))),
      ((1, 2, 12, 12), dict(scale_factor=0.4, recompute_scale_factor=True))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
@pytest.mark.parametrize("shape,kw", AA)
def test_antialias(shape, kw, mode, dtype):
    """_upsample_bilinear2d_aa / _bicubic2d_aa / _lanczos2d_aa: Pillow's filters (triangle,
    cubic A = -0.5, Lanczos-3) widened by the scale when downsampling, normalised windows; to float rounding."""
    a = np.random.default_rng(8).standard_normal(shape).astype(dtype)
    if mode == "lanczos" and kw.get("align_corners"):  # (refused: ValueError)
        k = dict(kw, mode=mode, antialias=True)
        assert _err(lambda: LF.interpolate(il.tensor(a), **k)) == \
            _err(lambda: TF.interpolate(torch.tensor(a), **k))
        return
    ty, ly = _compare(a, dict(kw, mode=mode, antialias=True), dtype, exact=False)
    names = sorted(n for n in dir(ty.grad_fn) if n.startswith("_saved_"))
    assert sorted(n for n in dir(ly.grad_fn) if n.startswith("_saved_")) == names
    for n in names:
        assert getattr(ly.grad_fn, n) == getattr(ty.grad_fn, n), n


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_antialias_channels_last_and_dtypes(mode):
    a = np.random.default_rng(9).standard_normal((2, 5, 8, 9)).astype("float32")
    _compare(a, dict(size=(3, 4), mode=mode, antialias=True), "float32", cl=True, exact=False)
    for dt in ("float16", "int64"):
        want = _err(lambda: TF.interpolate(torch.ones(1, 2, 8, 9, dtype=getattr(torch, dt)),
                                           size=(3, 4), mode=mode, antialias=True))
        got = _err(lambda: LF.interpolate(il.ones(1, 2, 8, 9, dtype=getattr(il, dt)),
                                          size=(3, 4), mode=mode, antialias=True))
        assert got == want


U8 = [((1, 3, 8, 9), dict(size=(3, 4))), ((1, 3, 8, 9), dict(size=(8, 5))),
      ((1, 3, 5, 6), dict(size=(9, 13))), ((2, 3, 10, 7), dict(scale_factor=0.45)),
      ((1, 3, 5, 6), dict(size=(9, 13), align_corners=True)),
      ((1, 5, 17, 9), dict(scale_factor=(0.3, 1.6)))]


@pytest.mark.parametrize("cl", [False, True])
@pytest.mark.parametrize("mode,aa", [("bilinear", False), ("bilinear", True), ("bicubic", True),
                                     ("lanczos", True)])
@pytest.mark.parametrize("shape,kw", U8)
def test_uint8_integer_kernel(shape, kw, mode, aa, cl):
    """uint8 bilinear / antialiased bicubic: ATen's int16 weights and integer sums, bit for
    bit, in both layouts."""
    if mode == "lanczos" and kw.get("align_corners"):
        return  # (refused: test_antialias)
    a = np.random.default_rng(10).integers(0, 256, shape).astype("uint8")
    t, q = torch.tensor(a), il.tensor(a)
    if cl:
        t, q = t.to(memory_format=torch.channels_last), q.to(memory_format=il.channels_last)
    p = TF.interpolate(t, mode=mode, antialias=aa, **kw)
    r = LF.interpolate(q, mode=mode, antialias=aa, **kw)
    assert str(r.dtype) == str(p.dtype) and r.stride() == p.stride()
    np.testing.assert_array_equal(r.numpy(), p.numpy())


@pytest.mark.parametrize("name,kw", [("upsample", dict(scale_factor=2, mode="bilinear")),
                                     ("upsample_nearest", dict(size=(5, 6))),
                                     ("upsample_bilinear", dict(scale_factor=1.5))])
def test_deprecated_upsample_functions(name, kw):
    a = np.random.default_rng(11).standard_normal((1, 2, 3, 4)).astype("float32")
    out = []
    for lib, F in ((torch, TF), (il, LF)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = getattr(F, name)(lib.tensor(a), **kw)
        out.append((y.numpy(), [(c.category, str(c.message)) for c in w]))
    assert out[1][1] == out[0][1]
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-6, atol=1e-6)


def test_result_strides_follow_aten_suggest_memory_format():
    """Every permutation of a sample of shapes in {1, 2, 3}^4 and ^5: the result is
    channels-last exactly where ATen's stride heuristic says so (a channels-last-contiguous
    input whose size-1 dim has a small stride gives a contiguous result)."""
    import itertools

    rng = np.random.default_rng(12)
    for nd, modes in ((4, ("nearest", "bicubic")), (5, ("nearest-exact", "trilinear"))):
        shapes = [s for s in itertools.product((1, 2, 3), repeat=nd) if rng.random() < 0.15]
        for shape in shapes:
            for perm in itertools.permutations(range(nd)):
                a = np.ones([shape[p] for p in perm], dtype="float32")
                inv = tuple(int(i) for i in np.argsort(perm))
                t, q = torch.tensor(a).permute(*inv), il.tensor(a).permute(*inv)
                mode = modes[perm.index(0) % 2]
                p = TF.interpolate(t, size=(2,) * (nd - 2), mode=mode)
                r = LF.interpolate(q, size=(2,) * (nd - 2), mode=mode)
                assert r.stride() == p.stride(), (shape, perm, t.stride())
