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
    """One batch: the samples at ``indices`` collated, or one sample (``batch_size=None``)."""
    if auto_collation:
        return collate_fn([dataset[i] for i in indices])
    return dataset[indices[0]]


def _parent_alive(parent_pid) -> bool:
    import os

    return os.getppid() == parent_pid


def worker_loop(dataset, index_queue, data_queue, done_event, collate_fn, auto_collation, seed,
                init_fn, worker_id, num_workers, parent_pid):
    """The body of worker ``worker_id``: until it reads ``None``, ``done_event`` is set or
    its parent is gone."""
    global _worker_info
    import inplace_lab

    try:
        random.seed(seed)
        inplace_lab.manual_seed(seed)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        init_error = None
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
            if init_error is not None:  # torch reports a failed worker_init_fn on its first batch
                data, init_error = init_error, None
            else:
                try:
                    data = fetch(dataset, indices, auto_collation, collate_fn)
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
