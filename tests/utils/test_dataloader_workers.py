"""DataLoader(num_workers=N): the same batches as torch's loader, from worker processes.

Tiny datasets; every loader is consumed or deleted so its workers are joined, and every
wait inside the loader has a timeout, so a broken worker fails the test instead of hanging it.
"""
from __future__ import annotations

import gc
import os
import random
import time

import pytest

torch = pytest.importorskip("torch")
import torch.utils.data as tud  # noqa: E402

import inplace_lab as il  # noqa: E402
from inplace_lab.utils import data as ild  # noqa: E402


class _Items:
    """A map-style dataset both libraries can index: item i is [i, 10 i] (or raises)."""

    def __init__(self, lib, n=7, bad=None, delay=0.0):
        self.lib, self.n, self.bad, self.delay = lib, n, bad, delay

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.delay:
            time.sleep(self.delay)
        if i == self.bad:
            raise ValueError(f"item {i} is broken")
        return self.lib.tensor([float(i), 10.0 * i]), i


def _close(it, exc_info):
    """Shut an iterator's workers down now, not when the garbage collector breaks the cycle
    the caught exception's traceback makes (torch's shutdown then waits 5 s per worker)."""
    exc_info.value.__traceback__ = None
    getattr(it, "_shutdown_workers", getattr(it, "_finish", None))()


def _as_lists(batches):
    return [[x.tolist() if hasattr(x, "tolist") else x for x in b] for b in batches]


def _both(**kw):
    """The batches of torch's loader and ours over the same dataset and arguments."""
    want = _as_lists(tud.DataLoader(_Items(torch), **kw))
    got = _as_lists(ild.DataLoader(_Items(il), **kw))
    return want, got


@pytest.mark.parametrize("kw", [{"batch_size": 2}, {"batch_size": 3, "drop_last": True},
                                {"batch_size": None}, {"batch_size": 2, "prefetch_factor": 1}])
def test_worker_batches_are_torchs_batches_in_order(kw):
    want, got = _both(num_workers=2, **kw)
    assert got == want
    kw.pop("prefetch_factor", None)
    assert got == _as_lists(ild.DataLoader(_Items(il), **kw))  # and those of num_workers=0


def test_batches_arrive_as_fresh_inplace_lab_tensors():
    x, i = next(iter(ild.DataLoader(_Items(il), batch_size=3, num_workers=2)))
    assert isinstance(x, il.Tensor) and isinstance(i, il.Tensor)
    assert x._version == 0 and not x._is_view() and x.dtype == il.float32
    assert i.dtype == il.int64 and i.tolist() == [0, 1, 2]


def test_a_seeded_shuffle_gives_the_same_batches_with_and_without_workers():
    def order(workers, seed=11):
        dl = ild.DataLoader(_Items(il, n=9), batch_size=2, shuffle=True, num_workers=workers,
                            generator=ild.Generator().manual_seed(seed))
        return [b[1].tolist() for b in dl]

    assert order(2) == order(0) == order(3)
    assert order(2) != order(2, seed=12)
    assert sorted(i for b in order(2) for i in b) == list(range(9))


def _who(batch):
    info = ild.get_worker_info()
    return info.id, info.num_workers, [int(b[1]) for b in batch]


def _torch_who(batch):
    info = tud.get_worker_info()
    return info.id, info.num_workers, [int(b[1]) for b in batch]


def test_batches_go_to_workers_round_robin_and_get_worker_info_says_which():
    want = list(tud.DataLoader(_Items(torch), batch_size=2, num_workers=3, collate_fn=_torch_who))
    got = list(ild.DataLoader(_Items(il), batch_size=2, num_workers=3, collate_fn=_who))
    assert got == want == [(0, 3, [0, 1]), (1, 3, [2, 3]), (2, 3, [4, 5]), (0, 3, [6])]
    assert ild.get_worker_info() is None and tud.get_worker_info() is None


def _seeds(batch):
    info = ild.get_worker_info()
    return info.id, info.seed, random.random(), il.rand(1).item(), os.getpid()


def _init_marks_dataset(worker_id):
    ild.get_worker_info().dataset.mark = f"init {worker_id}"


def _mark(batch):
    return ild.get_worker_info().dataset.mark


def test_worker_init_fn_runs_in_each_worker_on_its_own_dataset_copy():
    ds = _Items(il, n=4)
    ds.mark = "main"
    out = list(ild.DataLoader(ds, batch_size=1, num_workers=2, collate_fn=_mark,
                              worker_init_fn=_init_marks_dataset))
    assert out == ["init 0", "init 1", "init 0", "init 1"] and ds.mark == "main"


