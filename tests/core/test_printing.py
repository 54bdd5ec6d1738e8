"""``repr`` identical to torch's for a wide set of tensors."""
from __future__ import annotations

import pytest

import inplace_lab as il

torch = pytest.importorskip("torch")

CASES = {
    "ints": lambda L: L.tensor([1, 2, 3]),
    "negative_ints": lambda L: L.tensor([-10, 2, 300]),
    "big_ints": lambda L: L.tensor([123456789012, 1]),
    "int32": lambda L: L.tensor([1, 2], dtype=L.int32),
    "uint8": lambda L: L.tensor([1, 255], dtype=L.uint8),
    "int8_2d": lambda L: L.tensor([[1, -2], [3, 4]], dtype=L.int8),
    "int_floats": lambda L: L.tensor([1.0, 2.0, 3.0]),
    "decimals": lambda L: L.tensor([1.5, 2.25, -3.125]),
    "rounding": lambda L: L.tensor([0.12345678, 1.0]),
    "sci_small": lambda L: L.tensor([1e-5, 1.0]),
    "sci_large": lambda L: L.tensor([1e9, 1.0]),
    "sci_int_range": lambda L: L.tensor([1.0, 10000.0]),
    "no_sci_range": lambda L: L.tensor([1.0, 999.0]),
    "sci_tiny": lambda L: L.tensor([1e-10, 2e-10]),
    "zeros_float": lambda L: L.zeros(3),
    "neg_zero": lambda L: L.tensor([-0.0, 1.0]),
    "nan_inf": lambda L: L.tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
    "only_nan": lambda L: L.tensor([float("nan")]),
    "float64": lambda L: L.tensor([1.0, 2.5], dtype=L.float64),
    "float16": lambda L: L.tensor([1.0, 2.5], dtype=L.float16),
    "bool": lambda L: L.tensor([True, False, True]),
    "bool_2d": lambda L: L.tensor([[True], [False]]),
    "scalar_int": lambda L: L.tensor(3),
    "scalar_float": lambda L: L.tensor(3.5),
    "scalar_float_int": lambda L: L.tensor(2.0),
    "scalar_f64": lambda L: L.tensor(1.5, dtype=L.float64),
    "scalar_bool": lambda L: L.tensor(True),
    "empty": lambda L: L.tensor([]),
    "empty_2d": lambda L: L.zeros(0, 3),
    "empty_int": lambda L: L.zeros(2, 0, dtype=L.int64),
    "empty_int32": lambda L: L.zeros(0, dtype=L.int32),
    "2d": lambda L: L.arange(6.0).reshape(2, 3),
    "2d_mixed": lambda L: L.tensor([[1.5, -2.0], [300.25, 4.0]]),
    "3d": lambda L: L.arange(24).reshape(2, 3, 4),
    "4d": lambda L: L.arange(16.0).reshape(2, 2, 2, 2) / 3,
    "wrap_line": lambda L: L.arange(30.0) / 7,
    "wrap_ints": lambda L: L.arange(40),
    "summarised_1d": lambda L: L.arange(2000.0),
    "summarised_2d": lambda L: L.arange(2000).reshape(40, 50),
    "summarised_3d": lambda L: L.arange(1200.0).reshape(10, 12, 10) / 1000,
    "exactly_1000": lambda L: L.arange(1000),
    "requires_grad": lambda L: L.tensor([1.0, 2.0], requires_grad=True),
    "grad_fn_mul": lambda L: L.tensor([1.0, 2.0], requires_grad=True) * 2,
    "grad_fn_add": lambda L: L.tensor([1.0, 2.0], requires_grad=True) + 1,
    "grad_fn_view": lambda L: L.tensor([[1.0, 2.0]], requires_grad=True)[0],
    "grad_fn_f64": lambda L: L.tensor([1.0], dtype=L.float64, requires_grad=True) * 2,
    "grad_fn_scalar": lambda L: (L.tensor([1.0, 2.0], requires_grad=True) * 2).sum(),
    "transposed": lambda L: L.arange(6.0).reshape(2, 3).t(),
    "complex": lambda L: L.tensor([1 + 2j, -0.5j]),
}


@pytest.mark.parametrize("name", CASES)
def test_repr_matches_torch(name):
    assert repr(CASES[name](il)) == repr(CASES[name](torch))


@pytest.mark.parametrize("name", ["ints", "decimals", "scalar_float", "2d", "requires_grad"])
def test_str_matches_torch(name):
    assert str(CASES[name](il)) == str(CASES[name](torch))


def test_repr_under_float64_default_names_float32():
    il.set_default_dtype(il.float64)
    torch.set_default_dtype(torch.float64)
    try:
        for make in (lambda L: L.tensor([1.5]), lambda L: L.tensor([1.5], dtype=L.float32)):
            assert repr(make(il)) == repr(make(torch))
    finally:
        torch.set_default_dtype(torch.float32)


def test_size_repr_is_torch_size():
    x = il.zeros(2, 3)
    assert repr(x.shape) == repr(torch.zeros(2, 3).shape) == "torch.Size([2, 3])"
    assert repr(il.tensor(1.0).size()) == "torch.Size([])"
    assert x.size(1) == 3 and x.size(-2) == 2 and x.shape == (2, 3)
    assert x.shape.numel() == 6 and isinstance(x.shape, tuple)


@pytest.mark.parametrize("seed", range(40))
def test_repr_of_random_tensors_matches_torch(seed):
    """Random shapes, scales, dtypes, special values: the formatter's decisions all agree."""
    import numpy as np

    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(1, 5, size=rng.integers(0, 4)))
    if seed % 10 == 9:
        shape = (int(rng.integers(300, 1500)),)
    vals = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 10)
    if seed % 3 == 0:
        vals = np.round(vals)
    if seed % 4 == 1 and vals.size > 1:
        vals.reshape(-1)[0] = [np.nan, np.inf, 0.0, -0.0][seed % 16 // 4]
    dt = ["float32", "float64", "float16", "int64", "int32", "bool"][seed % 6]
    a = vals.astype(dt) if dt != "bool" else vals > 0
    assert repr(il.tensor(a)) == repr(torch.tensor(a))
