"""``paddle.metric`` against real Paddle 3.3.1: ``accuracy``'s value, dtype, shape and
errors; ``Accuracy``/``Precision``/``Recall``/``Auc`` give the same numbers, types and names.
"""
from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
import inplace_lab.paddle as ilp  # noqa: E402

SCORES = np.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3],
                   [0.5, 0.5, 0.0]], "float32")  # (the last row is a tie: lower index ranks first)
LABELS = [[1], [0], [0], [2], [1]]


def obs(v):
    if isinstance(v, (paddle.Tensor, ilp.Tensor)):
        return ("T", np.asarray(v.numpy()).tolist(), str(v.dtype).replace("paddle.", ""),
                list(v.shape), bool(v.stop_gradient))
    if isinstance(v, (list, tuple)):
        return [obs(x) for x in v]
    return (type(v).__name__, v)


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        return ("raised", builtin.__name__, str(e).splitlines()[0])
    return ("no error",)


def both(check):
    ref, got = check(paddle), check(ilp)
    assert got == ref
    return ref


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("label_dtype", ["int64", "int32"])
def test_accuracy_is_a_float32_scalar_with_stop_gradient(k, dtype, label_dtype):
    def check(P):
        x = P.to_tensor(SCORES.astype(dtype), stop_gradient=False)
        return obs(P.metric.accuracy(x, P.to_tensor(LABELS, dtype=label_dtype), k=k))

    both(check)


def test_accuracy_writes_the_counts_into_correct_and_total():
    def check(P):
        c, t = P.to_tensor(0, dtype="int32"), P.to_tensor(0, dtype="int32")
        acc = P.metric.accuracy(P.to_tensor(SCORES), P.to_tensor(LABELS), k=2, correct=c, total=t)
        return obs(acc), obs(c), obs(t), c.inplace_version, t.inplace_version

    assert both(check)[1][1] == 4


def test_accuracy_rejects_paddles_bad_labels():
    def check(P):
        x = P.to_tensor(SCORES)
        return [raised(lambda: P.metric.accuracy(x, P.to_tensor([1, 0, 0, 2, 1]))),
                raised(lambda: P.metric.accuracy(x, P.to_tensor([[1], [0]]))),
                raised(lambda: P.metric.accuracy(x, P.to_tensor([[1.0]] * 5)))]

    assert all(e[1] == "ValueError" for e in both(check))


@pytest.mark.parametrize("label", [LABELS, [1, 0, 0, 2, 1],
                                   np.eye(3, dtype="float32")[[1, 0, 0, 2, 1]].tolist()])
def test_accuracy_metric_compute_update_accumulate_reset(label):
    def check(P):
        m = P.metric.Accuracy(topk=(1, 2), name="a")
        seen = []
        for _ in range(2):
            correct = m.compute(P.to_tensor(SCORES), P.to_tensor(label))
            seen += [obs(correct), obs(m.update(correct)), obs(m.accumulate())]
        seen.append(m.name())
        m.reset()
        seen += [obs(m.accumulate()), m.total, m.count]
        one = P.metric.Accuracy()
        seen += [obs(one.update(one.compute(P.to_tensor(SCORES), P.to_tensor(label)))),
                 one.name(), obs(one.accumulate())]
        return seen

    both(check)


def test_precision_and_recall_round_predictions_their_own_way():
    preds = np.array([0.1, 0.5, 0.7, 0.5, 0.9, 0.2, 0.6, 1.5], "float32")
    labels = np.array([0, 1, 1, 0, 0, 1, 1, 1], "int64")

    def check(P):
        out = []
        for cls in (P.metric.Precision, P.metric.Recall):
            m = cls()
            m.update(preds, labels)
            m.update(P.to_tensor(preds[:3]), P.to_tensor(labels[:3]))
            out += [m.name(), obs(m.accumulate())]
            m.reset()
            out += [obs(m.accumulate()),
                    raised(lambda: m.update([0.5], labels)),
                    raised(lambda: m.update(preds, [1]))]
        return out

    both(check)


@pytest.mark.parametrize("num_thresholds", [4095, 7])
def test_auc_buckets_the_positive_column_as_paddle(num_thresholds):
    rng = np.random.default_rng(1)
    p1 = rng.random(40)
    preds = np.stack([1 - p1, p1], axis=1)
    labels = (rng.random(40) < p1).astype("int64").reshape(-1, 1)

    def check(P):
        m = P.metric.Auc(num_thresholds=num_thresholds)
        m.update(preds[:25], labels[:25])
        m.update(P.to_tensor(preds[25:]), P.to_tensor(labels[25:]))
        out = [m.name(), obs(m.accumulate())]
        m.reset()
        return out + [obs(m.accumulate()), raised(lambda: m.update([[0.1, 0.9]], labels))]

    both(check)


def test_metric_base_is_abstract_and_compute_passes_through():
    def check(P):
        class Counting(P.metric.Metric):
            def reset(self):
                pass

            def update(self, *args):
                pass

            def accumulate(self):
                return 0

            def name(self):
                return "n"

        return raised(lambda: P.metric.Metric()), Counting().compute(1, 2)

    both(check)
