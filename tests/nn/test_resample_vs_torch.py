"""F.interpolate / nn.Upsample / F.pixel_shuffle / pixel_unshuffle against torch 2.13:
values and input gradients for every mode, size/scale_factor form and align_corners."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402

RNG = np.random.default_rng(0)

CASES = [  # (input shape, kwargs)
    ((2, 3, 5), dict(scale_factor=2, mode="nearest")),
    ((2, 3, 5), dict(size=7, mode="nearest")),
    ((2, 3, 5), dict(size=3, mode="nearest-exact")),
    ((2, 3, 5), dict(scale_factor=1.7, mode="linear")),
    ((2, 3, 5), dict(size=8, mode="linear", align_corners=True)),
    ((2, 3, 5), dict(size=1, mode="linear", align_corners=True)),
    ((2, 3, 5), dict(size=2, mode="linear", align_corners=False)),
    ((1, 2, 4, 5), dict(scale_factor=2, mode="nearest")),
    ((1, 2, 4, 5), dict(size=(3, 7), mode="nearest")),
    ((1, 2, 4, 5), dict(scale_factor=(1.5, 0.6), mode="nearest")),
    ((1, 2, 4, 5), dict(scale_factor=2, mode="bilinear")),
    ((1, 2, 4, 5), dict(scale_factor=2.3, mode="bilinear", recompute_scale_factor=True)),
    ((1, 2, 4, 5), dict(size=(7, 3), mode="bilinear", align_corners=True)),
    ((1, 2, 4, 5), dict(size=(2, 9), mode="bilinear", align_corners=False)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kw", CASES)
def test_interpolate(shape, kw, dtype):
    a = RNG.standard_normal(shape).astype(dtype)
    t, x = torch.tensor(a, requires_grad=True), il.tensor(a, requires_grad=True)
    p = torch.nn.functional.interpolate(t, **kw)
    q = il.nn.functional.interpolate(x, **kw)
    assert tuple(q.shape) == tuple(p.shape) and str(q.dtype) == str(p.dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), rtol=tol, atol=tol)
    g = RNG.standard_normal(tuple(p.shape)).astype(dtype)
    p.backward(torch.tensor(g))
    q.backward(il.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


def test_upsample_module():
    a = RNG.standard_normal((1, 1, 3, 3)).astype(np.float32)
    for kw in (dict(scale_factor=2, mode="bilinear"), dict(size=(3, 4)),
               dict(scale_factor=(2, 3), mode="nearest"), dict(size=5, mode="bilinear",
                                                               align_corners=True)):
        m, n = torch.nn.Upsample(**kw), il.nn.Upsample(**kw)
        assert repr(n) == repr(m)
        np.testing.assert_allclose(n(il.tensor(a)).numpy(), m(torch.tensor(a)).numpy(),
                                   rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", range(9))
def test_interpolate_errors(case):
    def run(m):
        F = m.nn.functional
        x = m.ones(1, 3, 4, 4)
        return [lambda: F.interpolate(x, size=(2, 2), scale_factor=2),
                lambda: F.interpolate(x),
                lambda: F.interpolate(x, scale_factor=2, mode="nearest", align_corners=True),
                lambda: F.interpolate(m.ones(1, 2, 3), scale_factor=2, mode="bilinear"),
                lambda: F.interpolate(x, scale_factor=2, mode="linear"),
                lambda: F.interpolate(x, scale_factor=2, mode="foo"),
                lambda: F.interpolate(x, size=(2, 2, 2)),
                lambda: F.interpolate(x, scale_factor=(2, 2, 2)),
                lambda: F.interpolate(m.ones(2, 3), scale_factor=2)][case]()

    with pytest.raises(Exception) as te:
        run(torch)
    with pytest.raises(type(te.value)) as xe:
        run(il)
    assert str(xe.value) == str(te.value)


@pytest.mark.parametrize("shape,r", [((1, 8, 2, 3), 2), ((2, 2, 9, 1, 2), 3), ((18, 2, 2), 3)])
def test_pixel_shuffle_roundtrip(shape, r):
    a = RNG.standard_normal(shape).astype(np.float32)
    t, x = torch.tensor(a, requires_grad=True), il.tensor(a, requires_grad=True)
    p, q = torch.nn.functional.pixel_shuffle(t, r), il.nn.functional.pixel_shuffle(x, r)
    np.testing.assert_array_equal(q.detach().numpy(), p.detach().numpy())
    pu, qu = torch.nn.PixelUnshuffle(r)(p), il.nn.PixelUnshuffle(r)(q)
    np.testing.assert_array_equal(qu.detach().numpy(), pu.detach().numpy())
    np.testing.assert_array_equal(qu.detach().numpy(), a)
    w = RNG.standard_normal(tuple(p.shape)).astype(np.float32)
    (p * torch.tensor(w)).sum().backward()
    (q * il.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    assert repr(il.nn.PixelShuffle(r)) == repr(torch.nn.PixelShuffle(r))


@pytest.mark.parametrize("case", range(3))
def test_pixel_shuffle_errors(case):
    def run(m):
        F = m.nn.functional
        return [lambda: F.pixel_shuffle(m.ones(3, 4), 2),
                lambda: F.pixel_shuffle(m.ones(1, 3, 4, 4), 2),
                lambda: F.pixel_unshuffle(m.ones(1, 1, 3, 4), 2)][case]()

    with pytest.raises(Exception) as te:
        run(torch)
    with pytest.raises(type(te.value)) as xe:
        run(il)
    assert str(xe.value) == str(te.value)
