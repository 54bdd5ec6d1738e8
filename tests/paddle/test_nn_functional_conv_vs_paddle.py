"""paddle.nn.functional convolutions against real Paddle: values, input/weight/bias
gradients, padding forms, layouts, groups, transposes and Paddle's error messages."""
from __future__ import annotations

import pytest

from ._functional_harness import check, rand, same

X2 = rand(2, 4, 7, 6)
W2 = rand(6, 4, 3, 3, seed=1) * 0.3
B6 = rand(6, seed=2)


@pytest.mark.parametrize("kw", [
    {}, {"stride": 2}, {"padding": 1}, {"padding": [1, 2]}, {"padding": [1, 2, 0, 1]},
    {"padding": [[0, 0], [0, 0], [2, 1], [0, 1]]}, {"dilation": 2, "padding": 2},
    {"stride": [2, 1], "dilation": [1, 2]}, {"padding": "SAME"}, {"padding": "same", "stride": 2},
    {"padding": "VALID", "stride": 2}, {"padding": "SAME", "dilation": 2},
])
def test_conv2d_matches_paddle(kw):
    check(lambda F, x, w, b: F.conv2d(x, w, b, **kw), X2, W2, B6)


def test_conv2d_groups_and_nhwc():
    check(lambda F, x, w: F.conv2d(x, w, groups=2), X2, rand(6, 2, 3, 3, seed=3))
    check(lambda F, x, w, b: F.conv2d(x, w, b, padding=[[0, 0], [1, 0], [0, 2], [0, 0]],
                                      data_format="NHWC"),
          X2.transpose(0, 2, 3, 1).copy(), W2, B6)


def test_conv2d_float64_and_no_bias():
    check(lambda F, x, w: F.conv2d(x, w, stride=2), X2.astype("float64"), W2.astype("float64"))


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"padding": "SAME"},
                                {"dilation": 2, "groups": 2}, {"data_format": "NLC"}])
def test_conv1d_matches_paddle(kw):
    x = rand(2, 4, 9)
    if kw.get("data_format") == "NLC":
        x = x.transpose(0, 2, 1).copy()
    w = rand(6, 2 if kw.get("groups") else 4, 3, seed=1)
    check(lambda F, x, w, b: F.conv1d(x, w, b, **kw), x, w, B6)


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"padding": [1, 0, 0, 1, 2, 1]},
                                {"dilation": [2, 1, 1], "groups": 2}, {"padding": "SAME"},
                                {"data_format": "NDHWC"}])
def test_conv3d_matches_paddle(kw):
    x = rand(2, 4, 6, 5, 5)
    if kw.get("data_format") == "NDHWC":
        x = x.transpose(0, 2, 3, 4, 1).copy()
    w = rand(6, 2 if kw.get("groups") else 4, 3, 2, 3, seed=1)
    check(lambda F, x, w, b: F.conv3d(x, w, b, **kw), x, w, B6, rtol=1e-4)


@pytest.mark.parametrize("kw", [
    {}, {"stride": 2}, {"stride": 2, "padding": 1, "output_padding": 1}, {"padding": [1, 0, 2, 1]},
    {"stride": [2, 3], "dilation": [2, 1]}, {"groups": 2}, {"padding": "SAME", "stride": 2},
    {"padding": "VALID", "stride": 2}, {"stride": 2, "output_size": [14, 12]},
    {"data_format": "NHWC", "stride": 2},
])
def test_conv2d_transpose_matches_paddle(kw):
    x = X2.transpose(0, 2, 3, 1).copy() if kw.get("data_format") == "NHWC" else X2
    check(lambda F, x, w, b: F.conv2d_transpose(x, w, b, **kw), x, rand(4, 3, 3, 3, seed=4),
          rand(6 if kw.get("groups") else 3, seed=5))


def test_conv1d_and_conv3d_transpose_match_paddle():
    check(lambda F, x, w, b: F.conv1d_transpose(x, w, b, stride=2, padding=1, output_padding=1),
          rand(2, 4, 7), rand(4, 3, 3, seed=1), rand(3, seed=2))
    check(lambda F, x, w: F.conv1d_transpose(x, w, stride=3, output_size=20, data_format="NLC"),
          rand(2, 7, 4), rand(4, 3, 3, seed=1))
    check(lambda F, x, w, b: F.conv3d_transpose(x, w, b, stride=[2, 1, 2], padding=1, groups=2),
          rand(1, 4, 3, 4, 3), rand(4, 2, 3, 2, 3, seed=1), rand(4, seed=2), rtol=1e-4)


