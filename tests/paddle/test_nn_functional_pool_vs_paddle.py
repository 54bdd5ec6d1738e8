"""paddle.nn.functional pooling against real Paddle: 1-D to 3-D max/avg/lp pools (padding
forms, ceil_mode, exclusive, divisor_override, layouts, masks), adaptive pools, max_unpool
and Paddle's error messages."""
from __future__ import annotations

import pytest

from ._functional_harness import check, rand, same

X1, X2, X3 = rand(2, 3, 9), rand(2, 3, 7, 6), rand(1, 2, 5, 6, 4)


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool2d(x, 2), lambda F, x: F.max_pool2d(x, 3, 2, 1),
    lambda F, x: F.max_pool2d(x, [3, 2], [2, 1], [1, 0], ceil_mode=True),
    lambda F, x: F.max_pool2d(x, 3, 2, "SAME"), lambda F, x: F.max_pool2d(x, 3, 2, "VALID"),
    lambda F, x: F.max_pool2d(x, 2, 1, [1, 0, 0, 1]),
    lambda F, x: F.max_pool2d(x.transpose([0, 2, 3, 1]), 2, data_format="NHWC"),
    lambda F, x: F.avg_pool2d(x, 2), lambda F, x: F.avg_pool2d(x, 3, 2, 1),
    lambda F, x: F.avg_pool2d(x, 3, 2, 1, exclusive=False),
    lambda F, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
    lambda F, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, exclusive=False),
    lambda F, x: F.avg_pool2d(x, 3, 2, "SAME"), lambda F, x: F.avg_pool2d(x, 2, divisor_override=3),
    lambda F, x: F.avg_pool2d(x, 3, 1, 1, divisor_override=2),
    lambda F, x: F.avg_pool2d(x.transpose([0, 2, 3, 1]), 2, 1, [[0, 0], [1, 0], [0, 1], [0, 0]],
                              data_format="NHWC"),
    lambda F, x: F.lp_pool2d(x.abs() + 0.1, 2, 2), lambda F, x: F.lp_pool2d(x.abs(), 3, 3, 2, 1),
    lambda F, x: F.adaptive_avg_pool2d(x, [3, 4]), lambda F, x: F.adaptive_avg_pool2d(x, [None, 4]),
    lambda F, x: F.adaptive_avg_pool2d(x.transpose([0, 2, 3, 1]), 3, data_format="NHWC"),
    lambda F, x: F.adaptive_max_pool2d(x, [3, 4]),
])
def test_pool2d_matches_paddle(call):
    check(call, X2)


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool1d(x, 2), lambda F, x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True),
    lambda F, x: F.avg_pool1d(x, 3, 2, 1), lambda F, x: F.avg_pool1d(x, 3, 2, 1, exclusive=False),
    lambda F, x: F.avg_pool1d(x, 4, 3, "SAME"), lambda F, x: F.lp_pool1d(x.abs(), 2, 3, 2),
    lambda F, x: F.lp_pool1d(x.abs().transpose([0, 2, 1]), 1, 2, data_format="NLC"),
    lambda F, x: F.adaptive_avg_pool1d(x, 4), lambda F, x: F.adaptive_max_pool1d(x, 4),
])
def test_pool1d_matches_paddle(call):
    check(call, X1)


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool3d(x, 2), lambda F, x: F.max_pool3d(x, 3, 2, 1, ceil_mode=True),
    lambda F, x: F.max_pool3d(x, [2, 3, 2], 1, [1, 0, 0, 1, 1, 0]),
    lambda F, x: F.avg_pool3d(x, 2, 1, 1), lambda F, x: F.avg_pool3d(x, 2, 1, 1, exclusive=False),
    lambda F, x: F.avg_pool3d(x, 3, 2, "SAME", divisor_override=5),
    lambda F, x: F.max_pool3d(x.transpose([0, 2, 3, 4, 1]), 2, data_format="NDHWC"),
    lambda F, x: F.adaptive_avg_pool3d(x, [2, 3, 3]), lambda F, x: F.adaptive_max_pool3d(x, 2),
    lambda F, x: F.adaptive_avg_pool3d(x.transpose([0, 2, 3, 4, 1]), 2, data_format="NDHWC"),
])
def test_pool3d_matches_paddle(call):
    check(call, X3)


@pytest.mark.parametrize("call,x", [
    (lambda F, x: list(F.max_pool1d(x, 3, 2, 1, return_mask=True)), X1),
    (lambda F, x: list(F.max_pool2d(x, 3, 2, 1, return_mask=True)), X2),
    (lambda F, x: list(F.max_pool2d(x, 2, return_mask=True, ceil_mode=True)), X2),
    (lambda F, x: list(F.max_pool3d(x, 2, 1, 1, return_mask=True)), X3),
    (lambda F, x: list(F.adaptive_max_pool1d(x, 4, return_mask=True)), X1),
    (lambda F, x: list(F.adaptive_max_pool2d(x, [3, 4], return_mask=True)), X2),
    (lambda F, x: list(F.adaptive_max_pool3d(x, [2, 3, 3], return_mask=True)), X3),
])
def test_pool_masks_match_paddle(call, x):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(x)))


@pytest.mark.parametrize("nd,x,kw", [(1, X1, {}), (2, X2, {"padding": 1}),
                                     (2, X2, {"output_size": [7, 7]}), (3, X3, {})])
def test_max_unpool_matches_paddle(nd, x, kw):
    def fn(pd):
        F = pd.nn.functional
        t = pd.to_tensor(x, stop_gradient=False)
        pool = getattr(F, f"max_pool{nd}d")
        y, mask = pool(t, 2, padding=kw.get("padding", 0), return_mask=True)
        out = getattr(F, f"max_unpool{nd}d")(y, mask, 2, **kw)
        (out * out).sum().backward()
        return [out, t.grad]

    same(fn)


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool2d(x, 2, data_format="NCL"),
    lambda F, x: F.max_pool2d(x, 2, padding="FOO"),
    lambda F, x: F.max_pool2d(x, 2, padding="VALID", ceil_mode=True),
    lambda F, x: F.max_pool2d(x, 2, padding=[1, 2, 3]),
    lambda F, x: F.max_pool2d(x, 2, padding=[[1, 0], [0, 0], [0, 0], [0, 0]]),
    lambda F, x: F.max_pool2d(x, [2, 2, 2]),
    lambda F, x: F.max_pool2d(x.transpose([0, 2, 3, 1]), 2, return_mask=True,
                              data_format="NHWC"),
    lambda F, x: F.max_pool3d(x.unsqueeze(2), 2, data_format="NCHW"),
    lambda F, x: F.avg_pool2d(x, 0),
    lambda F, x: F.avg_pool2d(x, 2, stride=0),
    lambda F, x: F.avg_pool2d(x, 2, data_format="NHWCX"),
    lambda F, x: F.avg_pool1d(x, 2),
    lambda F, x: F.max_pool1d(x, 2),
    lambda F, x: F.lp_pool2d(x, 0, 2),
    lambda F, x: F.lp_pool1d(x, 2, 2),
    lambda F, x: F.adaptive_avg_pool2d(x, 2, data_format="NCL"),
    lambda F, x: F.max_unpool2d(x, x.astype("int32"), 2, data_format="NHWC"),
    lambda F, x: F.max_unpool2d(x, x.astype("int32"), 2, output_size=[20, 20]),
    lambda F, x: F.max_unpool2d(x, x.astype("int32"), 2, output_size=[20]),
    lambda F, x: F.max_unpool2d(x, (x.abs() * 0 + 200).astype("int32"), 2),
])
def test_pool_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(X2)))
