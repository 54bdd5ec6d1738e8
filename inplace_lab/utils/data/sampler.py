"""Samplers: the order in which a ``DataLoader`` visits a map-style dataset.

A sampler is just an iterable of indices (``BatchSampler``: of lists of indices), as in
torch 2.13: ``SequentialSampler`` (0, 1, 2...), ``RandomSampler`` (a permutation, or draws
with replacement), ``SubsetRandomSampler`` (a permutation of given indices),
``WeightedRandomSampler`` (draws in proportion to weights) and ``BatchSampler`` (cuts any
sampler into batches). ``DataLoader(shuffle=True)`` is ``RandomSampler`` under a
``BatchSampler``; both are visible as ``loader.sampler`` and ``loader.batch_sampler``.

The random ones draw as torch's do, from torch's CPU stream (``rng``): a ``Generator``
passed in, or (``RandomSampler``) a new one seeded from the default generator each epoch, so
``torch.manual_seed(s)`` gives torch's order (``WeightedRandomSampler``: torch's multinomial
kernel). Their argument checks and errors are torch's.
"""
from __future__ import annotations

import itertools
import numbers

from ... import backend, creation, rng

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


Generator = rng.Generator  # torch.Generator


_gen_of = creation.cpu_generator  # the rng.Generator a generator= names (None: the default)


def _randperm(n, generator) -> list:
    return _gen_of(generator).randperm(n).tolist()


def _fresh_generator():
    """What torch's RandomSampler does without a generator: seed a new one from the default
    stream (``torch.empty((), dtype=torch.int64).random_()``)."""
    seed = int(rng.default_generator.random_full(1, "int64")[0])
    return Generator().manual_seed(seed)


class Sampler:
    """Base class: a sampler provides ``__iter__`` (and, usually, ``__len__``).

    No default ``__len__``: ``len()`` of a sampler without one raises ``TypeError``, so
    ``list(sampler)`` still works (it falls back to iterating), as in torch.
    """

    def __init__(self, data_source=None) -> None:  # (torch accepts and ignores it)
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``, every epoch."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _positive_int(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


class RandomSampler(Sampler):
    """A fresh permutation each epoch; with ``replacement=True``, ``num_samples`` uniform
    draws. Without replacement and ``num_samples > len``, whole permutations are chained
    and the last one cut (torch's rule)."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None,
                 generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        # the dataset's size may change at run time: read it when asked
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:  # (torch: randint(high=n) 32 at a time, then the rest)
            for k in [32] * (self.num_samples // 32) + [self.num_samples % 32]:
                yield from _gen_of(g).random_from_to(k, "int64", 0, n).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _randperm(n, g)
        yield from _randperm(n, g)[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a fresh random order each epoch (no replacement)."""

    def __init__(self, indices, generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability ``weights[i] / sum(weights)``
    (``torch.multinomial``: without replacement, a drawn index is not drawn again)."""

    def __init__(self, weights, num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        _positive_int("num_samples", num_samples)
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = creation.tensor(_host(weights), dtype=__import__("inplace_lab").float64)
        if weights_tensor.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):  # (torch.multinomial(weights, n, replacement, generator=...))
        from ...ops.table import OPS
        from ...ops import dispatch

        yield from dispatch.call(OPS["multinomial"], (self.weights, self.num_samples),
                                 {"replacement": self.replacement,
                                  "generator": _gen_of(self.generator)}).tolist()

    def __len__(self) -> int:
        return self.num_samples


def _host(weights):
    from ...tensor import Tensor

    return weights.detach().cpu().numpy() if isinstance(weights, Tensor) else weights


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless
    ``drop_last``)."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        _positive_int("batch_size", batch_size)
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        if self.drop_last:
            yield from ([*b] for b in zip(*[it] * self.batch_size))
            return
        batch = [*itertools.islice(it, self.batch_size)]
        while batch:
            yield batch
            batch = [*itertools.islice(it, self.batch_size)]

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
