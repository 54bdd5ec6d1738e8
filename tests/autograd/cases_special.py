"""Gradcheck cases for the ops of ops/special_fns.py (read by test_gradcheck_all.py)."""
from __future__ import annotations

SKIP: dict = {}


def cases(C, R, idx):
    """name -> builder(r) -> case, as test_gradcheck_all.CASES."""
    return {
        "special_entr": lambda r: C([r(2, 3, lo=0.1, hi=2.0)]),
        "special_erfcx": lambda r: C([r(2, 3, lo=-2.0, hi=3.0)]),
        "special_ndtri": lambda r: C([r(2, 3, lo=0.05, hi=0.95)]),
        "special_log_ndtr": lambda r: C([r(2, 3, lo=-4.0, hi=3.0)]),
        "special_i0e": lambda r: C([r(2, 3, lo=-3.0, hi=3.0)]),
        "special_i1e": lambda r: C([r(2, 3, lo=-3.0, hi=3.0)]),
        # x and log1p(y): both differentiable; y > -1
        "special_xlog1py": lambda r: C([r(2, 3, lo=-1.0, hi=2.0), r(3, lo=-0.5, hi=2.0)]),
        # torch: "the derivative for 'zeta' is not implemented": only `other` (q) is checked
        "special_zeta": lambda r: C([r(2, 3, lo=1.5, hi=4.0, grad=False), r(3, lo=0.5, hi=3.0)]),
    }
