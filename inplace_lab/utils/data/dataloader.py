"""``DataLoader``: batching, seeded shuffling, ``drop_last``, collate, ``pin_memory``.

Shuffling draws torch's permutation (``rng``) from a ``Generator`` (``torch.Generator``), or
from a new one seeded from the global generator ``manual_seed`` sets: the same seed gives
torch's batches. ``pin_memory=True`` copies each batch into page-locked
host memory (cupy's pinned allocator) when a real GPU is present, so
``batch.to("cuda", non_blocking=True)`` can overlap; without one it is a no-op with
PyTorch's warning.

``num_workers=N`` loads batches in N worker processes (``pool.py``, ``worker.py``): the
same batches in the same order as ``num_workers=0``, ``worker_init_fn``,
``get_worker_info()``, ``prefetch_factor``, ``persistent_workers`` and ``timeout`` as
torch has them, and a worker's exception re-raised here with torch's wrapper text.
As in torch, every epoch first draws a base seed from the loader's generator (or the
global one), then the shuffle permutation: worker ``i`` seeds with ``base_seed + i``.

As in torch 2.13, the loader always holds a ``sampler`` (``SequentialSampler``,
``RandomSampler`` for ``shuffle=True``, or the one given) and, when batching, a
``batch_sampler`` (a ``BatchSampler`` over it, or the one given); ``sampler=``,
``batch_sampler=`` and ``shuffle``/``batch_size``/``drop_last`` exclude each other with
torch's errors. Over an ``IterableDataset`` there are no indices: the loader pulls
``batch_size`` items at a time from the stream (each worker from its own copy, batches
taken round robin from the workers still running), and ``len(loader)`` is
``len(dataset)`` batched, with torch's warning if the stream turns out longer.
"""
from __future__ import annotations

import copy
import itertools
import math
import numbers
import re
import warnings
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence

from ... import backend, creation, rng
from ...tensor import Tensor
from .dataset import IterableDataset
from .sampler import BatchSampler, Generator, RandomSampler, Sampler, SequentialSampler, _gen_of
from .worker import (ExceptionWrapper, IterableDatasetStopIteration, IterableFetcher,
                     StreamRequest, fetch)

__all__ = ["DataLoader", "Generator", "default_collate", "default_convert"]

