"""PyTorch's conversion of Python numbers, compared with torch 2.13 on the same programs.

- A number written into a tensor (fill_, full, masked_fill, index_fill, x[i] = v) must fit the
  tensor's dtype (c10's checked_convert; negative ints wrap into unsigned types).
- Any Python int given as a Scalar must fit int64 or uint64, else OverflowError, for
  arithmetic too (x * 2**64), through the fast lanes and the full dispatcher path alike.
The target is untouched when the conversion fails.

Not pinned: an int in [2**63, 2**64) times an integer tensor (torch wraps it as uint64 into
int64; numpy refuses it here).
"""
import numpy as np
import pytest

import inplace_lab.torch as itorch

torch = pytest.importorskip("torch")

VALUES = [300, -1, -255, -256, -300, 2.5, -0.5, 1e300, float("inf"), float("nan"), 2 ** 63,
          2 ** 64 - 1, 2 ** 64, -2 ** 63, -2 ** 63 - 1, True, 1 + 0j, 1 + 2j]
DTYPES = ["uint8", "int8", "int32", "int64", "float16", "float32", "float64", "bool"]


def _writes(lib, v, dt):
    d = getattr(lib, dt)
    x = lambda: lib.zeros(3, dtype=d)  # noqa: E731
    m = lib.tensor([True, False, True])
    return {
        "fill_": lambda: x().fill_(v),
        "full": lambda: lib.full((3,), v, dtype=d),
        "masked_fill": lambda: x().masked_fill(m, v),
        "masked_fill_": lambda: x().masked_fill_(m, v),
        "index_fill": lambda: x().index_fill(0, lib.tensor([0, 2]), v),
        "setitem": lambda: (lambda t: (t.__setitem__(1, v), t)[1])(x()),
        "setitem_slice": lambda: (lambda t: (t.__setitem__(slice(0, 2), v), t)[1])(x()),
    }


def _run(f):
    try:
        with np.errstate(all="ignore"):
            r = f()
        return ("ok", r.tolist(), str(r.dtype).split(".")[-1])
    except Exception as e:
        return (type(e).__name__, str(e).split("\n")[0])


def _same(a, b) -> bool:
    if a[0] == "ok" and b[0] == "ok":
        return a[2] == b[2] and np.array_equal(np.array(a[1], dtype=complex),
                                               np.array(b[1], dtype=complex), equal_nan=True)
    return a == b


@pytest.mark.parametrize("dt", DTYPES)
def test_writing_a_number_converts_it_as_torch(dt):
    bad = []
    for v in VALUES:
        ours, theirs = _writes(itorch, v, dt), _writes(torch, v, dt)
        for name in ours:
            a, b = _run(ours[name]), _run(theirs[name])
            if not _same(a, b):
                bad.append((v, name, a, b))
    assert not bad, "\n".join(map(str, bad))


@pytest.mark.parametrize("v", [2 ** 63, 2 ** 64 - 1, 2 ** 64, 2 ** 70, -2 ** 63, -2 ** 63 - 1,
                               -2 ** 64, 10 ** 30])
def test_python_int_scalars_must_fit_int64_or_uint64(v):
    progs = {
        "mul": lambda lib: lib.ones(2) * v, "radd": lambda lib: v + lib.ones(2),
        "sub64": lambda lib: lib.ones(2, dtype=lib.float64) - v,
        "add_": lambda lib: lib.ones(2).add_(v), "iadd": lambda lib: (lambda t: t.__iadd__(v))(lib.ones(2)),
        "alpha": lambda lib: lib.add(lib.ones(2), lib.ones(2), alpha=v),
        "pow": lambda lib: lib.ones(2) ** v, "clamp": lambda lib: lib.ones(2).clamp(max=v),
        "div": lambda lib: lib.ones(2) / v,
    }
    for name, prog in progs.items():
        a, b = _run(lambda: prog(itorch)), _run(lambda: prog(torch))
        if a[0] == "ok" and b[0] == "ok":
            continue  # values of such extreme arithmetic are not what this test pins
        assert a[:2] == b[:2], (name, a, b)


def test_a_refused_number_leaves_the_target_as_it_was():
    x = itorch.arange(3, dtype=itorch.uint8)
    for f in (lambda: x.fill_(300), lambda: x.masked_fill_(itorch.tensor([True] * 3), -300),
              lambda: x.add_(2 ** 64), lambda: x.__setitem__(0, 1e300)):
        with pytest.raises((RuntimeError, OverflowError)):
            f()
    assert x.tolist() == [0, 1, 2] and x._version == 0
