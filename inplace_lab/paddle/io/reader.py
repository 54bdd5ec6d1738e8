"""``paddle.io.DataLoader`` (``paddle/io/reader.py`` there) over inplace_lab's worker pool.

Batches are made by ``dataloader/collate.py`` (Paddle's structure: lists, dicts, fresh
``stop_gradient`` tensors); ``shuffle=True`` draws from numpy's global generator (see
``dataloader/sampler.py``); ``return_list`` and ``places`` change nothing in dygraph.

``num_workers > 0`` over a map-style dataset reuses ``inplace_lab.utils.data``'s worker
pool (same batches, same order as ``num_workers=0``; collation runs in the workers, the
conversion to tensors in the main process; numpy reseeded per worker as Paddle does).
Over an ``IterableDataset`` the workers are played in this process with Paddle's
semantics (a stream copy per worker, round robin: ``stream_workers.py``). With
``batch_size=None`` a map-style dataset loads in the main process.
"""
from __future__ import annotations

import re

import numpy as np

from inplace_lab.utils.data.pool import MultiProcessingIter, WorkerPool

from .dataloader.collate import default_collate_fn, default_convert_fn, to_tensors
from .dataloader.dataset import IterableDataset
from .dataloader.sampler import BatchSampler, _InfiniteIterableSampler
from .stream_workers import stream_batches, take


