"""paddle.nn.functional dropout family (structure: randomness cannot match), embedding,
one_hot and pad against real Paddle."""
from __future__ import annotations

import numpy as np
import pytest

from ._functional_harness import check, ilp, paddle, rand, same

X = np.arange(1, 25, dtype="float32").reshape(2, 3, 4)


# ---- dropout: structure --------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["upscale_in_train", "downscale_in_infer"])
def test_dropout_scales_kept_values_and_gradient_is_the_mask(mode):
    x = ilp.to_tensor(X, stop_gradient=False)
    y = ilp.nn.functional.dropout(x, 0.25, mode=mode)
    y.sum().backward()
    kept = y.numpy() != 0
    scale = 1 / 0.75 if mode == "upscale_in_train" else 1.0
    np.testing.assert_allclose(y.numpy()[kept], X[kept] * scale, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), kept * scale, rtol=1e-6)
    assert 0 < kept.sum() < kept.size and y.dtype == x.dtype and not y.stop_gradient


def test_dropout_axis_drops_whole_slices():
    y = ilp.nn.functional.dropout(ilp.to_tensor(np.ones((40, 3, 4), "float32")), 0.5, axis=0)
    a = y.numpy()
    assert set(np.unique(a)) <= {0.0, 2.0}
    assert (a == a[:, :1, :1]).all()
    y = ilp.nn.functional.dropout2d(ilp.to_tensor(np.ones((8, 6, 3, 3), "float32")), 0.5)
    assert (y.numpy() == y.numpy()[:, :, :1, :1]).all()
    y = ilp.nn.functional.dropout3d(ilp.to_tensor(np.ones((8, 2, 2, 3, 6), "float32")), 0.5,
                                    data_format="NDHWC")
    assert (y.numpy() == y.numpy()[:, :1, :1, :1, :]).all()


@pytest.mark.parametrize("call", [
    lambda F, x: F.dropout(x, 0.5, training=False),
    lambda F, x: F.dropout(x, 0.5, training=False, mode="downscale_in_infer"),
    lambda F, x: F.dropout(x, 1.0),
    lambda F, x: F.dropout(x, 1.0, mode="downscale_in_infer"),
    lambda F, x: F.dropout(x, 1.0, axis=[0, 2]),
    lambda F, x: F.dropout(x, 0.3, axis=1, training=False, mode="downscale_in_infer"),
    lambda F, x: F.dropout2d(x.unsqueeze(0), 0.5, training=False),
    lambda F, x: F.dropout1d(x[0], 1.0),
    lambda F, x: F.alpha_dropout(x, 1.0),
    lambda F, x: F.alpha_dropout(x, 0.5, training=False),
    lambda F, x: F.feature_alpha_dropout(x, 1.0),
])
def test_dropout_deterministic_cases_match_paddle(call):
    check(call, X)


def test_dropout_p0_returns_input_itself_and_eval_returns_a_copy():
    for pd in (paddle, ilp):
        x = pd.to_tensor(X)
        assert pd.nn.functional.dropout(x, 0.0) is x
        assert pd.nn.functional.dropout(x, 0.5, training=False) is not x
        assert pd.nn.functional.dropout(x, 0.5, axis=1, training=False) is x


def test_dropout_inplace_bumps_the_version():
    for pd in (paddle, ilp):
        x = pd.to_tensor(np.ones((3, 4), "float32"))
        assert pd.nn.functional.dropout(x, 0.5, inplace=True) is x
        assert x.inplace_version == 1


def test_alpha_dropout_keeps_selu_statistics():
    x = ilp.to_tensor(np.random.RandomState(0).randn(200000).astype("float32"))
    y = ilp.nn.functional.alpha_dropout(x, 0.2).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    y = ilp.nn.functional.feature_alpha_dropout(ilp.ones([4, 1000, 2]), 0.5).numpy()
    assert (y == y[:, :, :1]).all()


@pytest.mark.parametrize("call", [
    lambda F, x: F.dropout(x, 1.5), lambda F, x: F.dropout(x, "a"),
    lambda F, x: F.dropout(x, 0.5, mode="x"), lambda F, x: F.dropout(x, 0.5, axis=3),
    lambda F, x: F.dropout(x, 0.5, axis="a"), lambda F, x: F.dropout(x, 0.5, axis=[0, 1, 1, 2]),
    lambda F, x: F.dropout2d(x), lambda F, x: F.dropout3d(x), lambda F, x: F.dropout1d(x[0, 0]),
    lambda F, x: F.dropout2d(x.unsqueeze(0), data_format="NCX"),
    lambda F, x: F.alpha_dropout(x, 2), lambda F, x: F.feature_alpha_dropout(x[0, 0], 0.5),
])
def test_dropout_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(X)))


