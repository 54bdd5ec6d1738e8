"""The main-process side of ``DataLoader(num_workers=N)``: workers, queues, order, shutdown.

torch's scheme, kept: batch ``k`` goes to worker ``k % N`` (round robin); at most
``prefetch_factor * N`` batches are outstanding; results come back in any order on one
queue and are handed out in batch order (early ones wait in a dict). So the batches are
exactly those of ``num_workers=0``, in the same order. ``persistent_workers=True`` keeps
the processes (and their dataset copies) across epochs; a batch left over from an
abandoned epoch is recognised by its epoch number and dropped.

Nothing may hang a test run: workers are daemon processes, every wait has a timeout
(``timeout`` seconds if given; and a check every half second that the workers are alive), and
``shutdown`` sets the done event, sends each worker ``None``, joins it, and terminates a
straggler.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import queue
import time

from .worker import ExceptionWrapper, worker_loop

_JOIN_TIMEOUT = 5.0
_POLL = 0.5  # seconds between checks that the workers are alive while waiting for a batch


def default_context():
    """``fork`` where the platform has it (torch's default on Linux), else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


class WorkerPool:
    """N worker processes serving one loader (one pool per epoch, or one for all epochs)."""

    def __init__(self, loader, base_seed):
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = default_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self.n = loader.num_workers
        self.timeout = loader.timeout
        self.data_queue = ctx.Queue()
        self.done = ctx.Event()
        self.index_queues, self.workers = [], []
        auto_collation = not (loader.batch_size is None and loader.batch_sampler is None)
        for wid in range(self.n):
            iq = ctx.Queue()
            w = ctx.Process(target=worker_loop, daemon=True, args=(
                loader.dataset, iq, self.data_queue, self.done, loader.collate_fn, auto_collation,
                base_seed + wid, loader.worker_init_fn, wid, self.n, os.getpid()))
            w.start()
            self.index_queues.append(iq)
            self.workers.append(w)
        self.epoch = 0
        self.alive = True

    def get(self, epoch):
        """The next result of ``epoch`` from any worker: ``(batch_number, data)``."""
        deadline = time.monotonic() + self.timeout if self.timeout > 0 else None
        while True:
            wait = _POLL if deadline is None else min(_POLL, deadline - time.monotonic())
            try:
                got_epoch, number, data = self.data_queue.get(timeout=max(wait, 0.0))
            except queue.Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds") \
                        from None
                dead = [w.pid for w in self.workers if not w.is_alive()]
                if dead:
                    self.shutdown()
                    raise RuntimeError(f"DataLoader worker (pid(s) "
                                       f"{', '.join(map(str, dead))}) exited unexpectedly") \
                        from None
                continue
            if got_epoch == epoch:  # else: left over from an abandoned epoch
                return number, pickle.loads(data)

    def shutdown(self):
        if not self.alive:
            return
        self.alive = False
        self.done.set()  # (an Event: works even when the queues below are already finalised)
        for iq in self.index_queues:
            try:
                iq.put(None)
            except (OSError, ValueError):  # a queue already closed by its finaliser
                pass
        for w in self.workers:
            w.join(_JOIN_TIMEOUT)
            if w.is_alive():
                w.terminate()
                w.join(_JOIN_TIMEOUT)
        for q in (*self.index_queues, self.data_queue):
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        self.shutdown()


class MultiProcessingIter:
    """One epoch over a pool: indices out round robin, batches back in order."""

    def __init__(self, loader, pool, batches):
        pool.epoch += 1
        self.loader, self.pool, self.epoch = loader, pool, pool.epoch
        self.batches = iter(enumerate(batches))
        self.sent = self.received = 0
        self.early = {}
        for _ in range(loader.prefetch_factor * pool.n):
            if not self._send():
                break

    def _send(self):
        nxt = next(self.batches, None)
        if nxt is None:
            return False
        number, indices = nxt
        self.pool.index_queues[number % self.pool.n].put((self.epoch, number, list(indices)))
        self.sent += 1
        return True

    def __iter__(self):
        return self

    def __next__(self):
        if self.received == self.sent:
            self._finish()
            raise StopIteration
        number = self.received
        while number not in self.early:
            got, data = self.pool.get(self.epoch)
            self.early[got] = data
        data = self.early.pop(number)
        self.received += 1
        self._send()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return self.loader._finish_batch(data)

    def __len__(self):
        return len(self.loader)

    def _finish(self):
        if not self.loader.persistent_workers:
            self.pool.shutdown()

    def __del__(self):
        self._finish()
