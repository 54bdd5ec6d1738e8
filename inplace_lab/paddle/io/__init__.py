"""``paddle.io``: Paddle 3.3.1's datasets, samplers and DataLoader (see ``dataloader.py``)."""
from __future__ import annotations

from .dataloader import DataLoader, default_collate_fn, default_convert_fn, get_worker_info  # noqa: F401
from .dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset,  # noqa: F401
                      IterableDataset, Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, DistributedBatchSampler, RandomSampler, Sampler,  # noqa: F401
                      SequenceSampler, SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ComposeDataset", "ConcatDataset", "DataLoader",
           "Dataset", "DistributedBatchSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequenceSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "get_worker_info", "random_split"]
