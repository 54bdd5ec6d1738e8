"""``paddle.io`` datasets as Paddle 3.3.1 defines them (its assertion texts, its RNG).

These are plain Python in Paddle too, so they are written out here rather than borrowed
from ``inplace_lab.utils.data``: Paddle's ``Dataset`` has no ``__add__``, its
``TensorDataset`` takes ONE list of tensors (torch's takes ``*tensors``), and
``random_split`` draws its permutation from ``paddle.randperm`` (so ``paddle.seed(s)``
gives Paddle's split: rng.PaddleGenerator).
"""
from __future__ import annotations

import bisect
import math
import warnings


class Dataset:
    """A map-style dataset: ``__getitem__(idx)`` and ``__len__()``."""

    def __init__(self) -> None:
        pass

    def __getitem__(self, idx):
        raise NotImplementedError(f"'__getitem__' not implement in class {type(self).__name__}")

    def __len__(self):
        raise NotImplementedError(f"'__len__' not implement in class {type(self).__name__}")


class IterableDataset(Dataset):
    """A stream of samples: only ``__iter__``; indexing and ``len`` are errors."""

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' not implement in class {type(self).__name__}")

    def __getitem__(self, idx):
        raise RuntimeError("'__getitem__' should not be called for IterableDataset"
                           f"{type(self).__name__}")

    def __len__(self):
        raise RuntimeError("'__len__' should not be called for IterableDataset"
                           f"{type(self).__name__}")


class TensorDataset(Dataset):
    """``TensorDataset([x, y])[i] == (x[i], y[i])``: views of the stored tensors."""

    def __init__(self, tensors) -> None:
        assert all(t.shape[0] == tensors[0].shape[0] for t in tensors), \
            "tensors not have same shape of the 1st dimension"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


def _to_list(value):
    if value is None:
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


class ComposeDataset(Dataset):
    """Samples of equally long datasets joined field by field into one tuple."""

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "input datasets should not be empty"
        for i, dataset in enumerate(self.datasets):
            assert isinstance(dataset, Dataset), "each input dataset should be paddle.io.Dataset"
            assert not isinstance(dataset, IterableDataset), \
                "paddle.io.IterableDataset not supported"
            if i > 0:
                assert len(dataset) == len(self.datasets[i - 1]), \
                    "lengths of datasets should be same"

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        sample = []
        for dataset in self.datasets:
            sample.extend(_to_list(dataset[idx]))
        return tuple(sample)


class ChainDataset(IterableDataset):
    """Iterable datasets streamed one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "input datasets should not be empty"
        for dataset in self.datasets:
            assert isinstance(dataset, IterableDataset), \
                "ChainDataset only support paddle.io.IterableDataset"

    def __iter__(self):
        for dataset in self.datasets:
            yield from dataset


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Non-overlapping ``Subset``s of the given lengths (or fractions summing to 1).

    ``generator`` is accepted and ignored, as in Paddle: the permutation comes from
    ``paddle.randperm``.
    """
    from ... import randperm

    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(len(dataset) * frac)))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              f"This might result in an empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths)).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[offset:offset + length]))
        offset += length
    return out


class ConcatDataset(Dataset):
    """Map-style datasets one after the other; negative indices count from the end."""

    @staticmethod
    def cumsum(sequence):
        r, s = [], 0
        for e in sequence:
            s += len(e)
            r.append(s)
        return r

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), \
                "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[d][idx if d == 0 else idx - self.cumulative_sizes[d - 1]]
