"""``paddle.metric``: Paddle 3.3.1's ``accuracy`` and its stateful metrics.

The metrics (``Accuracy``, ``Precision``, ``Recall``, ``Auc``) are numpy bookkeeping in
Paddle too, written out here the same way so their numbers (and their ``np.float64``
return types) are Paddle's. Only ``Accuracy.compute`` works on tensors: it ranks
``pred`` with ``argsort`` (ties keep the lower index first) and compares the top
``maxk`` classes with the label.

``accuracy(input, label, k)`` is the fraction of rows whose label is among the ``k``
largest scores (``paddle.topk``, ties to the lower index): a float32 0-d tensor with
``stop_gradient=True``. Its ``label`` must be ``[N, 1]`` (a ``[N]`` label is Paddle's
ValueError). ``correct``/``total``, when given, receive the counts (``set_value``: the
version does not move, as in Paddle). Paddle also turns them into int32 0-d tensors
whatever they were; here they keep their own shape and dtype (every element = the count).
"""
from __future__ import annotations

import abc

import numpy as np

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


def _paddle():
    import inplace_lab.paddle as paddle

    return paddle


def _is_numpy_(var):
    return isinstance(var, (np.ndarray, np.generic))


def _as_numpy(value, what):
    """A tensor's values, a numpy value as it is; anything else is Paddle's ValueError."""
    if isinstance(value, _paddle().Tensor):
        return np.array(value)
    if not _is_numpy_(value):
        raise ValueError(f"The '{what}' must be a numpy ndarray or Tensor.")
    return value


class Metric(metaclass=abc.ABCMeta):
    """The interface ``paddle.Model`` drives: compute -> update -> accumulate, reset, name."""

    def __init__(self) -> None:
        pass

    @abc.abstractmethod
    def reset(self) -> None:
        raise NotImplementedError(f"function 'reset' not implemented in {type(self).__name__}.")

    @abc.abstractmethod
    def update(self, *args):
        raise NotImplementedError(f"function 'update' not implemented in {type(self).__name__}.")

    @abc.abstractmethod
    def accumulate(self):
        raise NotImplementedError(
            f"function 'accumulate' not implemented in {type(self).__name__}.")

    @abc.abstractmethod
    def name(self):
        raise NotImplementedError(f"function 'name' not implemented in {type(self).__name__}.")

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """Top-k accuracy for every ``k`` in ``topk``, per batch and accumulated."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.topk, self.maxk = topk, max(topk)
        self._init_name(name)
        self.reset()

    def compute(self, pred, label, *args):
        """``[N, maxk]`` float32: 1 where the i-th ranked class is the label."""
        paddle = _paddle()
        pred = paddle.argsort(pred, descending=True)
        pred = pred[..., :self.maxk]  # (Paddle: paddle.slice on the last axis)
        if len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[-1] == 1):
            label = paddle.reshape(label, (-1, 1))
        elif label.shape[-1] != 1:  # one-hot / soft labels
            label = paddle.argmax(label, axis=-1, keepdim=True)
        correct = pred == label.astype(pred.dtype)
        return paddle.cast(correct, dtype="float32")

    def update(self, correct, *args):
        if isinstance(correct, _paddle().Tensor):
            correct = np.array(correct)
        num_samples = np.prod(np.array(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = correct[..., :k].sum()
            accs.append(float(num_corrects) / num_samples)
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self) -> None:
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def _init_name(self, name) -> None:
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in self.topk] if self.maxk != 1 else [name]

    def name(self):
        return self._name


class Precision(Metric):
    """Binary precision ``tp / (tp + fp)``; a prediction counts as 1 from 0.5 up."""

    def __init__(self, name="precision", *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tp = self.fp = 0
        self._name = name

    def update(self, preds, labels) -> None:
        preds = _as_numpy(preds, "preds")
        labels = _as_numpy(labels, "labels")
        preds = np.floor(preds + 0.5).astype("int32")
        for i in range(labels.shape[0]):
            if preds[i] == 1:
                if preds[i] == labels[i]:
                    self.tp += 1
                else:
                    self.fp += 1

    def reset(self) -> None:
        self.tp = self.fp = 0

    def accumulate(self):
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall ``tp / (tp + fn)``; predictions rounded half to even (``np.rint``)."""

    def __init__(self, name="recall", *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tp = self.fn = 0
        self._name = name

    def update(self, preds, labels) -> None:
        preds = _as_numpy(preds, "preds")
        labels = _as_numpy(labels, "labels")
        preds = np.rint(preds).astype("int32")
        for i in range(labels.shape[0]):
            if labels[i] == 1:
                if preds[i] == labels[i]:
                    self.tp += 1
                else:
                    self.fn += 1

    def accumulate(self):
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else 0.0

    def reset(self) -> None:
        self.tp = self.fn = 0

    def name(self):
        return self._name


class Auc(Metric):
    """ROC AUC from ``num_thresholds + 1`` score buckets of the positive-class column.

    ``curve`` is stored but, as in Paddle, the area is always the ROC one.
    """

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._curve, self._num_thresholds, self._name = curve, num_thresholds, name
        self.reset()

    def update(self, preds, labels) -> None:
        labels = _as_numpy(labels, "labels")
        preds = _as_numpy(preds, "preds")
        for i, lbl in enumerate(labels):
            bin_idx = int(preds[i, 1] * self._num_thresholds)
            assert bin_idx <= self._num_thresholds
            if lbl:
                self._stat_pos[bin_idx] += 1.0
            else:
                self._stat_neg[bin_idx] += 1.0

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        tot_pos = tot_neg = auc = 0.0
        for idx in range(self._num_thresholds, -1, -1):
            pos_prev, neg_prev = tot_pos, tot_neg
            tot_pos += self._stat_pos[idx]
            tot_neg += self._stat_neg[idx]
            auc += self.trapezoid_area(tot_neg, neg_prev, tot_pos, pos_prev)
        return auc / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0

    def reset(self) -> None:
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        return self._name


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-``k`` accuracy of ``input`` ``[N, C]`` against ``label`` ``[N, 1]``."""
    paddle = _paddle()
    if len(label.shape) != 2:
        raise ValueError("(InvalidArgument) ShapeError: label's dimensions of AccuracyOp must "
                         f"be 2. But received label's dimensions = {len(label.shape)}, label's "
                         f"shape = {list(label.shape)}")
    if label.dtype not in (paddle.int32, paddle.int64):
        raise ValueError("(InvalidArgument) The type of data we are trying to retrieve (int64) "
                         "does not match the type of data "
                         f"({str(label.dtype).replace('paddle.', '')}) currently contained in "
                         "the container.")
    _, indices = paddle.topk(input, k=k)
    rows = int(indices.shape[0])
    if label.shape[0] != rows:
        raise ValueError(
            "(InvalidArgument) ShapeError: the output's num_rows of AccuracyOp must be the same "
            f"as label's num_rows. But received output's shape = {list(indices.shape)}, label's "
            f"shape = {list(label.shape)}, output's num_rows = {rows}, label's num_rows = "
            f"{label.shape[0]}")
    hits = int((np.array(indices) == np.array(label).astype("int64")[:, :1]).any(axis=1).sum())
    for counter, value in ((correct, hits), (total, rows)):
        if counter is not None:  # Paddle writes the counts into the given tensors
            counter.set_value(np.full(tuple(counter.shape), value))
    return paddle.to_tensor(np.float32(hits / rows if rows else 0.0))