# ---- embedding, one_hot --------------------------------------------------------------------

W = rand(5, 3)
IDX = np.array([[0, 2], [4, 4], [1, 0]], "int64")


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 4}, {"padding_idx": -1}, {"padding_idx": 0}])
def test_embedding_matches_paddle(kw):
    check(lambda F, i, w: F.embedding(i, w, **kw), IDX, W)
    check(lambda F, i, w: F.embedding(i, w, **kw), IDX.astype("int32"), W)


def test_embedding_max_norm_renorms_the_weight_in_place():
    def fn(pd):
        w = pd.to_tensor(W * 3)
        out = pd.nn.functional.embedding(pd.to_tensor(IDX), w, max_norm=2.0)
        return [out, w, pd.to_tensor(w.inplace_version)]

    same(fn)


@pytest.mark.parametrize("call", [
    lambda F, pd: F.embedding(pd.to_tensor(IDX), pd.to_tensor(W), padding_idx=5),
    lambda F, pd: F.embedding(pd.to_tensor([[0, 7]]), pd.to_tensor(W)),
    lambda F, pd: F.embedding(pd.to_tensor([[0., 1.]]), pd.to_tensor(W)),
    lambda F, pd: F.one_hot(pd.to_tensor([1, 5]), 4),
    lambda F, pd: F.one_hot(pd.to_tensor([1., 3.]), 4),
])
def test_embedding_and_one_hot_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd))


@pytest.mark.parametrize("x,n", [([1, 3], 4), ([[1, 3], [0, 0]], -1), ([2], 3)])
def test_one_hot_matches_paddle(x, n):
    same(lambda pd: pd.nn.functional.one_hot(pd.to_tensor(x), n))
    same(lambda pd: pd.nn.functional.one_hot(pd.to_tensor(x, dtype="int32"), n))


# ---- pad --------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ([1, 2], {}), ([1, 0, 2, 1], {"value": 2.5}), ([0, 1, 1, 0, 2, 2], {}),
    ([0, 1, 1, 0, 2, 2], {"pad_from_left_axis": False}), ([1, 1], {"mode": "reflect"}),
    ([2, 1], {"mode": "replicate"}), ([2, 1], {"mode": "circular"}),
    ([1, 2], {"mode": "constant", "data_format": "NLC", "value": -1.}),
    ([1, 2], {"mode": "reflect", "data_format": "NLC"}),
])
def test_pad_3d_input_matches_paddle(args):
    amounts, kw = args
    check(lambda F, x: F.pad(x, amounts, **kw), X)


@pytest.mark.parametrize("args", [
    ([1, 2, 0, 1], {"mode": "reflect"}), ([1, 2, 3, 1], {"mode": "replicate"}),
    ([1, 2, 2, 1], {"mode": "circular"}), ([1, 2, 3, 0], {"data_format": "NHWC"}),
    ([1, 0, 0, 0, 0, 1, 2, 0], {}), ([1, 2], {}),
])
def test_pad_4d_input_matches_paddle(args):
    amounts, kw = args
    check(lambda F, x: F.pad(x, amounts, **kw), X.reshape(1, 2, 3, 4))


def test_pad_5d_and_zeropad2d_match_paddle():
    check(lambda F, x: F.pad(x, [1, 0, 0, 1, 1, 1], mode="replicate"), X.reshape(1, 1, 2, 3, 4))
    check(lambda F, x: F.pad(x, [1, 0, 0, 1, 1, 1], mode="circular", data_format="NDHWC"),
          X.reshape(1, 2, 3, 4, 1))
    check(lambda F, x: F.zeropad2d(x, [1, 0, 2, 1]), X.reshape(1, 2, 3, 4))
    check(lambda F, x: F.pad(x, [1, 1, 0, 2]), X[0].astype("int64"))


@pytest.mark.parametrize("call", [
    lambda F, x: F.pad(x[0], [1, 1], mode="reflect"),
    lambda F, x: F.pad(x, [1, 1], mode="reflect", data_format="NCHW"),
    lambda F, x: F.pad(x, [1, 1], mode="reflect", data_format="NCX"),
])
def test_pad_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(X)))
