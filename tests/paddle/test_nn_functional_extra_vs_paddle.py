"""paddle.nn.functional distances, label_smooth, sequence_mask, bilinear, unfold/fold and
scaled_dot_product_attention against real Paddle: values, gradients, errors."""
from __future__ import annotations

import numpy as np
import pytest

from ._functional_harness import check, rand, same


def test_distances_match_paddle():
    a, b = rand(4, 5), rand(4, 5, seed=1)
    check(lambda F, x, y: F.cosine_similarity(x, y), a, b)
    check(lambda F, x, y: F.cosine_similarity(x, y, axis=0, eps=0.5), a, b)
    check(lambda F, x, y: F.cosine_similarity(x, y, axis=0), a, b[:1])
    check(lambda F, x, y: F.pairwise_distance(x, y), a, b)
    check(lambda F, x, y: F.pairwise_distance(x, y, p=1, epsilon=0.0, keepdim=True), a, b)
    check(lambda F, x: F.pdist(x), a)
    check(lambda F, x: F.pdist(x, p=3.0), a, rtol=1e-4)


def test_label_smooth_and_sequence_mask_match_paddle():
    lab = np.eye(4, dtype="float32")[[0, 2, 3]]
    check(lambda F, x: F.label_smooth(x), lab)
    check(lambda F, x, p: F.label_smooth(x, p, epsilon=0.3), lab,
          np.array([[.1, .2, .3, .4]], "float32"))
    lens = np.array([[1, 3], [0, 2]], "int64")
    check(lambda F, x: F.sequence_mask(x), lens)
    check(lambda F, x: F.sequence_mask(x, maxlen=5, dtype="float32"), lens)
    check(lambda F, x: F.sequence_mask(x, maxlen=2, dtype="bool"), lens.astype("int32"))


def test_bilinear_matches_paddle():
    check(lambda F, a, b, w, c: F.bilinear(a, b, w, c), rand(3, 4), rand(3, 5, seed=1),
          rand(2, 4, 5, seed=2), rand(1, 2, seed=3))
    check(lambda F, a, b, w: F.bilinear(a, b, w), rand(3, 4), rand(3, 5, seed=1),
          rand(2, 4, 5, seed=2))


@pytest.mark.parametrize("kw", [{"kernel_sizes": 2}, {"kernel_sizes": [2, 3], "strides": 2},
                                {"kernel_sizes": 2, "paddings": [1, 2]},
                                {"kernel_sizes": 2, "paddings": [1, 0, 1, 0], "dilations": 2},
                                {"kernel_sizes": [3, 2], "strides": [1, 2], "paddings": 1}])
def test_unfold_and_fold_match_paddle(kw):
    x = rand(2, 3, 6, 5)
    check(lambda F, x: F.unfold(x, **kw), x)

    def fold(F, cols):
        return F.fold(cols, [6, 5], **kw)

    import paddle

    cols = paddle.nn.functional.unfold(paddle.to_tensor(x), **kw).numpy()
    check(fold, cols + rand(*cols.shape, seed=4))


@pytest.mark.parametrize("call", [
    lambda F, x: F.unfold(x[0], 2), lambda F, x: F.unfold(x, [2, 2, 2]),
    lambda F, x: F.unfold(x, 2, paddings=[1, 2, 3]),
    lambda F, x: F.fold(x, [6, 5], 2), lambda F, x: F.pdist(x),
    lambda F, x: F.fold(x.reshape([2, 12, 15]), [6, 5], 2, dilations=2),
    lambda F, x: F.fold(x.reshape([2, 12, 15]), [6, 5], [2]),
    lambda F, x: F.label_smooth(x, epsilon=2.0),
])
def test_extra_errors_match_paddle(call):
    same(lambda pd: call(pd.nn.functional, pd.to_tensor(rand(2, 3, 6, 5))))


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 0.3}, {"mask": "float"},
                                {"mask": "bool"}, {"gqa": True}, {"unbatched": True}])
def test_scaled_dot_product_attention_matches_paddle(kw):
    q, k, v = rand(2, 5, 4, 3), rand(2, 6, 4, 3, seed=1), rand(2, 6, 4, 3, seed=2)
    if kw.get("is_causal"):
        k, v = k[:, :5], v[:, :5]
    if kw.get("gqa"):
        k, v = k[:, :, :2], v[:, :, :2]
    args = [q, k, v]
    mask = None
    if kw.get("mask") == "float":
        mask = rand(2, 4, 5, 6, seed=3)
    elif kw.get("mask") == "bool":
        mask = rand(1, 1, 5, 6, seed=3) > -0.5
    if kw.get("unbatched"):
        args = [a[0] for a in args]
    opts = {n: kw[n] for n in ("is_causal", "scale") if n in kw}

    def call(F, q, k, v, m):
        return F.scaled_dot_product_attention(q, k, v, m, **opts)

    check(call, *args, mask, trainable=[0, 1, 2])
