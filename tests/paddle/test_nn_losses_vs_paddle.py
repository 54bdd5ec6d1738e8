"""paddle.nn.functional cross-entropy family against real Paddle 3.3.1: values for each
reduction, result shapes (Paddle keeps a size-1 class axis in some cases), gradients of the
input and of the class weights, ignore_index, soft labels, label smoothing, and errors."""
from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
from tests.paddle._loss_harness import _compare, _run, ilp, same  # noqa: E402
from tests.paddle._loss_harness import loss_and_grads as _lag  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 4)).astype("float32")
X3 = RNG.standard_normal((2, 4, 3)).astype("float32")
LABEL = np.array([0, 3, 1, 2, 3])
SOFT = RNG.random((5, 4)).astype("float32")
SOFT /= SOFT.sum(1, keepdims=True)
W = np.array([1.0, 2.0, 0.5, 3.0], "float32")


def loss_and_grads(call, x=X, label=LABEL, weight=None):
    return _lag(call, x, label, weight)


REDUCTIONS = ["none", "mean", "sum"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label", [LABEL, LABEL[:, None]], ids=["N", "N1"])
def test_cross_entropy_hard_label_values_shapes_and_grads(reduction, label):
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, reduction=reduction),
                        label=label))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_weight_normalises_mean_by_gathered_weights(reduction):
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, weight=w, reduction=reduction),
                        weight=W))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, W], ids=["noweight", "weight"])
def test_cross_entropy_default_ignore_index_counts_ignored_rows_in_mean(reduction, weight):
    label = np.array([0, -100, 1, 2, -100])
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, weight=w, reduction=reduction),
                        label=label, weight=weight))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, W], ids=["noweight", "weight"])
def test_cross_entropy_nonnegative_ignore_index_divides_by_kept(reduction, weight):
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, weight=w, ignore_index=3,
                                                           reduction=reduction),
                        weight=weight))


def test_cross_entropy_all_ignored_mean_is_zero():
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, ignore_index=3),
                        label=np.array([3, 3, 3, 3, 3])))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, W], ids=["noweight", "weight"])
def test_cross_entropy_soft_label(reduction, weight):
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, weight=w, soft_label=True,
                                                           reduction=reduction),
                        label=SOFT, weight=weight))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_use_softmax_false_takes_probabilities(reduction):
    probs = np.exp(X) / np.exp(X).sum(1, keepdims=True)
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, use_softmax=False,
                                                           reduction=reduction),
                        x=probs.astype("float32")))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, W], ids=["noweight", "weight"])
def test_cross_entropy_label_smoothing_keeps_class_axis_for_none(reduction, weight):
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, weight=w, label_smoothing=0.2,
                                                           reduction=reduction),
                        weight=weight))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_axis_1_on_3d_input(reduction):
    label = np.array([[0, 1, 3], [2, 2, 0]])
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, axis=1, reduction=reduction),
                        x=X3, label=label))
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, axis=1, reduction=reduction),
                        x=X3, label=label[:, None, :]))


def test_cross_entropy_axis_1_with_weight():
    label = np.array([[0, 1, 3], [2, 2, 0]])
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, weight=w, axis=1),
                        x=X3, label=label, weight=W))


def test_cross_entropy_last_axis_on_3d_input():
    label = np.array([[0, 1, 2, 0], [2, 2, 0, 1]])
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, reduction="none"),
                        x=X3, label=label))


def test_cross_entropy_int32_label():
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y),
                        label=LABEL.astype("int32")))


def test_cross_entropy_float64():
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y), x=X.astype("float64")))


@pytest.mark.parametrize("case", [
    dict(label=[0, 4, 1, 2, 3]),                  # label >= C
    dict(label=[0, -1, 1, 2, 3]),                 # negative, not the ignore_index
    dict(label=[[0, 1]] * 5),                     # class axis of 2 for hard labels
    dict(label=[0, 1]),                           # batch mismatch
    dict(label=3),                                # 0-D label
    dict(reduction="avg"),
    dict(weight=[1.0, 2.0]),
    dict(soft_label=True, ignore_index=1, label=SOFT),
])
def test_cross_entropy_errors(case):
    def fn(pd):
        kw = dict(case)
        label = pd.to_tensor(np.asarray(kw.pop("label", LABEL)))
        if "weight" in kw:
            kw["weight"] = pd.to_tensor(np.asarray(kw["weight"], "float32"))
        return pd.nn.functional.cross_entropy(pd.to_tensor(X), label, **kw)

    a = _run(fn, paddle)
    assert isinstance(a, tuple) and a[0] == "raised"
    _compare(a, _run(fn, ilp), 1e-5)


