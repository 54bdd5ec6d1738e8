"""Gradcheck cases for the ops of one part of the table (read by test_gradcheck_all.py).

Paddle-only kernels of inplace_lab/ops/paddle_ops.py (gather_nd, scatter_nd_add,
index_sample, stanh, i0e, i1e, strided_slice, crop, add_n, multiplex)."""
from __future__ import annotations

import inplace_lab as il

SKIP: dict = {}


def cases(C, R, idx):
    """name -> builder(r) -> case, as test_gradcheck_all.CASES."""
    nd = il.tensor([[0, 1], [2, 3], [0, 1]])
    slc = {"axes": (0, 1), "starts": (2, 3), "ends": (0, 0), "strides": (-1, -2)}
    return {
        "gather_nd": lambda r: C([r(3, 4), nd]),
        "scatter_nd_add": lambda r: C([r(3, 4), nd, r(3)]),
        "index_sample": lambda r: C([r(3, 4), il.tensor([[0, 3], [1, 1], [2, 0]])]),
        "stanh": lambda r: C([r(3, 4, lo=-2, hi=2)], {"scale_a": 0.5, "scale_b": 2.0}),
        "i0e": lambda r: C([r(3, 4, lo=-2, hi=2)]),
        "i1e": lambda r: C([r(3, 4, lo=0.1, hi=2)]),
        "strided_slice": lambda r: C([r(3, 4)], slc),
        "crop": lambda r: C([r(3, 4)], {"axes": (0, 1), "starts": (1, 1), "ends": (3, 3),
                                        "strides": (1, 1)}),
        "add_n": lambda r: C([r(3, 2, 4)]),
        "multiplex": lambda r: C([r(2, 3, 4), il.tensor([[1], [0], [1]], dtype=il.int32)]),
    }
