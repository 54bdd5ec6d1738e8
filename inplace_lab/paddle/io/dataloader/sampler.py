"""``paddle.io`` samplers: which indices, in which order, in which batches.

Paddle's ``RandomSampler`` (and so ``DataLoader(shuffle=True)``) and
``WeightedRandomSampler`` draw from numpy's GLOBAL generator, not from ``paddle.seed``:
``np.random.seed(s)`` gives exactly Paddle's order here. ``SubsetRandomSampler`` uses
``paddle.randperm``, Paddle's draws: ``paddle.seed(s)`` gives Paddle's order.
``DistributedBatchSampler`` is single-process: ``num_replicas`` defaults to 1, ``rank``
to 0, but explicit values shard as Paddle does.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .dataset import IterableDataset


class Sampler:
    """Base class: ``__iter__`` yields indices (``__len__`` optional)."""

    def __init__(self, data_source=None) -> None:
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError


class SequenceSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A numpy-global random order (with or without replacement), or a given generator's."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None) -> None:
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(self.replacement, bool):
            raise TypeError("expect boolean value for replacement, but got "
                            f"replacement={self.replacement}")
        if not self.replacement and self.num_samples > len(self.data_source):
            raise ValueError(
                "num_samples should be smaller than or equal to length of data_source when "
                f"replacement is False, but got num_samples: {self.num_samples} > data_source: "
                f"{len(self.data_source)}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer, "
                             f"but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        if self.generator:
            for _ in range(self.num_samples):
                try:
                    yield next(self.generator)
                except StopIteration:
                    return
            return
        n = len(self.data_source)
        yield from np.random.choice(np.arange(n), self.num_samples,
                                    replace=self.replacement).tolist()

    def __len__(self):
        return self.num_samples


def _weighted_sample(weights, num_samples, replacement=True):
    if hasattr(weights, "numpy"):
        weights = weights.numpy()
    if isinstance(weights, (list, tuple)):
        weights = np.array(weights)
    assert isinstance(weights, np.ndarray), \
        "weights should be paddle.Tensor, numpy.ndarray, list or tuple"
    assert len(weights.shape) <= 2, "weights should be a 1-D or 2-D array"
    weights = weights.reshape((-1, weights.shape[-1]))
    assert np.all(weights >= 0.0), "weights should be positive value"
    assert not np.any(weights == np.inf), "weights should not be INF"
    non_zeros = np.sum(weights > 0.0, axis=1)
    assert np.all(non_zeros > 0), "weights should have positive values"
    if not replacement:
        assert np.all(non_zeros >= num_samples), (
            "weights positive value number should not less than num_samples when "
            "replacement=False")
    weights = weights / weights.sum(axis=1)
    return np.array([np.random.choice(weights.shape[1], num_samples, replacement, w)
                     for w in weights])


class WeightedRandomSampler(Sampler):
    """Indices drawn with probability proportional to ``weights`` (one row per 2-D row)."""

    def __init__(self, weights, num_samples, replacement=True) -> None:
        if not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value")
        self.weights, self.num_samples, self.replacement = weights, num_samples, replacement

    def __iter__(self):
        return iter(_weighted_sample(self.weights, self.num_samples,
                                     self.replacement).reshape(-1).tolist())

    def __len__(self):
        shape = np.shape(self.weights) if isinstance(self.weights, (list, tuple)) \
            else tuple(self.weights.shape)
        return self.num_samples * (int(np.prod(shape)) // shape[-1])


class SubsetRandomSampler(Sampler):
    """``indices`` in a ``paddle.randperm`` order."""

    def __init__(self, indices) -> None:
        if len(indices) == 0:
            raise ValueError("The length of `indices` in SubsetRandomSampler should be "
                             "greater than 0.")
        self.indices = indices

    def __iter__(self):
        from ... import randperm

        for i in randperm(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from a sampler (or a dataset, shuffled or in order)."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1,
                 drop_last=False) -> None:
        if dataset is None:
            assert sampler is not None, "either dataset or sampler should be set"
            assert isinstance(sampler, (Sampler, Iterable)), \
                f"sampler should be either paddle.io.Sampler or Iterable, but got {type(sampler)}"
            assert not shuffle, "shuffle should be False when sampler is set"
            self.sampler = sampler
        else:
            assert not isinstance(dataset, IterableDataset), \
                "dataset should not be a paddle.io.IterableDataset"
            assert sampler is None, "should not set both dataset and sampler"
            assert isinstance(shuffle, bool), \
                f"shuffle should be a boolean value, but got {type(shuffle)}"
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        assert isinstance(batch_size, int) and batch_size > 0, \
            f"batch_size should be a positive integer, but got {batch_size}"
        self.batch_size, self.shuffle = batch_size, shuffle
        assert isinstance(drop_last, bool), \
            f"drop_last should be a boolean value, but got {type(drop_last)}"
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if not self.drop_last and batch:
            yield batch

    def __len__(self):
        n = len(self.sampler) + int(not self.drop_last) * (self.batch_size - 1)
        return n // self.batch_size


class _InfiniteIterableSampler(Sampler):
    """For an ``IterableDataset``: endless batches of ``None`` placeholders."""

    def __init__(self, dataset, batch_size=1) -> None:
        assert isinstance(dataset, IterableDataset), \
            "dataset should be an instance of paddle.io.IterableDataset"
        self.dataset, self.batch_size = dataset, batch_size

    def __iter__(self):
        while True:
            yield [None] * self.batch_size


class DistributedBatchSampler(BatchSampler):
    """This rank's share of the (padded, optionally epoch-seeded shuffled) indices."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False) -> None:
        self.dataset = dataset
        assert isinstance(batch_size, int) and batch_size > 0, \
            "batch_size should be a positive integer"
        self.batch_size = batch_size
        assert isinstance(shuffle, bool), "shuffle should be a boolean value"
        self.shuffle = shuffle
        assert isinstance(drop_last, bool), "drop_last should be a boolean number"
        if num_replicas is not None:
            assert isinstance(num_replicas, int) and num_replicas > 0, \
                "num_replicas should be a positive integer"
        self.nranks = 1 if num_replicas is None else num_replicas
        if rank is not None:
            assert isinstance(rank, int) and rank >= 0, "rank should be a non-negative integer"
        self.local_rank = 0 if rank is None else rank
        self.drop_last = drop_last
        self.epoch = 0
        self.num_samples = int(math.ceil(len(self.dataset) * 1.0 / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def __iter__(self):
        indices = list(range(len(self.dataset)))
        pad = self.total_size - len(indices)
        indices += (indices * math.ceil(pad / len(indices)))[:pad] if pad > len(indices) \
            else indices[:pad]
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            indices = self._this_rank(indices)
        batch = []
        for idx in indices:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if not self.drop_last and batch:
            yield batch

    def _this_rank(self, indices):
        """Whole batches round-robin over ranks, then an equal slice of the tail each."""
        out = []
        last = self.total_size % (self.batch_size * self.nranks)
        last_local = last // self.nranks
        for i in range(self.local_rank * self.batch_size, len(indices) - last,
                       self.batch_size * self.nranks):
            out.extend(indices[i:i + self.batch_size])
        tail = indices[len(indices) - last:]
        out.extend(tail[self.local_rank * last_local:(self.local_rank + 1) * last_local])
        return out

    def __len__(self):
        n = self.num_samples + int(not self.drop_last) * (self.batch_size - 1)
        return n // self.batch_size

    def set_epoch(self, epoch):
        self.epoch = epoch
