"""Gradcheck cases for ``_pack_padded_sequence`` (read by test_gradcheck_all.py)."""
from __future__ import annotations

SKIP: dict = {}


def cases(C, R, idx):
    """name -> builder(r) -> case, as test_gradcheck_all.CASES."""
    return {
        "_pack_padded_sequence": lambda r: C([r(4, 3, 2)], {"batch_sizes": (3, 2, 2, 1),
                                                            "batch_first": False}),
    }
