"""paddle.nn.functional temporal_shift and affine_grid against real Paddle."""
from __future__ import annotations

import numpy as np
import pytest

from ._functional_harness import check, rand, same


@pytest.mark.parametrize("seg,ratio,fmt", [(2, 0.25, "NCHW"), (4, 0.3, "NCHW"),
                                           (2, 0.125, "NHWC")])
def test_temporal_shift_matches_paddle(seg, ratio, fmt):
    check(lambda F, x: F.temporal_shift(x, seg, ratio, data_format=fmt), rand(8, 8, 3, 2))


@pytest.mark.parametrize("shape,align", [([2, 1, 3, 4], True), ([2, 3, 4, 5], False),
                                         ([2, 1, 1, 3], False)])
# (a size-1 dim with align_corners=True gives NaN in Paddle 3.3.1, 0 / 0; here -1 as torch)
def test_affine_grid_2d_matches_paddle(shape, align):
    check(lambda F, t: F.affine_grid(t, shape, align_corners=align), rand(2, 2, 3))


@pytest.mark.parametrize("align", [True, False])
def test_affine_grid_3d_matches_paddle(align):
    check(lambda F, t: F.affine_grid(t, [2, 1, 2, 3, 4], align_corners=align), rand(2, 3, 4))


@pytest.mark.parametrize("call", [
    lambda F, x: F.temporal_shift(x, 3), lambda F, x: F.temporal_shift(x, 2, data_format="NCL"),
    lambda F, x: F.affine_grid(np.zeros((1, 2, 3)), [1, 1, 2, 2]),
])
def test_misc_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(rand(8, 8, 3, 2))))