def test_workers_seed_python_and_inplace_lab_with_base_seed_plus_worker_id():
    def run(seed):
        return list(ild.DataLoader(_Items(il, n=4), batch_size=1, num_workers=2,
                                   collate_fn=_seeds, generator=ild.Generator().manual_seed(seed)))

    a, b = run(5), run(5)
    assert [r[:4] for r in a] == [r[:4] for r in b]  # same generator seed: same worker seeds
    assert a[1][1] == a[0][1] + 1 and a[0][0] == 0 and a[1][0] == 1
    assert a[0][2] != a[1][2]  # each worker its own random stream
    assert run(6)[0][1] != a[0][1]
    assert {r[4] for r in a} != {os.getpid()}


def test_an_error_in_a_worker_is_reraised_with_torchs_wrapper_text():
    msgs = []
    for lib, mod in ((torch, tud), (il, ild)):
        it = iter(mod.DataLoader(_Items(lib, n=5, bad=3), batch_size=2, num_workers=2))
        first = next(it)[1].tolist()
        with pytest.raises(ValueError) as e:
            next(it)
        rest = next(it)[1].tolist()  # the loader goes on after the failed batch, as torch's
        with pytest.raises(StopIteration):
            next(it)
        head, _, tail = str(e.value).partition("\n")
        msgs.append((first, head, tail.startswith("Original Traceback (most recent call last):"),
                     str(e.value).rstrip().splitlines()[-1], rest))
        _close(it, e)
    assert msgs[1] == msgs[0]
    assert msgs[1][1] == "Caught ValueError in DataLoader worker process 1."


def _failing_init(worker_id):
    raise KeyError("no such thing")


def test_a_failing_worker_init_fn_is_reported_on_that_workers_first_batch():
    out = []
    for mod, lib in ((tud, torch), (ild, il)):
        it = iter(mod.DataLoader(_Items(lib, n=2), num_workers=1, worker_init_fn=_failing_init))
        with pytest.raises(KeyError) as e:
            next(it)
        out.append(str(e.value).partition("\n")[0])
        _close(it, e)
    assert out[1] == out[0] == "Caught KeyError in DataLoader worker process 0."


def test_persistent_workers_keep_their_processes_across_epochs():
    dl = ild.DataLoader(_Items(il, n=4), batch_size=1, num_workers=2, persistent_workers=True,
                        collate_fn=_seeds)
    first, second = list(dl), list(dl)
    assert [r[4] for r in first] == [r[4] for r in second]  # the same worker processes
    it = iter(dl)
    next(it)  # an abandoned epoch: its left-over batches must not leak into the next one
    del it
    assert [r[0] for r in dl] == [0, 1, 0, 1]
    workers = dl._pool.workers
    del dl
    gc.collect()
    assert not any(w.is_alive() for w in workers)


def test_workers_of_a_finished_epoch_are_joined():
    it = iter(ild.DataLoader(_Items(il, n=3), num_workers=2))
    workers = it.pool.workers
    assert len(list(it)) == 3
    assert not any(w.is_alive() for w in workers)


def test_timeout_raises_torchs_error_instead_of_waiting():
    it = iter(ild.DataLoader(_Items(il, n=1, delay=0.6), num_workers=1, timeout=0.2))
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
        next(it)
    del it


def _die(batch):
    os._exit(3)


def test_a_worker_that_dies_is_reported_not_waited_for():
    it = iter(ild.DataLoader(_Items(il, n=2), num_workers=1, collate_fn=_die))
    with pytest.raises(RuntimeError, match=r"^DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly$"):
        next(it)
    del it


def test_spawn_context_works_with_picklable_arguments():
    dl = ild.DataLoader(range(5), batch_size=2, num_workers=2, multiprocessing_context="spawn")
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3], [4]]


@pytest.mark.parametrize("kw", [{"num_workers": -1}, {"prefetch_factor": 2},
                                {"persistent_workers": True}, {"timeout": -1}])
def test_invalid_worker_options_raise_torchs_errors(kw):
    with pytest.raises(ValueError) as want:
        tud.DataLoader(range(4), **kw)
    with pytest.raises(ValueError) as got:
        ild.DataLoader(range(4), **kw)
    assert str(got.value) == str(want.value)


def test_prefetch_factor_defaults_to_two_with_workers_as_torch():
    for mod in (tud, ild):
        assert mod.DataLoader(range(4), num_workers=2).prefetch_factor == 2
        assert mod.DataLoader(range(4)).prefetch_factor is None
        assert mod.DataLoader(range(4), num_workers=1).persistent_workers is False
