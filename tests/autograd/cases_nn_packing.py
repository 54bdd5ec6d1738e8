"""Gradcheck cases for the ops of torch.nn.utils: ``_pack_padded_sequence`` and
``_weight_norm_interface`` (read by test_gradcheck_all.py)."""
from __future__ import annotations

SKIP: dict = {}


def cases(C, R, idx):
    """name -> builder(r) -> case, as test_gradcheck_all.CASES."""
    return {
        "_pack_padded_sequence": lambda r: C([r(4, 3, 2)], {"batch_sizes": (3, 2, 2, 1),
                                                            "batch_first": False}),
        "_weight_norm_interface": lambda r: C([r(3, 2, 2, lo=-1, hi=1), r(1, 1, 2)], {"dim": 2}),
    }