def test_cross_entropy_0d_input_error():
    same(lambda pd: pd.nn.functional.cross_entropy(pd.to_tensor(1.0), pd.to_tensor([0])))


@pytest.mark.parametrize("label", [LABEL[:, None], SOFT], ids=["hard", "soft"])
def test_softmax_with_cross_entropy_returns_kept_axis_and_softmax(label):
    soft = label.dtype == np.float32

    def fn(pd):
        xt = pd.to_tensor(X, stop_gradient=False)
        loss, sm = pd.nn.functional.softmax_with_cross_entropy(
            xt, pd.to_tensor(label), soft_label=soft, return_softmax=True)
        loss.sum().backward()
        return [loss, sm, xt.grad]

    same(fn)


def test_softmax_with_cross_entropy_ignore_index_and_1d_label_error():
    same(lambda pd: pd.nn.functional.softmax_with_cross_entropy(
        pd.to_tensor(X), pd.to_tensor(np.array([[0], [3], [1], [2], [3]])), ignore_index=3))
    same(lambda pd: pd.nn.functional.softmax_with_cross_entropy(pd.to_tensor(X),
                                                                pd.to_tensor(LABEL)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, W], ids=["noweight", "weight"])
def test_nll_loss(reduction, weight):
    label = np.array([0, -100, 1, 2, 3])
    same(loss_and_grads(lambda F, x, y, w: F.nll_loss(x, y, weight=w, reduction=reduction),
                        label=label, weight=weight))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_spatial(reduction):
    x = RNG.standard_normal((2, 3, 4, 5)).astype("float32")
    label = RNG.integers(0, 3, (2, 4, 5))
    same(loss_and_grads(lambda F, x, y, w: F.nll_loss(x, y, reduction=reduction),
                        x=x, label=label))
    same(loss_and_grads(lambda F, x, y, w: F.nll_loss(x, y, reduction=reduction),
                        x=X3.transpose(0, 2, 1).copy(), label=np.array([[0, 1, 2, 3]] * 2)))


def test_nll_loss_all_ignored_mean_is_zero_and_errors():
    same(loss_and_grads(lambda F, x, y, w: F.nll_loss(x, y), label=np.full(5, -100)))
    same(lambda pd: pd.nn.functional.nll_loss(pd.to_tensor(X), pd.to_tensor([0, 9, 1, 2, 3])))
    same(lambda pd: pd.nn.functional.nll_loss(pd.to_tensor(X), pd.to_tensor(LABEL), reduction="x"))
    same(lambda pd: pd.nn.functional.nll_loss(pd.to_tensor(X[0]), pd.to_tensor(1)))


def test_log_loss_and_square_error_cost():
    p = np.array([[0.2], [0.9], [0.5]], "float32")
    y = np.array([[0.0], [1.0], [1.0]], "float32")
    same(loss_and_grads(lambda F, x, t, w: F.log_loss(x, t), x=p, label=y))
    same(loss_and_grads(lambda F, x, t, w: F.log_loss(x, t, epsilon=0.1), x=p, label=y))
    same(lambda pd: pd.nn.functional.log_loss(pd.to_tensor([0.2]), pd.to_tensor([1.0])))
    same(loss_and_grads(lambda F, x, t, w: F.square_error_cost(x, t), x=X, label=SOFT))


def test_cross_entropy_soft_label_on_axis_1_gives_label_no_gradient():
    soft = SOFT[None].transpose(0, 2, 1).repeat(2, 0).copy()  # [2, 4, 5], classes on axis 1

    def fn(pd):
        x = pd.to_tensor(np.stack([X.T, X.T * 0.5]), stop_gradient=False)
        y = pd.to_tensor(soft, stop_gradient=False)
        out = pd.nn.functional.cross_entropy(x, y, soft_label=True, axis=1, reduction="none")
        out.sum().backward()
        return [out, x.grad, y.grad]

    same(fn)


def test_cross_entropy_float64_input_with_float32_weight_stays_float64():
    same(loss_and_grads(lambda F, x, y, w: F.cross_entropy(x, y, weight=w),
                        x=X.astype("float64"), weight=W))


def test_cross_entropy_label_smoothing_builds_one_hot_on_the_last_axis():
    """Paddle one-hots with input.shape[-1] even for axis=1: a label >= that is one_hot's
    error, a smaller one gives a soft label of the wrong width (the kernel's error)."""
    for label in (np.array([[0, 1, 3], [3, 3, 0]]), np.array([[0, 1, 2], [2, 2, 0]])):
        same(lambda pd: pd.nn.functional.cross_entropy(pd.to_tensor(X3), pd.to_tensor(label),
                                                       axis=1, label_smoothing=0.1))
