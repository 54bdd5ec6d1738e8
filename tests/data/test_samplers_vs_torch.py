"""Samplers, IterableDataset, ChainDataset, StackDataset, default_convert and DataLoader's
sampler=/batch_sampler=/generator= arguments against torch 2.13.

The deterministic parts are compared exactly (orders, batch composition, lengths, errors,
warnings) and the random ones by their properties (a permutation, counts, weights honoured
statistically); tests/core/test_rng_vs_torch.py compares the shuffled orders themselves."""
from __future__ import annotations

import math
import warnings
from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import inplace_lab.torch as il  # noqa: E402

LIBS = [torch, il]


def D(lib):
    return lib.utils.data


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return type(e).__name__, str(e)
    return None


def same_error(call):
    """``call(lib)`` raises the same exception type and message on torch and here."""
    ref, got = _error(lambda: call(torch)), _error(lambda: call(il))
    assert ref is not None
    assert got == ref


def as_lists(batches):
    out = []
    for b in batches:
        if isinstance(b, (list, tuple)):
            out.append([as_lists([x])[0] if isinstance(x, (list, tuple)) else x.tolist()
                        if hasattr(x, "tolist") else x for x in b])
        else:
            out.append(b.tolist() if hasattr(b, "tolist") else b)
    return out


class Stream:
    """An IterableDataset of ``range(start, end)`` sharded across workers like torch's
    docstring example, with an optional (possibly wrong) ``__len__``."""

    @staticmethod
    def make(lib, start, end, length=None, shard=True):
        class _S(D(lib).IterableDataset):
            def __init__(self):
                self.start, self.end = start, end

            def __iter__(self):
                info = D(lib).get_worker_info()
                lo, hi = self.start, self.end
                if info is not None and shard:
                    per = int(math.ceil((hi - lo) / float(info.num_workers)))
                    lo = lo + info.id * per
                    hi = min(lo + per, self.end)
                return iter(range(lo, hi))

            if length is not None:
                def __len__(self):
                    return length

        return _S()


# ---- the samplers ---------------------------------------------------------------------------
def test_sequential_sampler_order_and_len():
    for lib in LIBS:
        s = D(lib).SequentialSampler(range(7))
        assert list(s) == list(range(7)) and len(s) == 7


@pytest.mark.parametrize("n,bs,drop_last", [(10, 3, False), (10, 3, True), (9, 3, True),
                                            (2, 5, False), (2, 5, True), (1, 1, False)])
def test_batch_sampler_composition_and_len(n, bs, drop_last):
    order = [7, 1, 4, 0, 9, 2, 8, 3, 6, 5][:n] if n <= 10 else list(range(n))
    ref = torch.utils.data.BatchSampler(order, bs, drop_last)
    got = il.utils.data.BatchSampler(order, bs, drop_last)
    assert list(got) == list(ref)
    assert len(got) == len(ref)


def test_batch_sampler_over_a_sampler():
    for lib in LIBS:
        b = D(lib).BatchSampler(D(lib).SequentialSampler(range(10)), batch_size=3, drop_last=False)
        assert list(b) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]


@pytest.mark.parametrize("args", [(0, False), (True, False), (2.0, False), (-1, True), (2, 1),
                                  (2, None)])
def test_batch_sampler_argument_errors(args):
    same_error(lambda lib: D(lib).BatchSampler(range(3), *args))


def test_random_sampler_is_a_permutation_each_epoch():
    s = il.utils.data.RandomSampler(range(20), generator=il.Generator().manual_seed(0))
    a, b = list(s), list(s)
    assert sorted(a) == sorted(b) == list(range(20))
    assert a != b  # the generator advances: a new order each epoch
    assert len(s) == 20


def test_random_sampler_seeded_generator_repeats():
    def draw(seed):
        return list(il.utils.data.RandomSampler(range(30),
                                                generator=il.Generator().manual_seed(seed)))
    assert draw(5) == draw(5) and draw(5) != draw(6)
    il.manual_seed(3)
    g1 = list(il.utils.data.RandomSampler(range(30)))
    il.manual_seed(3)
    assert list(il.utils.data.RandomSampler(range(30))) == g1  # the global generator


