"""``torch.testing.assert_close``: PyTorch's comparison, its default tolerances and messages.

Tolerances come from the dtypes (float32 ``rtol=1.3e-6, atol=1e-5``, float64 ``1e-7``
both, integers and bool exact), so a test of an exercise fails with exactly the text
PyTorch prints ("Tensor-likes are not close! ... Mismatched elements: 2 / 3 (66.7%)").
Tensors, Python numbers and (nested) lists/tuples/dicts of them are compared; a tensor
against a plain number or list is refused as PyTorch refuses it.
"""
from __future__ import annotations

import numpy as np

from .tensor import Tensor

_PRECISIONS = {"float16": (0.001, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
               "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def _tol(*dts):
    pairs = [_PRECISIONS.get(d.name, (0.0, 0.0)) for d in dts]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol, msg):
    if msg is not None:
        return msg
    equality = rtol == 0 and atol == 0

    def diff(kind, d, idx, tol):
        s = f"{kind.title()} difference: {d}" if idx is None else \
            f"Greatest {kind} difference: {d} at index {idx}"
        return s + ("" if equality else f" (up to {tol} allowed)") + "\n"

    out = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        out += extra.strip() + "\n"
    out += diff("absolute", abs_diff, abs_idx, atol) + diff("relative", rel_diff, rel_idx, rtol)
    return out.strip()


def _attr(name, a, b):
    raise AssertionError(f"The values for attribute '{name}' do not match: {a} != {b}.")


def _isclose(a, b, rtol, atol, equal_nan):
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        return a == b
    with np.errstate(invalid="ignore", over="ignore"):
        eq = a == b
        close = np.abs(a - b) <= atol + rtol * np.abs(b)
        out = eq | (close & np.isfinite(a) & np.isfinite(b))
    if equal_nan:
        out |= np.isnan(a) & np.isnan(b)
    return out


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg):
    if actual.shape != expected.shape:
        _attr("shape", actual.shape, expected.shape)
    if check_device and actual.device != expected.device:
        _attr("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        _attr("dtype", actual.dtype, expected.dtype)
    if rtol is None:
        rtol, atol = _tol(actual._dtype, expected._dtype)
    a, b = (np.asarray(t.detach().cpu().numpy()) for t in (actual, expected))
    if a.dtype != b.dtype:  # check_dtype=False: compare in the promoted dtype
        a = a.astype(np.result_type(a, b))
        b = b.astype(a.dtype)
    matches = _isclose(a, b, rtol, atol, equal_nan)
    if matches.all():
        return
    if a.ndim == 0:
        _compare_numbers(a.item(), b.item(), rtol, atol, equal_nan, msg)
    n = matches.size
    bad = n - int(matches.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    af, bf, mf = a.reshape(-1), b.reshape(-1), matches.reshape(-1)
    if a.dtype.kind in "biu":
        af, bf = af.astype(np.int64), bf.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(af - bf)
        abs_diff[mf] = 0
        rel_diff = abs_diff / np.abs(bf) if a.dtype.kind not in "biu" else \
            (abs_diff.astype(np.float32) / np.abs(bf).astype(np.float32))
    rel_diff[mf] = 0
    ia, ir = _argmax(abs_diff), _argmax(rel_diff)
    unravel = lambda i: tuple(int(k) for k in np.unravel_index(i, a.shape))
    raise AssertionError(_mismatch("Tensor-likes", extra, abs_diff[ia].item(), unravel(ia), atol,
                                   rel_diff[ir].item(), unravel(ir), rtol, msg))


def _argmax(x):
    nan = np.flatnonzero(np.isnan(x)) if x.dtype.kind in "fc" else ()
    return int(nan[0]) if len(nan) else int(np.argmax(x))


def _compare_numbers(actual, expected, rtol, atol, equal_nan, msg):
    if rtol is None:
        kind = complex if isinstance(actual, complex) or isinstance(expected, complex) else \
            float if isinstance(actual, float) or isinstance(expected, float) else int
        rtol, atol = (0.0, 0.0) if kind is int else (1e-7, 1e-7)
    a, b = complex(actual), complex(expected)
    if a == b or (equal_nan and np.isnan(a) and np.isnan(b)):
        return
    if abs(a - b) <= atol + rtol * abs(b) and np.isfinite(a) and np.isfinite(b):
        return
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    raise AssertionError(_mismatch("Scalars", f"Expected {expected} but got {actual}.", abs_diff,
                                   None, atol, rel_diff, None, rtol, msg))


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise ``AssertionError`` with PyTorch's message unless ``actual`` is close to ``expected``."""
    if (rtol is None) ^ (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg)


def _number(x):
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, Tensor)


def _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, path=()):
    try:
        return _compare_one(actual, expected, rtol, atol, equal_nan, check_device, check_dtype,
                            msg, path)
    except AssertionError as e:
        if not path or msg is not None or getattr(e, "_placed", False):
            raise
        err = AssertionError(f"{e}\n\nThe failure occurred for item "
                             + "".join(f"[{p!r}]" for p in path))
        err._placed = True
        raise err from None


def _compare_one(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, path):
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        return _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device,
                                check_dtype, msg)
    if _number(actual) and _number(expected):
        if check_dtype and type(actual) is not type(expected):
            raise AssertionError(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        return _compare_numbers(actual, expected, rtol, atol, equal_nan, msg)
    seq = (list, tuple)
    if isinstance(actual, seq) and isinstance(expected, seq):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != "
                                 f"{len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_device, check_dtype, msg, path + (i,))
        return None
    if isinstance(actual, dict) and isinstance(expected, dict):
        for k in actual:
            _compare(actual[k], expected[k], rtol, atol, equal_nan, check_device, check_dtype,
                     msg, path + (k,))
        return None
    raise TypeError(f"No comparison pair was able to handle inputs of type {_tname(actual)} and "
                    f"{_tname(expected)}.")


def _tname(x):
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else str(type(x))


