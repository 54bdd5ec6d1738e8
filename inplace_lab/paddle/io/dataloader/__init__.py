"""Paddle's ``paddle.io.dataloader`` package: datasets, samplers, collate functions."""
from __future__ import annotations

from inplace_lab.utils.data.worker import get_worker_info  # noqa: F401 (same WorkerInfo fields)

from . import collate  # noqa: F401
from .dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset,  # noqa: F401
                      IterableDataset, Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, DistributedBatchSampler, RandomSampler, Sampler,  # noqa: F401
                      SequenceSampler, SubsetRandomSampler, WeightedRandomSampler)
