"""What runs inside a DataLoader worker process, and how its errors reach the main process.

A worker is a child process (``fork`` where the platform has it, as torch's default on
Linux; ``spawn`` elsewhere, so everything here is a module-level function of picklable
arguments). It seeds Python's ``random`` and inplace_lab's generator with ``base_seed +
worker_id``, calls ``worker_init_fn(worker_id)``, then loops: take ``(epoch, batch_number,
indices)`` from its own index queue, fetch the samples, collate them (in the worker, as
torch does, so ``get_worker_info()`` works inside ``collate_fn``) and put the batch on the
shared result queue. The batch crosses as plain pickle bytes (``serialization``: data
copied, not the queue's shared-memory reducer, whose segment dies with the worker's last
tensor), so the main process receives fresh inplace_lab tensors in its own memory (own
storage, version 0), never views of the worker's dataset.

An exception is not raised in the worker: it is wrapped (``ExceptionWrapper``, the type
and the formatted traceback) and sent as the batch; the main process re-raises it as
torch does: ``ValueError("Caught ValueError in DataLoader worker process 0.\\nOriginal
Traceback (most recent call last): ...")``.
"""
from __future__ import annotations

import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

from .dataset import IterableDataset

# How often (seconds) a worker waiting for indices checks the done event and that its
# parent is still alive (torch waits MP_STATUS_CHECK_INTERVAL = 5 s; shorter here so a
# pool shut down from a garbage-collected cycle, whose queues may already be closed, lets
# its workers go at once).
STATUS_CHECK_INTERVAL = 0.2


@dataclass(frozen=True)
class WorkerInfo:
    """``get_worker_info()`` inside a worker: its id, the number of workers, its seed and
    its own copy of the dataset (a copy: changes to it stay in that worker)."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """This worker's ``WorkerInfo``; ``None`` in the main process (torch's answer)."""
    return _worker_info


class KeyErrorMessage(str):
    """A KeyError prints its message with repr(); this keeps the traceback readable."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception caught in a worker, in a form that pickles (type + formatted traceback)."""

    def __init__(self, exc_info=None, where: str = "in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the worker's exception type with torch's wrapper text."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - a class whose constructor wants other arguments
            raise RuntimeError(msg) from None
        raise exception


def fetch(dataset, indices, auto_collation, collate_fn):
    """One batch of a map-style dataset: the samples at ``indices`` collated (through the
    dataset's ``__getitems__`` when it has one, as torch), or, without auto-collation
    (``batch_size=None``), one sample passed through ``collate_fn`` (``default_convert``)."""
    if auto_collation:
        getitems = getattr(dataset, "__getitems__", None)
        data = getitems(indices) if getitems else [dataset[i] for i in indices]
        return collate_fn(data)
    return collate_fn(dataset[indices[0]])


class IterableFetcher:
    """Batches pulled from one pass over an ``IterableDataset`` (torch's
    ``_IterableDatasetFetcher``): ``fetch`` takes ``len(indices)`` items (the indices are
    placeholders), raises ``StopIteration`` once the stream is exhausted, or on a short
    last batch under ``drop_last``."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, \
            drop_last
        self.ended = False

    def fetch(self, indices):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in indices:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(indices)):
            raise StopIteration
        return self.collate_fn(data)


class StreamRequest(list):
    """A batch request to a worker over an IterableDataset: ``batch_size`` placeholder
    indices, and whether a short last batch is dropped (the pool's worker arguments are
    the map-style ones, so the flag travels with the request)."""

    def __init__(self, n, drop_last):
        super().__init__([None] * n)
        self.drop_last = drop_last


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """What a worker sends when its copy of an IterableDataset is exhausted: the main
    process stops giving that worker batches (torch's ``_IterableDatasetStopIteration``)."""

    worker_id: int


def _parent_alive(parent_pid) -> bool:
    import os

    return os.getppid() == parent_pid


def worker_loop(dataset, index_queue, data_queue, done_event, collate_fn, auto_collation, seed,
                init_fn, worker_id, num_workers, parent_pid):
    """The body of worker ``worker_id``: until it reads ``None``, ``done_event`` is set or
    its parent is gone. Over an ``IterableDataset`` it iterates its own copy (one pass per
    epoch), answers ``IterableDatasetStopIteration`` when the pass ends, and then ignores
    that epoch's further tasks."""
    global _worker_info
    import inplace_lab

    try:
        random.seed(seed)
        inplace_lab.manual_seed(seed)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        init_error = None
        iterable = isinstance(dataset, IterableDataset)
        fetcher, fetcher_epoch, ended = None, None, False
        try:
            if init_fn is not None:
                init_fn(worker_id)
        except Exception:  # noqa: BLE001 - any error is the user's, reported in the main process
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        while True:
            try:
                task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if done_event.is_set() or not _parent_alive(parent_pid):
                    break
                continue
            if task is None or done_event.is_set():  # the main process is done with us
                break
            epoch, number, indices = task
            if iterable and fetcher_epoch != epoch:  # a new epoch: a new pass over the stream
                fetcher, fetcher_epoch, ended = None, epoch, False
            if iterable and ended:
                continue  # (torch: nothing more from this worker this epoch)
            if init_error is not None:  # torch reports a failed worker_init_fn on its first batch
                data, init_error = init_error, None
            else:
                try:
                    if not iterable:
                        data = fetch(dataset, indices, auto_collation, collate_fn)
                    else:
                        if fetcher is None:
                            fetcher = IterableFetcher(dataset, auto_collation, collate_fn,
                                                      getattr(indices, "drop_last", False))
                        data = fetcher.fetch(indices)
                except StopIteration:
                    data, ended = IterableDatasetStopIteration(worker_id), True
                except Exception:  # noqa: BLE001 - reported in the main process
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            try:
                payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # noqa: BLE001 - the batch does not pickle: say so in the main one
                payload = pickle.dumps(ExceptionWrapper(
                    where=f"in DataLoader worker process {worker_id}"))
            del data
            data_queue.put((epoch, number, payload))
    except KeyboardInterrupt:
        pass
    if done_event.is_set():  # nobody reads what is still queued: exit without flushing it
        data_queue.cancel_join_thread()
        data_queue.close()
