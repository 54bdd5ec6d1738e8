"""``DataLoader``: batching, seeded shuffling, ``drop_last``, collate, ``pin_memory``.

Shuffling draws a permutation from a ``Generator`` (``inplace_lab.utils.data.Generator``,
or an int seed, or the global generator ``inplace_lab.manual_seed`` sets): the same
seed gives the same batches. ``pin_memory=True`` copies each batch into page-locked
host memory (cupy's pinned allocator) when a real GPU is present, so
``batch.to("cuda", non_blocking=True)`` can overlap; without one it is a no-op with
PyTorch's warning.

``num_workers=N`` loads batches in N worker processes (``pool.py``, ``worker.py``): the
same batches in the same order as ``num_workers=0``, ``worker_init_fn``,
``get_worker_info()``, ``prefetch_factor``, ``persistent_workers`` and ``timeout`` as
torch has them, and a worker's exception re-raised here with torch's wrapper text.
As in torch, every epoch first draws a base seed from the loader's generator (or the
global one), then the shuffle permutation: worker ``i`` seeds with ``base_seed + i``.
"""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence

from ... import backend, creation
from ...tensor import Tensor
from .worker import fetch


class Generator:
    """A seeded source of permutations (``torch.Generator`` for the loader's shuffling)."""

    def __init__(self, device="cpu"):
        self._rng = backend.np.random.default_rng(0)
        self._seed = 0

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self._rng = backend.np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def randperm(self, n: int):
        return self._rng.permutation(n)


def _rng_of(generator):
    """The numpy generator behind a loader's ``generator`` (None: the global one)."""
    if generator is None:
        return creation.generator()
    if isinstance(generator, numbers.Integral):
        return Generator().manual_seed(generator)._rng
    return generator._rng


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


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, **kwargs):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.num_workers, self.timeout, self.worker_init_fn = num_workers, timeout, worker_init_fn
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None \
            else prefetch_factor
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._pool = None  # persistent_workers: the pool kept across epochs
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                          or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.collate_fn = collate_fn or default_collate
        self.drop_last = drop_last
        self.pin_memory = pin_memory
        if pin_memory and not _can_pin():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                          "device pinned memory won't be used.", UserWarning, stacklevel=2)
            self.pin_memory = False  # a no-op without a real GPU: plain host memory

    def _indices(self, rng):
        if self.sampler is not None:
            return list(iter(self.sampler))
        n = len(self.dataset)
        return rng.permutation(n).tolist() if self.shuffle else list(range(n))

    def _batches(self, rng):
        if self.batch_sampler is not None:
            yield from self.batch_sampler
            return
        idx = self._indices(rng)
        if self.batch_size is None:
            yield from ([i] for i in idx)
            return
        for s in range(0, len(idx), self.batch_size):
            b = idx[s:s + self.batch_size]
            if len(b) < self.batch_size and self.drop_last:
                return
            yield b

    def __iter__(self):
        rng = _rng_of(self.generator)
        base_seed = int(rng.integers(0, 2 ** 63 - 1))  # torch draws it first, every epoch
        if self.num_workers == 0:
            return self._single_process(rng)
        from .pool import MultiProcessingIter, WorkerPool

        pool = self._pool
        if pool is None or not pool.alive:
            pool = WorkerPool(self, base_seed)
            if self.persistent_workers:
                self._pool = pool
        return MultiProcessingIter(self, pool, self._batches(rng))

    def _single_process(self, rng):
        auto_collation = not (self.batch_size is None and self.batch_sampler is None)
        for b in self._batches(rng):
            yield self._finish_batch(fetch(self.dataset, b, auto_collation, self.collate_fn))

    def _finish_batch(self, out):
        """What the main process does to every batch: pin it when asked."""
        return _pin(out) if self.pin_memory else out

    def __del__(self):
        pool = self.__dict__.get("_pool")
        if pool is not None:
            pool.shutdown()

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
