"""``num_workers > 0`` over an ``IterableDataset``, as Paddle serves it, in this process.

In Paddle every worker iterates ITS OWN COPY of the stream: without sharding by
``get_worker_info()`` each sample comes once per worker. Batch requests go to the workers
round robin; a worker whose stream ends (or, with ``drop_last``, comes up short) drops out
and the others carry on. So with two workers and a 7-sample stream, ``batch_size=2``
gives ``w0:[0,1] w1:[0,1] w0:[2,3] w1:[2,3] ... w0:[6] w1:[6]``.

The core worker pool hands out indices, which a stream has none of, so the workers are
played here in the main process: each gets a deep copy of the dataset, its own
``get_worker_info()`` (id, num_workers, seed, dataset copy) while its ``worker_init_fn``,
``iter()`` and ``next()`` run, and its place in the round robin. Unlike Paddle's worker
processes, nothing runs in parallel and numpy's global generator is not reseeded.
"""
from __future__ import annotations

import contextlib
import copy

import numpy as np

from inplace_lab.utils.data import worker as _core_worker


def take(stream, n, drop_last):
    """The next batch's samples from ``stream`` (``n=None``: one unbatched sample).

    StopIteration when the stream is done: nothing left, or a short batch with ``drop_last``.
    """
    if n is None:
        return next(stream)
    data = []
    for _ in range(n):
        try:
            data.append(next(stream))
        except StopIteration:
            break
    if not data or (drop_last and len(data) < n):
        raise StopIteration
    return data


@contextlib.contextmanager
def _as_worker(info):
    """Code run inside sees ``get_worker_info() == info``, as in a worker process."""
    saved = _core_worker._worker_info
    _core_worker._worker_info = info
    try:
        yield
    finally:
        _core_worker._worker_info = saved


def stream_batches(loader, collate, finish):
    """Paddle's round robin over ``loader.num_workers`` copies of the stream."""
    base_seed = int(np.random.randint(0, 2 ** 31 - 1))
    workers = []
    for wid in range(loader.num_workers):
        dataset = copy.deepcopy(loader.dataset)
        info = _core_worker.WorkerInfo(wid, loader.num_workers, base_seed + wid, dataset)
        with _as_worker(info):
            if loader.worker_init_fn is not None:
                loader.worker_init_fn(wid)
            workers.append((info, iter(dataset)))
    n = loader.batch_size if loader.auto_collate_batch else None
    while workers:
        for w in list(workers):
            info, stream = w
            with _as_worker(info):
                try:
                    batch = collate(take(stream, n, loader.drop_last))
                except StopIteration:
                    workers.remove(w)
                    continue
            yield finish(batch)
