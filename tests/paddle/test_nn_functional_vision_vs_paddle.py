"""paddle.nn.functional interpolate/upsample, pixel_shuffle, pixel_unshuffle and
channel_shuffle against real Paddle: values, gradients, layouts and errors."""
from __future__ import annotations

import pytest

from ._functional_harness import check, rand, same

X4 = rand(2, 3, 4, 5)


@pytest.mark.parametrize("kw", [
    {"size": [7, 3]}, {"scale_factor": 2}, {"scale_factor": [1.5, 0.7]},
    {"size": [7, 9], "mode": "bilinear"}, {"size": [7, 9], "mode": "bilinear", "align_mode": 1},
    {"size": [3, 9], "mode": "bilinear", "align_corners": True},
    {"scale_factor": 1.7, "mode": "bilinear"}, {"scale_factor": [2, 3], "mode": "bilinear",
                                                "recompute_scale_factor": True},
    {"size": [2, 2], "mode": "area"}, {"size": [6, 4], "mode": "bilinear", "data_format": "NHWC"},
])
def test_interpolate_4d_matches_paddle(kw):
    check(lambda F, x: F.interpolate(x, **kw), X4)


def test_interpolate_linear_trilinear_and_upsample_match_paddle():
    check(lambda F, x: F.interpolate(x, size=[9], mode="linear"), X4[0])
    check(lambda F, x: F.interpolate(x, scale_factor=1.5, mode="linear", align_corners=True),
          X4[0])
    check(lambda F, x: F.interpolate(x, size=[3, 5, 7], mode="trilinear", align_mode=1),
          rand(1, 2, 2, 3, 4))
    check(lambda F, x: F.interpolate(x, scale_factor=[2, 1, 0.5], data_format="NDHWC"),
          rand(1, 2, 3, 4, 2))
    check(lambda F, x: F.upsample(x, size=[5, 6], mode="bilinear", align_corners=True), X4)


@pytest.mark.parametrize("call", [
    lambda F, x: F.interpolate(x, size=[3, 3], mode="cubic"),
    lambda F, x: F.interpolate(x, size=[3, 3], mode="linear"),
    lambda F, x: F.interpolate(x[0], size=[3], mode="nearest"),
    lambda F, x: F.interpolate(x, size=[3, 3, 3], mode="trilinear"),
    lambda F, x: F.interpolate(x),
    lambda F, x: F.interpolate(x, size=[3]),
    lambda F, x: F.interpolate(x, size=[3, 3], align_corners=True),
    lambda F, x: F.interpolate(x, size=[3, 3], mode="bilinear", align_mode=2),
    lambda F, x: F.interpolate(x, size=[3, 3], scale_factor=2),
    lambda F, x: F.interpolate(x, scale_factor=-1),
    lambda F, x: F.interpolate(x, scale_factor=[1, 2, 3]),
    lambda F, x: F.interpolate(x, size=[3, 3], data_format="NCW"),
    lambda F, x: F.interpolate(x, size=[3, 0]),
    lambda F, x: F.interpolate(x, scale_factor=2, mode="area"),
])
def test_interpolate_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(X4)))


def test_shuffles_match_paddle():
    x = rand(2, 8, 3, 2)
    check(lambda F, x: F.pixel_shuffle(x, 2), x)
    check(lambda F, x: F.pixel_shuffle(x, 2, data_format="NHWC"), rand(2, 3, 2, 8))
    check(lambda F, x: F.pixel_unshuffle(x, 2), rand(2, 3, 4, 6))
    check(lambda F, x: F.pixel_unshuffle(x, 3, data_format="NHWC"), rand(2, 6, 3, 2))
    check(lambda F, x: F.channel_shuffle(x, 4), x)
    check(lambda F, x: F.channel_shuffle(x, 2, data_format="NHWC"), x)


@pytest.mark.parametrize("call", [
    lambda F, x: F.pixel_shuffle(x, 2.0), lambda F, x: F.pixel_shuffle(x, 2, "NCX"),
    lambda F, x: F.pixel_shuffle(x[0], 2), lambda F, x: F.pixel_shuffle(x, 3),
    lambda F, x: F.pixel_unshuffle(x[0], 2), lambda F, x: F.pixel_unshuffle(x, 0),
    lambda F, x: F.pixel_unshuffle(x, 2.0), lambda F, x: F.pixel_unshuffle(x, 2, "NCX"),
    lambda F, x: F.channel_shuffle(x[0], 2), lambda F, x: F.channel_shuffle(x, 0),
    lambda F, x: F.channel_shuffle(x, 2.0), lambda F, x: F.channel_shuffle(x, 2, "NCX"),
    lambda F, x: F.channel_shuffle(x, 3),
])
def test_shuffle_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(rand(2, 8, 4, 6))))
