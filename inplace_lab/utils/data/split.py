"""``random_split``: PyTorch 2.13's length rules (ints, or fractions summing to 1 with the
remainder dealt round-robin) over one random permutation, cut into ``Subset`` views.

The permutation is torch's ``randperm(sum(lengths), generator=generator)`` (the default
generator when none is given), so a seeded split has torch's indices.
"""
from __future__ import annotations

import itertools
import math
import warnings

from .sampler import _randperm
from .dataset import Subset


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping ``Subset``s of the given lengths."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(len(dataset) * frac))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, n in enumerate(lengths):
            if n == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              "This might result in an empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _randperm(sum(lengths), generator)
    return [Subset(dataset, indices[offset - n:offset])
            for offset, n in zip(itertools.accumulate(lengths), lengths)]
