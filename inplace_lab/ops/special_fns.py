"""The ops behind ``torch.special`` that the rest of the table does not have (Bessel and
gamma-family functions, the orthogonal polynomials, ndtr/ndtri/log_ndtr, erfcx, entr,
xlog1py, zeta...), registered in the op table like every other op."""
from __future__ import annotations
