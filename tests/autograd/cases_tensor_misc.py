"""Gradcheck cases for the ops of one part of the table (read by test_gradcheck_all.py).

ops/tensor_misc.py registers one differentiable op, ``_fill_out`` (``torch.fill``): its
input's gradient is zero, a 0-dim tensor value's is the sum (FillBackward1, checked by
``fn`` through ``torch.fill``). The unsafe splits and ``*_copy`` ops reuse the view ops'
backward formulas under other node names (checked in tests/facades/test_torch_misc.py).
"""
from __future__ import annotations

SKIP: dict = {}


def cases(C, R, idx):
    """name -> builder(r) -> case, as test_gradcheck_all.CASES."""
    return {
        "_fill_out": lambda r: C([r(2, 3), 0.5]),
    }
