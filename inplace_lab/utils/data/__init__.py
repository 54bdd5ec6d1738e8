"""``inplace_lab.utils.data``: datasets, samplers, DataLoader, in-place augmentation."""
from __future__ import annotations

from . import transforms  # noqa: F401
from .dataloader import DataLoader, Generator, default_collate, default_convert  # noqa: F401
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset,  # noqa: F401
                      StackDataset, Subset, TensorDataset)
from .split import random_split  # noqa: F401
from .worker import WorkerInfo, get_worker_info  # noqa: F401
from .sampler import *  # noqa: E402,F401,F403  (Sampler, SequentialSampler, RandomSampler ...)
