"""``inplace_lab.utils.data``: Dataset, TensorDataset, DataLoader, in-place augmentation."""
from __future__ import annotations

from . import transforms  # noqa: F401
from .dataloader import DataLoader, Generator, default_collate  # noqa: F401
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset  # noqa: F401
from .split import random_split  # noqa: F401
from .worker import WorkerInfo, get_worker_info  # noqa: F401
from .sampler import *  # noqa: E402,F401,F403  (Sampler family, IterableDataset, ChainDataset ...)
