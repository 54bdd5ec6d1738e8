"""Gradcheck cases for the ops of one part of the table (read by test_gradcheck_all.py)."""
from __future__ import annotations

from inplace_lab.ops import dispatch
from inplace_lab.ops.table import OPS

SKIP: dict = {}


def _first(name, kw):
    return lambda *a: dispatch.call(OPS[name], a, kw)[0]


def cases(C, R, idx):
    """name -> builder(r) -> case, as test_gradcheck_all.CASES."""
    eb = {"mode": 0, "padding_idx": 4}
    return {
        "_embedding_bag": lambda r: C(
            [r(6, 3), idx(1, 2, 4, 5, 4, 3, 2), idx(0, 3, 3), r(7)], eb,
            fn=lambda w, i, o, p: _first("_embedding_bag", eb)(w, i, o, p)),
        "affine_grid_generator": lambda r: C([r(2, 2, 3)], {"size": (2, 1, 3, 4),
                                                           "align_corners": False}),
        "grid_sampler_2d": lambda r: C([r(1, 2, 3, 4), r(1, 2, 3, 2, lo=-0.8, hi=0.8)],
                                       {"interpolation_mode": 2, "padding_mode": 1,
                                        "align_corners": False}),
        "_fractional_max_pool2d": lambda r: C(
            [r(1, 2, 5, 6), r(1, 2, 2, lo=0.0, hi=1.0, grad=False)],
            fn=lambda x, u: _first("_fractional_max_pool2d",
                                   {"kernel_size": 2, "output_size": (3, 4)})(x, u)),
        "_fractional_max_pool3d": lambda r: C(
            [r(1, 1, 4, 5, 4), r(1, 1, 3, lo=0.0, hi=1.0, grad=False)],
            fn=lambda x, u: _first("_fractional_max_pool3d",
                                   {"kernel_size": 2, "output_size": (2, 3, 2)})(x, u)),
        "conv_tbc": lambda r: C([r(4, 2, 3), r(2, 3, 2), r(2)], {"pad": 1}),
        "grid_sampler_3d": lambda r: C([r(1, 2, 3, 3, 4), r(1, 2, 2, 1, 3, lo=-0.8, hi=0.8)],
                                       {"interpolation_mode": 0, "padding_mode": 2,
                                        "align_corners": True}),
    }
