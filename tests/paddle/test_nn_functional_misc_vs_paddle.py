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


@pytest.mark.parametrize("kw", [{}, {"align_corners": False}, {"mode": "nearest"},
                                {"padding_mode": "border"},
                                {"padding_mode": "border", "align_corners": False},
                                {"mode": "nearest", "align_corners": False}])
def test_grid_sample_matches_paddle(kw):
    g = np.random.RandomState(3).uniform(-1.3, 1.3, (2, 3, 5, 2)).astype("float32")
    check(lambda F, x, g: F.grid_sample(x, g, **kw), rand(2, 3, 4, 6), g, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("call", [
    lambda F, x, g: F.grid_sample(x, g, mode="bicubic"),
    lambda F, x, g: F.grid_sample(x, g, padding_mode="wrap"),
    lambda F, x, g: F.grid_sample(x, g, align_corners=1),
])
def test_grid_sample_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(rand(1, 1, 3, 3)),
                         pd.to_tensor(rand(1, 2, 2, 2))))


IDS = [[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]]
PARENTS = [[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]]


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_gather_tree_matches_paddle(dtype):
    same(lambda pd: pd.nn.functional.gather_tree(pd.to_tensor(IDS, dtype=dtype),
                                                 pd.to_tensor(PARENTS, dtype=dtype)))


@pytest.mark.parametrize("call", [
    lambda F, i, p: F.gather_tree(i[0], p[0]), lambda F, i, p: F.gather_tree(i, p[:2]),
    lambda F, i, p: F.gather_tree(i.astype("float32"), p),
])
def test_gather_tree_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(IDS), pd.to_tensor(PARENTS)))


def test_sdp_kernel_is_a_context_manager():
    from ._functional_harness import ilp

    q = ilp.to_tensor(rand(1, 2, 1, 3))
    with ilp.nn.functional.sdp_kernel(enable_math=True):
        out = ilp.nn.functional.scaled_dot_product_attention(q, q, q)
    assert list(out.shape) == [1, 2, 1, 3]
