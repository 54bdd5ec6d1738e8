"""``paddle.io``: Paddle 3.3.1's datasets, samplers and DataLoader, laid out as Paddle's.

``default_collate_fn`` is not a ``paddle.io`` name in Paddle either: it lives at
``paddle.io.dataloader.collate.default_collate_fn``, here too. ``get_worker_info`` is
inplace_lab's (``None`` in the main process; id, num_workers, seed, dataset in a worker).
"""
from __future__ import annotations

from . import dataloader  # noqa: F401
from .dataloader import (BatchSampler, ChainDataset, ComposeDataset, ConcatDataset,  # noqa: F401
                         Dataset, DistributedBatchSampler, IterableDataset, RandomSampler,
                         Sampler, SequenceSampler, Subset, SubsetRandomSampler, TensorDataset,
                         WeightedRandomSampler, get_worker_info, random_split)
from .reader import DataLoader  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "BatchSampler", "DistributedBatchSampler", "DataLoader", "get_worker_info", "Sampler",
           "SequenceSampler", "RandomSampler", "WeightedRandomSampler", "random_split", "Subset",
           "SubsetRandomSampler", "ConcatDataset"]
