"""``x ** e`` for a number ``e`` rounds as ATen's pow kernel does, not as a correctly rounded
pow: 0.5, -0.5 and -1 are sqrt, 1/sqrt and 1/x, and 2, 3 and -2 are x*x, x*x*x and
1/(x*x) (PowKernel.cpp). So ``x ** 3`` and ``x ** -2`` agree with torch 2.13 bit for bit
(numpy's power differs in the last bit for about a third of the values), ``(-0.0) ** -0.5``
is -inf, and the gradients those exponents make (``x ** 3``'s is 3 * x.pow(2), ``x ** 0.5``'s
0.5 * x.pow(-0.5)) are torch's too. Paddle's facade keeps pow itself: there
``(-0.0) ** -0.5`` is +inf, as in Paddle.

(0.5 itself is torch's sqrt, which an MKL build computes with MKL's vectorised sqrt: that
one is not bit-exact here, only its -0.0 and its sign are checked.)"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab.paddle as ilp
import inplace_lab.torch as il

torch = pytest.importorskip("torch")

EXACT = (-0.5, -1, -1.0, 2, 2.0, 3, 3.0, -2, -2.0, 0, 1, 0.0, 1.0)


def _values(dt, n=4099, seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 3).astype(dt)
    a[:8] = [-0.0, 0.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, -2.5]
    return a


def _same_bits(got, ref):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    same = (got == ref) & (np.signbit(got) == np.signbit(ref)) | np.isnan(got) & np.isnan(ref)
    assert same.all(), (np.nonzero(~same)[0][:5], got[~same][:5], ref[~same][:5])


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("e", EXACT)
def test_number_exponent_bit_for_bit(dt, e):
    a = _values(dt)
    _same_bits(il.from_numpy(a.copy()).pow(e).numpy(), torch.from_numpy(a.copy()).pow(e).numpy())
    x, t = il.from_numpy(a.copy()), torch.from_numpy(a.copy())
    x.pow_(e)  # (in place: the kernel reads x while it writes it)
    t.pow_(e)
    _same_bits(x.numpy(), t.numpy())
    assert x._version == t._version == 1


def test_signed_zero_and_the_operator_forms():
    z = np.array([-0.0, 0.0], np.float32)
    for e in (0.5, -0.5, -1, -2, 3):
        _same_bits((il.from_numpy(z.copy()) ** e).numpy(), (torch.from_numpy(z.copy()) ** e).numpy())
    assert (il.tensor([-0.0]) ** -0.5).item() == -np.inf == (torch.tensor([-0.0]) ** -0.5).item()
    a = _values(np.float32, 257)
    _same_bits(il.square(il.from_numpy(a)).numpy(), torch.square(torch.from_numpy(a)).numpy())


@pytest.mark.parametrize("e", [-0.5, -1.0, 3.0, -2.0])
def test_integer_base_casts_first(e):
    a = np.arange(-4, 9)
    got, ref = il.from_numpy(a).pow(e), torch.from_numpy(a).pow(e)
    assert str(got.dtype) == str(ref.dtype) == "torch.float32"
    _same_bits(got.numpy(), ref.numpy())


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("e", [0.5, 2.0, 3.0, -1.0])
def test_gradients_of_the_special_exponents(dt, e):
    """x ** e's gradient is g * (e * x.pow(e - 1)): e - 1 is -0.5, 1, 2 or -2 here."""
    a = np.abs(_values(dt, 1031, seed=3)[8:]) + dt(0.25)
    x = il.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    (x ** e).sum().backward()
    (t ** e).sum().backward()
    _same_bits(x.grad.numpy(), t.grad.numpy())


def test_paddle_keeps_pow():
    """Paddle's pow kernel has no sqrt or x*x*x special case: (-0.0) ** -0.5 is +inf there."""
    z = ilp.to_tensor(np.array([-0.0, 0.0, 4.0], np.float32))
    got = (z ** -0.5).numpy()
    assert np.isposinf(got[0]) and np.isposinf(got[1]) and got[2] == 0.5
    a = _values(np.float64, 513)
    np.testing.assert_array_equal(ilp.pow(ilp.to_tensor(a), 3.0).numpy(), np.power(a, 3.0))