@pytest.mark.parametrize("call", [
    lambda F, x: F.conv2d(x, F_w(F, [6, 3, 3, 3])),
    lambda F, x: F.conv2d(x[0], F_w(F, [6, 4, 3, 3])),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3, 3]), data_format="NCL"),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3, 3]), padding="foo"),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3, 3]), padding=[1, 2, 3]),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3, 3]), padding=[[0, 0], [1, 1], [1, 2], [0, 1]]),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3, 3]), padding=-1),
    lambda F, x: F.conv2d(x, F_w(F, [6, 2, 3, 3]), groups=3),
    lambda F, x: F.conv2d(x, F_w(F, [5, 2, 3, 3]), groups=2),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3, 3]), groups=0),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3])),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3, 3]), data_format="NHWC"),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3, 3]), stride=0),
    lambda F, x: F.conv2d(x, F_w(F, [6, 4, 3, 3]), stride=[1, 2, 3]),
    lambda F, x: F.conv2d(x.astype("float64"), F_w(F, [6, 4, 3, 3])),
    lambda F, x: F.conv1d(x, F_w(F, [6, 4, 3])),
    lambda F, x: F.conv1d(x[:, :, 0], F_w(F, [6, 3, 3])),
    lambda F, x: F.conv1d(x[:, :, 0], F_w(F, [6, 4, 3]), data_format="NCHW"),
    lambda F, x: F.conv1d(x[:, :, 0], F_w(F, [6, 4, 3]), groups=0),
    lambda F, x: F.conv3d(x, F_w(F, [6, 4, 3, 3, 3])),
    lambda F, x: F.conv3d(x.unsqueeze(2), F_w(F, [6, 4, 3, 3, 3]), groups=3),
    lambda F, x: F.conv3d(x.unsqueeze(2), F_w(F, [5, 2, 3, 3, 3]), groups=2),
    lambda F, x: F.conv3d(x.unsqueeze(2), F_w(F, [6, 3, 1, 3, 3])),
    lambda F, x: F.conv3d(x.unsqueeze(2), F_w(F, [6, 4, 1, 3, 3]), data_format="NCHW"),
    lambda F, x: F.conv2d_transpose(x, F_w(F, [3, 3, 3, 3])),
    lambda F, x: F.conv2d_transpose(x, F_w(F, [4, 3, 3, 3]), groups=3),
    lambda F, x: F.conv2d_transpose(x, F_w(F, [4, 3, 3])),
    lambda F, x: F.conv2d_transpose(x, F_w(F, [4, 3, 3, 3]), data_format="NCL"),
    lambda F, x: F.conv2d_transpose(x, F_w(F, [4, 3, 3, 3]), output_size=[3, 3]),
    lambda F, x: F.conv2d_transpose(x, F_w(F, [4, 3, 3, 3]), output_size=[8]),
    lambda F, x: F.conv2d_transpose(x, F_w(F, [4, 3, 3, 3]), stride=2, output_size=[13, 12]),
    lambda F, x: F.conv2d_transpose(x, F_w(F, [4, 3, 3, 3]), output_padding=1),
    lambda F, x: F.conv2d_transpose(x, F_w(F, [4, 3, 3, 3]), stride=2, output_padding=1,
                                    output_size=[12, 12]),
    lambda F, x: F.conv1d_transpose(x[:, :, 0], F_w(F, [4, 3, 3]), output_padding=2),
    lambda F, x: F.conv1d_transpose(x[:, :, 0], F_w(F, [4, 3, 3, 1])),
    lambda F, x: F.conv1d_transpose(x[:, :, 0], F_w(F, [4, 3, 3]), data_format="NCHW"),
    lambda F, x: F.conv3d_transpose(x.unsqueeze(2), F_w(F, [4, 3, 3, 3])),
    lambda F, x: F.conv3d_transpose(x.unsqueeze(2), F_w(F, [4, 3, 1, 3, 3]), groups=3),
])
def test_conv_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(X2[:, :, :5, :5])))


def F_w(F, shape):
    """A weight of the given shape on whichever library F belongs to."""
    import numpy as np

    lib = __import__(F.__name__.split(".nn.")[0], fromlist=["to_tensor"])
    return lib.to_tensor(np.ones(shape, "float32"))