class DataLoader:
    """Iterate over a dataset in batches of tensors; see the module docstring."""

    def __init__(self, dataset, feed_list=None, places=None, return_list=True,
                 batch_sampler=None, batch_size=1, shuffle=False, drop_last=False,
                 collate_fn=None, num_workers=0, use_buffer_reader=True, reader_buffer_size=2,
                 prefetch_factor=2, use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        self.return_list, self.collate_fn = return_list, collate_fn
        self.use_buffer_reader, self.reader_buffer_size = use_buffer_reader, reader_buffer_size
        self.prefetch_factor, self.worker_init_fn = prefetch_factor, worker_init_fn
        self.dataset, self.feed_list, self.places = dataset, feed_list, places
        assert num_workers >= 0, "num_workers should be a non-negative value"
        self.num_workers = num_workers
        assert prefetch_factor > 0, "prefetch_factor should be a positive value"
        self.use_shared_memory = use_shared_memory and num_workers > 0
        assert timeout >= 0, "timeout should be a non-negative value"
        self.timeout = timeout
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle:
                raise ValueError(f"IterableDataset not support shuffle, but got shuffle={shuffle}")
            if batch_sampler is not None:
                raise ValueError("IterableDataset expect unspecified batch_sampler")
        if batch_sampler is not None:
            assert batch_size == 1 and not shuffle and not drop_last, \
                "batch_size/shuffle/drop_last should not be set when batch_sampler is given"
            self.batch_sampler, self.batch_size = batch_sampler, None
        elif batch_size is None:
            self.batch_sampler = self.batch_size = None
        else:
            assert batch_size > 0, \
                "batch_size should be None or a positive value when batch_sampler is not given"
            self.batch_size = batch_size
            self.batch_sampler = _InfiniteIterableSampler(dataset, batch_size) if self._iterable \
                else BatchSampler(dataset=dataset, batch_size=batch_size, shuffle=shuffle,
                                  drop_last=drop_last)
        self.drop_last = drop_last
        self.auto_collate_batch = self.batch_sampler is not None
        self.persistent_workers = persistent_workers
        self._pool = None  # persistent_workers: the core pool kept across epochs

    def __len__(self):
        if self._iterable:
            raise ValueError("length of IterableDataset not supported")
        return len(self.batch_sampler) if self.auto_collate_batch else len(self.dataset)

    def __call__(self):
        return self.__iter__()

    def _collate(self):
        if self.auto_collate_batch:
            return self.collate_fn or default_collate_fn
        return self.collate_fn or default_convert_fn

    def __iter__(self):
        if self.num_workers > 0 and self._iterable:
            return stream_batches(self, self._collate(), to_tensors)
        if self.num_workers > 0 and self.auto_collate_batch:
            return self._with_workers()
        return _SingleProcessIter(self)

    def _with_workers(self):
        shim = _PoolView(self)
        pool = self._pool
        if pool is None or not pool.alive:
            # Paddle draws the base seed from numpy's global generator, as here.
            pool = WorkerPool(shim, base_seed=int(np.random.randint(0, 2 ** 31 - 1)))
            if self.persistent_workers:
                self._pool = pool
        return _WorkerIter(shim, pool, iter(self.batch_sampler))

    def __del__(self):
        pool = self.__dict__.get("_pool")
        if pool is not None:
            pool.shutdown()


class _SeedNumpyThen:
    """A worker's first act in Paddle: seed numpy's global generator per worker (so random
    augmentations differ between workers), then run the user's ``worker_init_fn``.

    (The core pool already seeds ``random`` and the tensor generator with ``seed + id``.)
    """

    def __init__(self, init_fn):
        self.init_fn = init_fn

    def __call__(self, worker_id):
        from inplace_lab.utils.data.worker import get_worker_info

        np.random.seed(get_worker_info().seed % 2 ** 32)
        if self.init_fn is not None:
            self.init_fn(worker_id)


class _PoolView:
    """The loader as the core pool expects it (torch's attribute names and meanings)."""

    def __init__(self, loader):
        self.loader = loader
        self.dataset, self.num_workers = loader.dataset, loader.num_workers
        self.timeout, self.worker_init_fn = loader.timeout, _SeedNumpyThen(loader.worker_init_fn)
        self.collate_fn, self.multiprocessing_context = loader._collate(), None
        self.batch_size, self.batch_sampler = loader.batch_size, loader.batch_sampler
        self.prefetch_factor, self.persistent_workers = (loader.prefetch_factor,
                                                         loader.persistent_workers)

    def _finish_batch(self, batch):
        return to_tensors(batch)

    def __len__(self):
        return len(self.loader)


_CORE_WORKER_ERROR = re.compile(r"Caught (\w+) in DataLoader worker process (\d+)\.\nOriginal ",
                                re.S)


class _WorkerIter(MultiProcessingIter):
    """The core pool's epoch, with a worker's error in Paddle's words:
    ``DataLoader worker(1) caught KeyError with message:\n<traceback>``."""

    def __next__(self):
        try:
            return super().__next__()
        except Exception as e:  # noqa: BLE001 - re-raised as the same type
            text = e.args[0] if e.args and isinstance(e.args[0], str) else ""
            m = _CORE_WORKER_ERROR.match(text)
            if m is None:
                raise
            msg = (f"DataLoader worker({m.group(2)}) caught {m.group(1)} with message:\n"
                   f"{text[m.end():]}")
            try:
                err = type(e)(msg)
            except Exception:  # noqa: BLE001 - a type that wants other arguments
                raise e from None
            raise err from None


class _SingleProcessIter:
    """One epoch in the main process: indices -> samples -> collate -> tensors."""

    def __init__(self, loader):
        self.loader = loader
        self._collate = loader._collate()
        if loader.auto_collate_batch:
            self._indices = iter(loader.batch_sampler)
        elif loader._iterable:
            self._indices = iter(_InfiniteIterableSampler(loader.dataset, 1))
        else:
            self._indices = iter(range(len(loader.dataset)))
        self._stream = iter(loader.dataset) if loader._iterable else None

    def __iter__(self):
        return self

    def __len__(self):
        return len(self.loader)

    def __next__(self):
        indices = next(self._indices)
        loader = self.loader
        if self._stream is None:
            data = [loader.dataset[i] for i in indices] if loader.auto_collate_batch \
                else loader.dataset[indices]
        else:
            data = take(self._stream, len(indices) if loader.auto_collate_batch else None,
                        loader.drop_last)
        return to_tensors(self._collate(data))
