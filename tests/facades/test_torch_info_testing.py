"""torch.finfo/iinfo, is_tensor/is_floating_point and testing.assert_close against torch 2.13."""
import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as it

FLOATS = ["float16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo(name):
    a, b = it.finfo(getattr(it, name)), torch.finfo(getattr(torch, name))
    assert repr(a) == repr(b)
    for k in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(a, k) == getattr(b, k), k
    assert repr(it.finfo()) == repr(torch.finfo())


@pytest.mark.parametrize("name", INTS)
def test_iinfo(name):
    a, b = it.iinfo(getattr(it, name)), torch.iinfo(getattr(torch, name))
    assert repr(a) == repr(b)
    assert (a.bits, a.min, a.max, a.dtype) == (b.bits, b.min, b.max, b.dtype)


def _err(fn):
    with pytest.raises(Exception) as e:
        fn()
    return type(e.value), str(e.value)


@pytest.mark.parametrize("call", ["finfo(int32)", "finfo(bool)", "iinfo(float32)", "iinfo(bool)",
                                  "is_floating_point(1.0)"])
def test_errors(call):
    assert _err(lambda: eval(call, vars(it))) == _err(lambda: eval(call, vars(torch)))


def test_predicates():
    for T in (it, torch):
        assert T.is_tensor(T.ones(1)) and not T.is_tensor(1.0) and not T.is_tensor([1])
        assert T.is_floating_point(T.ones(1)) and not T.is_floating_point(T.tensor([1]))


CASES = [
    ("[1., 2., 3.]", "[1., 2.5, 3.1]", {}),
    ("[1., 2.]", "[1., 2.]", {"dtype_b": "float64"}),
    ("[1., 2.]", "[1., 2., 3.]", {}),
    ("[1, 2]", "[1, 3]", {}),
    ("[float('nan')]", "[float('nan')]", {}),
    ("[float('nan'), 1.]", "[float('nan'), 1.]", {"equal_nan": True}),
    ("1.", "1.5", {}),
    ("[[1., 2.], [3., 4.]]", "[[1., 2.], [3., 5.]]", {}),
    ("[1., 2.]", "[1., 2.]", {"dtype_b": "float64", "check_dtype": False}),
    ("[1., 2.]", "[1., 2.0000001]", {}),
    ("[1., 2.]", "[1., 2.1]", {"rtol": 0.1}),
    ("[1., 2.]", "[1., 2.1]", {"msg": "custom"}),
    ("[1e-9, 2.]", "[0., 2.]", {"dtype": "float64"}),
    ("[1., 2.]", "[1., 2.2]", {"rtol": 0.1, "atol": 0.0}),
]


@pytest.mark.parametrize("a,b,kw", CASES)
def test_assert_close_matches_torch(a, b, kw):
    def run(T):
        kw2 = dict(kw)
        da = getattr(T, kw2.pop("dtype", "float32")) if "." in a + b else None
        db = getattr(T, kw2.pop("dtype_b")) if "dtype_b" in kw2 else da
        kw2.pop("dtype", None)
        x = T.tensor(eval(a), dtype=da)
        y = T.tensor(eval(b), dtype=db)
        try:
            T.testing.assert_close(x, y, **kw2)
            return None
        except Exception as e:  # noqa: BLE001 (the type is part of what is compared)
            return type(e), str(e)
    assert run(it) == run(torch)


@pytest.mark.parametrize("a,b", [(1.0, 1.0 + 1e-9), (1.0, 1.1), (1, 2), ([1.0, 2.0], [1.0, 2.5]),
                                 ((1, 2), (1, 2, 3)), (1, 1.0)])
def test_assert_close_python_values(a, b):
    def run(T):
        try:
            T.testing.assert_close(a, b)
            return None
        except Exception as e:  # noqa: BLE001
            return type(e), str(e)
    assert run(it) == run(torch)


def test_tensor_against_list_refused():
    def run(T):
        return _err(lambda: T.testing.assert_close(T.ones(2), [1.0, 1.0]))
    ours, theirs = run(it), run(torch)
    assert ours == theirs
