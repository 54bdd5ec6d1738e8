"""``out=`` that fails leaves ``out`` as it was, and warns or raises as torch 2.13 does.

PyTorch judges an ``out=`` argument's overlap with the inputs on ``out`` as given, before it
resizes it: ``add(x, 1, out=x[3])`` raises with ``x[3]`` still 0-dim, and no resize warning.
"""
from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
ilt = pytest.importorskip("inplace_lab.torch")

PROGRAMS = [
    "x = T.tensor([-0.72, 0.34, 1.24, -0.57])\no = x.unbind(0)[3]\nT.add(x, 1, out=o)",
    "x = T.tensor([-0.72, 0.34, 1.24, -0.57])\no = x[3]\nT.mul(x, x, out=o)",
    "x = T.arange(6.).reshape(2, 3)\no = x[0]\nT.exp(x, out=o)",
    "x = T.arange(6.).reshape(2, 3)\no = T.zeros(2)\nT.add(x, 1, out=o)",  # a resize: warns
    "x = T.arange(6.).reshape(2, 3)\no = x[:0]\nT.add(x, 1, out=o)",  # empty: no warning
]


def _run(T, src):
    ns = {"T": T}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            exec(src, ns)  # noqa: S102
            err = None
        except RuntimeError as e:
            err = str(e)
    o, x = ns["o"], ns["x"]
    return (err, [str(m.message)[:60] for m in w if m.category is UserWarning],
            tuple(o.shape), o.stride(), o._version, x.tolist(), x._version)


@pytest.mark.parametrize("src", PROGRAMS)
def test_out_matches_torch_and_a_failure_touches_nothing(src):
    assert _run(ilt, src) == _run(torch, src)