@pytest.mark.parametrize("n,num_samples", [(3, 7), (5, 5), (5, 2), (4, 12)])
def test_random_sampler_num_samples_without_replacement_chains_permutations(n, num_samples):
    ref = list(torch.utils.data.RandomSampler(range(n), num_samples=num_samples))
    got = list(il.utils.data.RandomSampler(range(n), num_samples=num_samples))
    assert len(got) == len(ref) == num_samples
    for k in range(num_samples // n):  # every whole block is a permutation
        assert sorted(got[k * n:(k + 1) * n]) == list(range(n))
    assert len(set(got[(num_samples // n) * n:])) == num_samples % n


def test_random_sampler_with_replacement_draws_uniformly():
    s = il.utils.data.RandomSampler(range(4), replacement=True, num_samples=8000,
                                    generator=il.Generator().manual_seed(1))
    got = list(s)
    assert len(got) == len(s) == 8000
    assert all(isinstance(i, int) for i in got[:5])
    counts = Counter(got)
    assert set(counts) == {0, 1, 2, 3}
    assert all(abs(c / 8000 - 0.25) < 0.03 for c in counts.values())
    assert len(torch.utils.data.RandomSampler(range(4), replacement=True, num_samples=70)) == 70


def test_random_sampler_len_follows_the_dataset():
    for lib in LIBS:
        data = list(range(5))
        s = D(lib).RandomSampler(data)
        data.append(5)
        assert len(s) == 6 and sorted(s) == list(range(6))


@pytest.mark.parametrize("kw", [dict(num_samples=0), dict(replacement=1), dict(num_samples=3.0),
                                dict(num_samples=-2, replacement=True)])
def test_random_sampler_argument_errors(kw):
    same_error(lambda lib: D(lib).RandomSampler(range(3), **kw))


def test_random_sampler_of_an_empty_dataset():
    same_error(lambda lib: D(lib).RandomSampler([]))


def test_subset_random_sampler_permutes_the_given_indices():
    idx = [10, 3, 7, 42]
    s = il.utils.data.SubsetRandomSampler(idx, generator=il.Generator().manual_seed(0))
    assert len(s) == len(torch.utils.data.SubsetRandomSampler(idx)) == 4
    orders = {tuple(s) for _ in range(30)}
    assert all(sorted(o) == sorted(idx) for o in orders) and len(orders) > 1


def test_weighted_sampler_with_replacement_honours_the_weights():
    w = [0.1, 0.9, 0.0, 2.0]
    s = il.utils.data.WeightedRandomSampler(w, 20000, generator=il.Generator().manual_seed(0))
    got = Counter(s)
    assert len(s) == 20000 and 2 not in got
    for i, wi in enumerate(w):
        assert abs(got[i] / 20000 - wi / sum(w)) < 0.015
    assert s.weights.dtype == il.float64
    assert str(torch.utils.data.WeightedRandomSampler(w, 3).weights.dtype) == "torch.float64"


def test_weighted_sampler_without_replacement_draws_each_once():
    w = [0.9, 0.4, 0.05, 0.2, 0.3, 0.1]
    s = il.utils.data.WeightedRandomSampler(w, 6, replacement=False,
                                            generator=il.Generator().manual_seed(0))
    firsts = Counter()
    for _ in range(2000):
        order = list(s)
        assert sorted(order) == list(range(6))
        firsts[order[0]] += 1
    assert abs(firsts[0] / 2000 - 0.9 / sum(w)) < 0.04  # the first draw follows the weights
    # a zero weight comes after every positive one
    zs = il.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 4, replacement=False)
    assert sorted(list(zs)[:2]) == [1, 3]


@pytest.mark.parametrize("w,n,r", [([1, -1.0], 1, True), ([0, 0.0], 1, True), ([1, 2.0], 3, False),
                                   ([[1.0]], 1, True), ([1, float("inf")], 1, True),
                                   ([1, float("nan")], 1, True)])
def test_weighted_sampler_distribution_errors(w, n, r):
    same_error(lambda lib: list(D(lib).WeightedRandomSampler(w, n, r)))


@pytest.mark.parametrize("kw", [dict(num_samples=0), dict(num_samples=True),
                                dict(num_samples=2, replacement=0)])
def test_weighted_sampler_argument_errors(kw):
    same_error(lambda lib: D(lib).WeightedRandomSampler([1.0, 2.0], **kw))


def test_a_sampler_without_len_has_none():
    for lib in LIBS:
        class S(D(lib).Sampler):
            def __iter__(self):
                return iter([2, 0])
        assert list(S()) == [2, 0]
        with pytest.raises(TypeError):
            len(S())


# ---- datasets -------------------------------------------------------------------------------
def test_stack_dataset_tuples_and_dicts():
    for lib in LIBS:
        a, b = lib.arange(3), ["x", "y", "z"]
        t = D(lib).StackDataset(a, b)
        assert len(t) == 3 and t[1][1] == "y" and int(t[1][0]) == 1
        d = D(lib).StackDataset(num=a, s=b)
        assert set(d[2]) == {"num", "s"} and d[2]["s"] == "z"


@pytest.mark.parametrize("case", range(3))
def test_stack_dataset_errors(case):
    same_error(lambda lib: [lambda: D(lib).StackDataset(), lambda: D(lib).StackDataset([1], a=[2]),
                            lambda: D(lib).StackDataset([1], [2, 3])][case]())


def test_iterable_dataset_has_no_len_nor_getitem():
    same_error(lambda lib: len(Stream.make(lib, 0, 3)))
    same_error(lambda lib: Stream.make(lib, 0, 3)[0])


def test_chain_dataset_and_plus():
    for lib in LIBS:
        a, b = Stream.make(lib, 0, 3, length=3), Stream.make(lib, 10, 12, length=2)
        c = a + b
        assert type(c).__name__ == "ChainDataset"
        assert list(c) == [0, 1, 2, 10, 11] and len(c) == 5
    same_error(lambda lib: list(D(lib).ChainDataset([Stream.make(lib, 0, 2), [1, 2]])))
    same_error(lambda lib: len(D(lib).ChainDataset([Stream.make(lib, 0, 2, length=2), [1]])))
    same_error(lambda lib: len(D(lib).ChainDataset([Stream.make(lib, 0, 2)])))


def test_concat_dataset_refuses_a_stream():
    same_error(lambda lib: D(lib).ConcatDataset([Stream.make(lib, 0, 2)]))
    for lib in LIBS:
        assert D(lib).ConcatDataset([[1, 2], [3]]).cumulative_sizes == [2, 3]


# ---- default_convert ------------------------------------------------------------------------
def test_default_convert_like_torch():
    arr = np.arange(4, dtype=np.float32)
    sample = {"a": arr, "b": (np.int64(3), "s", 2.5), "c": [np.arange(2)], "d": np.array(["x"])}
    ref, got = (D(lib).default_convert(sample) for lib in LIBS)
    assert type(got["a"]).__name__ == "Tensor" and got["a"].tolist() == ref["a"].tolist()
    assert str(got["a"].dtype).split(".")[-1] == "float32"
    assert isinstance(got["b"], list) and isinstance(ref["b"], list)  # a tuple becomes a list
    assert got["b"][0].tolist() == ref["b"][0].tolist() == 3 and got["b"][0].dim() == 0
    assert got["b"][1:] == ref["b"][1:] == ["s", 2.5]
    assert got["c"][0].tolist() == [0, 1]
    assert isinstance(got["d"], np.ndarray) and isinstance(ref["d"], np.ndarray)
    got["a"][0] = 9.0  # torch.as_tensor shares the array's memory: so does the conversion
    assert arr[0] == 9.0


# ---- DataLoader with samplers ---------------------------------------------------------------
def test_loader_default_samplers_like_torch():
    for lib in LIBS:
        ds = D(lib).TensorDataset(lib.arange(6))
        dl = D(lib).DataLoader(ds, batch_size=4)
        assert type(dl.sampler).__name__ == "SequentialSampler"
        assert type(dl.batch_sampler).__name__ == "BatchSampler"
        assert dl.batch_sampler.batch_size == 4 and dl.batch_sampler.drop_last is False
        dl = D(lib).DataLoader(ds, shuffle=True, batch_size=None)
        assert type(dl.sampler).__name__ == "RandomSampler" and dl.batch_sampler is None
        dl = D(lib).DataLoader(ds, batch_sampler=[[0, 1]])
        assert dl.batch_size is None and dl.drop_last is False


def test_loader_with_a_sampler_batches_its_order():
    order = [5, 0, 3, 1, 4, 2]
    for drop_last in (False, True):
        ref = [b[0].tolist() for b in torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(torch.arange(6) * 10), batch_size=4, sampler=order,
            drop_last=drop_last)]
        got = [b[0].tolist() for b in il.utils.data.DataLoader(
            il.utils.data.TensorDataset(il.arange(6) * 10), batch_size=4, sampler=order,
            drop_last=drop_last)]
        assert got == ref


def test_loader_with_a_batch_sampler():
    bs = [[3, 1], [0], [2, 4, 5]]
    ref = [b.tolist() for b in torch.utils.data.DataLoader(list(range(10, 16)), batch_sampler=bs)]
    got = [b.tolist() for b in il.utils.data.DataLoader(list(range(10, 16)), batch_sampler=bs)]
    assert got == ref == [[13, 11], [10], [12, 14, 15]]
    for lib in LIBS:
        assert len(D(lib).DataLoader(list(range(6)), batch_sampler=bs)) == 3


def test_loader_batch_size_none_converts_each_sample():
    data = [np.arange(2) + i for i in range(3)]
    ref = list(torch.utils.data.DataLoader(data, batch_size=None))
    got = list(il.utils.data.DataLoader(data, batch_size=None))
    assert [g.tolist() for g in got] == [r.tolist() for r in ref]
    assert list(il.utils.data.DataLoader([1, 2], batch_size=None)) == [1, 2]


def test_loader_shuffle_with_a_generator_is_a_seeded_permutation():
    ds = il.utils.data.TensorDataset(il.arange(10))

    def epoch(seed):
        dl = il.utils.data.DataLoader(ds, batch_size=3, shuffle=True,
                                      generator=il.Generator().manual_seed(seed))
        return [i for b in dl for i in b[0].tolist()]

    assert sorted(epoch(0)) == list(range(10)) and epoch(0) == epoch(0) != epoch(1)


@pytest.mark.parametrize("kw", [dict(batch_sampler=[[0]], batch_size=2),
                                dict(batch_sampler=[[0]], shuffle=True),
                                dict(batch_sampler=[[0]], sampler=[0]),
                                dict(batch_sampler=[[0]], drop_last=True),
                                dict(sampler=[0], shuffle=True),
                                dict(batch_size=None, drop_last=True),
                                dict(num_workers=1, prefetch_factor=-1)])
def test_loader_mutual_exclusion_errors(kw):
    same_error(lambda lib: D(lib).DataLoader(list(range(4)), **kw))


@pytest.mark.parametrize("kw,n", [(dict(batch_size=3), 10),
                                  (dict(batch_size=3, drop_last=True), 10),
                                  (dict(batch_size=None), 10), (dict(sampler=[1, 2, 3]), 10),
                                  (dict(sampler=[1, 2, 3], batch_size=2), 10),
                                  (dict(batch_sampler=[[1], [2, 3]]), 10)])
def test_loader_len_of_a_map_dataset(kw, n):
    assert len(il.utils.data.DataLoader(list(range(n)), **kw)) == \
        len(torch.utils.data.DataLoader(list(range(n)), **kw))


def test_loader_len_without_a_sampler_len():
    same_error(lambda lib: len(D(lib).DataLoader([1, 2, 3], sampler=iter([0, 1]))))


def test_loader_attributes_are_frozen_after_init():
    same_error(lambda lib: setattr(D(lib).DataLoader([1, 2]), "batch_size", 4))
    same_error(lambda lib: setattr(D(lib).DataLoader([1, 2]), "sampler", None))


# ---- DataLoader over an IterableDataset ----------------------------------------------------
@pytest.mark.parametrize("kw", [dict(batch_size=2), dict(batch_size=2, drop_last=True),
                                dict(batch_size=None), dict(batch_size=5), dict(batch_size=7)])
def test_stream_batches_like_torch(kw):
    ref = as_lists(torch.utils.data.DataLoader(Stream.make(torch, 0, 5), **kw))
    got = as_lists(il.utils.data.DataLoader(Stream.make(il, 0, 5), **kw))
    assert got == ref


@pytest.mark.parametrize("kw", [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])])
def test_stream_refuses_shuffle_and_samplers(kw):
    same_error(lambda lib: D(lib).DataLoader(Stream.make(lib, 0, 3), **kw))


def test_stream_accepts_shuffle_false():
    for lib in LIBS:
        assert len(list(D(lib).DataLoader(Stream.make(lib, 0, 3), shuffle=False))) == 3


@pytest.mark.parametrize("kw", [dict(batch_size=2), dict(batch_size=2, drop_last=True),
                                dict(batch_size=None)])
def test_stream_len_is_the_dataset_len_batched(kw):
    for lib in LIBS:
        dl = D(lib).DataLoader(Stream.make(lib, 0, 5, length=5), **kw)
        assert len(dl) == {2: 3 if not kw.get("drop_last") else 2, None: 5}[kw["batch_size"]]
    same_error(lambda lib: len(D(lib).DataLoader(Stream.make(lib, 0, 5))))


def _warnings(lib, length, **kw):
    dl = D(lib).DataLoader(Stream.make(lib, 0, 6, length=length), **kw)
    len(dl)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        n = len(list(dl))
    return n, [str(x.message).replace(type(dl.dataset).__qualname__, "DS").split(" object at ")[0]
               + str(x.message).split(">")[-1] for x in w if "Length of" in str(x.message)]


@pytest.mark.parametrize("length,kw", [(4, dict(batch_size=None)), (2, dict(batch_size=2)),
                                       (6, dict(batch_size=2)), (3, dict(batch_size=1))])
def test_stream_longer_than_its_len_warns_like_torch(length, kw):
    assert _warnings(il, length, **kw) == _warnings(torch, length, **kw)


def test_stream_no_warning_when_len_was_not_asked():
    dl = il.utils.data.DataLoader(Stream.make(il, 0, 6, length=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(list(dl)) == 6


@pytest.mark.parametrize("kw", [dict(batch_size=2), dict(batch_size=3, drop_last=True),
                                dict(batch_size=None), dict(batch_size=4)])
@pytest.mark.parametrize("end,shard", [(11, True), (5, False)])
def test_stream_with_workers_order_like_torch(kw, end, shard):
    """Each worker iterates its own copy; batches come round robin from the workers still
    running; a worker's own short last batch is kept (or dropped under drop_last)."""
    ref = as_lists(torch.utils.data.DataLoader(Stream.make(torch, 0, end, shard=shard),
                                               num_workers=2, **kw))
    got = as_lists(il.utils.data.DataLoader(Stream.make(il, 0, end, shard=shard),
                                            num_workers=2, **kw))
    assert got == ref


def _uneven(lib):
    class Uneven(D(lib).IterableDataset):
        def __iter__(self):
            info = D(lib).get_worker_info()
            return iter([info.id * 100 + k for k in range(1 + 3 * info.id)])
    return Uneven()


def test_stream_with_uneven_workers_and_persistent_epochs():
    def epochs(lib):
        dl = D(lib).DataLoader(_uneven(lib), batch_size=2, num_workers=3, persistent_workers=True)
        return as_lists(dl), as_lists(dl)

    got = epochs(il)
    assert got == epochs(torch)
    assert got[0] == got[1]  # a new pass over each worker's stream in the next epoch
    assert got[0][:3] == [[0], [100, 101], [200, 201]]


def test_stream_worker_error_is_reraised():
    class Bad(il.utils.data.IterableDataset):
        def __iter__(self):
            yield 1
            raise KeyError("boom")

    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0"):
        list(il.utils.data.DataLoader(Bad(), num_workers=1))