def default_collate(batch):
    """Stack samples: tensors -> one new tensor, numbers -> a tensor, tuples/dicts per field."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return creation_stack(batch)
    if isinstance(elem, backend.np.ndarray):
        return creation_stack([creation.tensor(b) for b in batch])
    if isinstance(elem, bool):
        return creation.tensor(batch)
    if isinstance(elem, numbers.Integral):
        return creation.tensor(batch)
    if isinstance(elem, numbers.Real):
        return creation.tensor(batch, dtype=__import__("inplace_lab").float64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, Mapping):
        return type(elem)({k: default_collate([b[k] for b in batch]) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        out = [default_collate(list(s)) for s in zip(*batch)]
        return tuple(out) if isinstance(elem, tuple) else out
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(elem)}")


_NP_STR_OBJ = re.compile(r"[SaUO]")


def default_convert(data):
    """``batch_size=None``'s collate: numpy arrays and numpy scalars become tensors (an
    array shares its memory, as ``torch.as_tensor``), containers are converted element by
    element (a plain tuple becomes a list, as torch), everything else is left alone."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray":
            if _NP_STR_OBJ.search(data.dtype.str) is not None:
                return data
            if all(st >= 0 for st in data.strides):
                return creation.from_numpy(data)
        return creation.tensor(data)
    if isinstance(data, Mapping):
        try:
            if isinstance(data, MutableMapping):
                clone = copy.copy(data)
                clone.update({k: default_convert(data[k]) for k in data})
                return clone
            return elem_type({k: default_convert(data[k]) for k in data})
        except TypeError:
            return {k: default_convert(data[k]) for k in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def creation_stack(tensors):
    import inplace_lab as il

    return il.stack(list(tensors), 0)


def _pin(obj):
    if isinstance(obj, Tensor):
        return obj.pin_memory()
    if isinstance(obj, Mapping):
        return type(obj)({k: _pin(v) for k, v in obj.items()})
    if isinstance(obj, tuple):
        return tuple(_pin(v) for v in obj)
    if isinstance(obj, list):
        return [_pin(v) for v in obj]
    return obj


def _can_pin() -> bool:
    """Pinned memory needs a real accelerator (cupy with a CUDA device), not the simulated one."""
    return backend.is_real_gpu(backend.device("cuda:0"))


class _InfiniteConstantSampler(Sampler):
    """The "sampler" of an IterableDataset: ``None`` forever (the stream decides the end)."""

    def __iter__(self):
        while True:
            yield None


_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
           "persistent_workers")


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True, **kwargs):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.num_workers, self.timeout, self.worker_init_fn = num_workers, timeout, worker_init_fn
        self.prefetch_factor = prefetch_factor
        self.multiprocessing_context = multiprocessing_context
        self.in_order, self.pin_memory_device = in_order, pin_memory_device
        self._pool = None  # persistent_workers: the pool kept across epochs
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:  # torch's default samplers
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called = None  # len(dataset) when len(loader) was asked
        self.pin_memory = pin_memory
        if pin_memory and not _can_pin():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                          "device pinned memory won't be used.", UserWarning, stacklevel=2)
            self.pin_memory = False  # a no-op without a real GPU: plain host memory
        self.__dict__["_initialized"] = True

    def __setattr__(self, attr, val):
        if self.__dict__.get("_initialized") and attr in _FROZEN:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _batches(self):
        """The index lists of one epoch (one-element lists without auto-collation)."""
        if self._auto_collation:
            yield from self.batch_sampler
        else:
            yield from ([i] for i in self.sampler)

    def __iter__(self):
        # torch draws it first, every epoch: torch.empty((), dtype=int64).random_(generator=)
        base_seed = int(_gen_of(self.generator).random_full(1, "int64")[0])
        if self.num_workers == 0:
            it = self._stream() if self._iterable else self._single_process()
        else:
            from .pool import MultiProcessingIter, WorkerPool

            pool = self._pool
            if pool is None or not pool.alive:
                pool = WorkerPool(self, base_seed)
                if self.persistent_workers:
                    self._pool = pool
            it = StreamIter(self, pool) if self._iterable else \
                MultiProcessingIter(self, pool, self._batches())
        if self._iterable and self._IterableDataset_len_called is not None:
            return self._warn_past_len(it, self._IterableDataset_len_called)
        return it

    def _single_process(self):
        for b in self._batches():
            yield self._finish_batch(fetch(self.dataset, b, self._auto_collation,
                                           self.collate_fn))

    def _stream(self):
        fetcher = IterableFetcher(self.dataset, self._auto_collation, self.collate_fn,
                                  self.drop_last)
        for index in self._index_sampler:
            try:
                data = fetcher.fetch(index)
            except StopIteration:
                return
            yield self._finish_batch(data)

    def _warn_past_len(self, it, length):
        """torch's warning when an IterableDataset yields more batches than its len()."""
        for n, data in enumerate(it, 1):
            if n > length:
                msg = (f"Length of IterableDataset {self.dataset} was reported to be {length}"
                       f"(when accessing len(dataloader)), but {n} samples have been fetched. ")
                if self.num_workers > 0:
                    msg += ("For multiprocessing data-loading, this could be caused by not "
                            "properly configuring the IterableDataset replica at each worker. "
                            "Please see https://pytorch.org/docs/stable/data.html#torch.utils."
                            "data.IterableDataset for examples.")
                warnings.warn(msg, stacklevel=2)
            yield data

    def _finish_batch(self, out):
        """What the main process does to every batch: pin it when asked."""
        return _pin(out) if self.pin_memory else out

    def __del__(self):
        pool = self.__dict__.get("_pool")
        if pool is not None:
            pool.shutdown()

    def __len__(self):
        if self._iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:  # no custom samplers with an IterableDataset
                length = length // self.batch_size if self.drop_last \
                    else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class StreamIter:
    """One epoch of ``num_workers`` workers over an IterableDataset (torch's in-order
    ``_MultiProcessingDataLoaderIter``): batch requests go round robin to the workers still
    running; a worker whose copy is exhausted answers ``IterableDatasetStopIteration`` and
    gets no more; results come back in request order, skipping the requests an exhausted
    worker will never answer. The epoch ends when every worker is exhausted."""

    def __init__(self, loader, pool):
        pool.epoch += 1
        self.loader, self.pool, self.epoch = loader, pool, pool.epoch
        self.size = loader.batch_size if loader._auto_collation else 1
        self.active = [True] * pool.n
        self.cycle = itertools.cycle(range(pool.n))
        self.send_idx = self.rcvd_idx = 0
        self.worker_of, self.early = {}, {}
        for _ in range(loader.prefetch_factor * pool.n):
            self._send()

    def _send(self):
        for _ in range(self.pool.n):  # the next worker still running, if any
            w = next(self.cycle)
            if self.active[w]:
                break
        else:
            return
        request = StreamRequest(self.size, self.loader.drop_last)
        self.pool.index_queues[w].put((self.epoch, self.send_idx, request))
        self.worker_of[self.send_idx] = w
        self.send_idx += 1

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            while self.rcvd_idx < self.send_idx:
                if self.rcvd_idx in self.early or self.active[self.worker_of[self.rcvd_idx]]:
                    break
                del self.worker_of[self.rcvd_idx]  # its worker is exhausted: never answered
                self.rcvd_idx += 1
            else:
                self._finish()
                raise StopIteration
            if self.rcvd_idx in self.early:
                return self._process(self.early.pop(self.rcvd_idx))
            idx, data = self.pool.get(self.epoch)
            if isinstance(data, IterableDatasetStopIteration):
                self.active[data.worker_id] = False
                self._send()
                continue
            if idx != self.rcvd_idx:
                self.early[idx] = data
                continue
            return self._process(data)

    def _process(self, data):
        del self.worker_of[self.rcvd_idx]
        self.rcvd_idx += 1
        self._send()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return self.loader._finish_batch(data)

    def _finish(self):
        if not self.loader.persistent_workers:
            self.pool.shutdown()

    def __del__(self):
        self._finish()
