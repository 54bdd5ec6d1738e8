"""``paddle.io`` against real Paddle 3.3.1: the same datasets through both loaders give
batches of the same structure (lists, dicts, strings), tensor types, dtypes, shapes,
values and stop_gradient; the same lengths; the same errors.

Every check is a function of the framework module ``P`` (real ``paddle`` or the facade)
that builds its own dataset classes from ``P.io`` and returns what it saw.
"""
from __future__ import annotations

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
import inplace_lab.paddle as ilp  # noqa: E402


def obs(v):
    """A comparable picture of a batch: containers by kind, tensors by their contents."""
    if isinstance(v, (paddle.Tensor, ilp.Tensor)):
        return ("T", np.asarray(v.numpy()).tolist(), str(v.dtype).replace("paddle.", ""),
                list(v.shape), bool(v.stop_gradient))
    if isinstance(v, dict):
        return ("dict", {k: obs(x) for k, x in v.items()})
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [obs(x) for x in v])
    if isinstance(v, np.ndarray):
        return ("ndarray", v.tolist(), str(v.dtype))
    return (type(v).__name__, v)


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        return ("raised", builtin.__name__, str(e).splitlines()[0] if str(e) else "")
    return ("no error",)


@pytest.fixture(autouse=True)
def _no_worker_outlives_its_test():
    """Real Paddle's DataLoader workers (forked, persistent ones kept by their loader) would
    outlive the test holding copies of every inherited file descriptor: a later fixture that
    waits for a pipe's end (the browser tests' JupyterLab server) then waits forever. Each
    test's workers are stopped when it ends."""
    import multiprocessing

    yield
    for proc in multiprocessing.active_children():
        proc.terminate()
        proc.join(5)


def both(check):
    ref, got = check(paddle), check(ilp)
    assert got == ref
    return ref


def image_label_dataset(P, n=5):
    class Images(P.io.Dataset):
        def __getitem__(self, i):
            return np.arange(6, dtype="float64").reshape(2, 3) + i, i

        def __len__(self):
            return n

    return Images()


def test_image_label_samples_give_a_list_of_float64_images_and_int64_labels():
    def check(P):
        loader = P.io.DataLoader(image_label_dataset(P), batch_size=2)
        return len(loader), [obs(b) for b in loader]

    n, batches = both(check)
    assert n == 3 and batches[0][0] == "list"
    assert batches[0][1][1][2] == "int64" and batches[0][1][1][3] == [2]


def test_drop_last_drops_the_short_batch_and_len_counts_it():
    def check(P):
        loader = P.io.DataLoader(image_label_dataset(P, 5), batch_size=2, drop_last=True)
        return len(loader), [obs(b) for b in loader]

    n, batches = both(check)
    assert n == 2 and len(batches) == 2


def test_dict_samples_keep_keys_strings_nested_lists_and_number_dtypes():
    def check(P):
        class Records(P.io.Dataset):
            def __getitem__(self, i):
                return {"a": np.float32(i), "b": [i, float(i), True], "c": f"x{i}",
                        "t": P.to_tensor([i, i], dtype="int32")}

            def __len__(self):
                return 3

        return [obs(b) for b in P.io.DataLoader(Records(), batch_size=2)]

    both(check)


def test_scalar_samples_batch_to_a_bare_tensor_and_tuples_become_lists():
    def check(P):
        class Scalars(P.io.Dataset):
            def __getitem__(self, i):
                return np.float32(i)

            def __len__(self):
                return 3

        class Nested(P.io.Dataset):
            def __getitem__(self, i):
                return (np.array([i, i]), (i, np.int32(i)))

            def __len__(self):
                return 2

        return ([obs(b) for b in P.io.DataLoader(Scalars(), batch_size=2)],
                [obs(b) for b in P.io.DataLoader(Nested(), batch_size=2)])

    both(check)


def test_batch_size_none_gives_one_unstacked_sample_per_step():
    def check(P):
        loader = P.io.DataLoader(image_label_dataset(P, 3), batch_size=None)
        return len(loader), [obs(b) for b in loader]

    n, batches = both(check)
    assert n == 3


def test_tensor_dataset_batches_are_fresh_tensors_with_stop_gradient():
    def check(P):
        x = P.to_tensor(np.arange(12, dtype="float32").reshape(6, 2), stop_gradient=False)
        y = P.to_tensor(np.arange(6, dtype="int64").reshape(6, 1))
        ds = P.io.TensorDataset([x, y])
        batches = list(P.io.DataLoader(ds, batch_size=4))
        batches[0][0][0, 0] = 100.0  # a fresh batch: writing it leaves the dataset alone
        return len(ds), obs(ds[1]), [obs(b) for b in batches], float(x[0, 0])

    both(check)


def test_composed_concatenated_and_subset_datasets_index_like_paddle():
    def check(P):
        a, b = image_label_dataset(P, 3), image_label_dataset(P, 2)
        concat = P.io.ConcatDataset([a, b])
        compose = P.io.ComposeDataset([a, a])
        sub = P.io.Subset(a, [2, 0])
        return (len(concat), obs(concat[3]), obs(concat[-1]), len(compose), obs(compose[1]),
                len(sub), obs(sub[0]), raised(lambda: concat[-6]),
                [obs(x) for x in P.io.DataLoader(compose, batch_size=2)])

    both(check)


def iterable_dataset(P, n):
    class Stream(P.io.IterableDataset):
        def __iter__(self):
            for i in range(n):
                yield np.array([i, i + 1], dtype="float32"), i

    return Stream()


def test_iterable_and_chained_datasets_stream_with_drop_last():
    def check(P):
        chain = P.io.ChainDataset([iterable_dataset(P, 3), iterable_dataset(P, 2)])
        keep = [obs(b) for b in P.io.DataLoader(chain, batch_size=2)]
        drop = [obs(b) for b in P.io.DataLoader(iterable_dataset(P, 5), batch_size=2,
                                                drop_last=True)]
        return keep, drop, raised(lambda: len(P.io.DataLoader(chain, batch_size=2)))

    keep, drop, err = both(check)
    assert len(keep) == 3 and len(drop) == 2 and err[1] == "ValueError"


def test_shuffle_draws_from_numpy_global_generator_as_paddle_does():
    def check(P):
        np.random.seed(7)
        loader = P.io.DataLoader(image_label_dataset(P, 7), batch_size=3, shuffle=True)
        epochs = [[b[1].numpy().tolist() for b in loader] for _ in range(2)]
        np.random.seed(3)
        rs = list(P.io.RandomSampler(list(range(6)), replacement=True, num_samples=4))
        np.random.seed(3)
        # (numpy weights: Paddle's len() of a list-weighted sampler raises AttributeError)
        wr = list(P.io.WeightedRandomSampler(np.array([0.1, 0.0, 0.6, 0.3]), 5))
        return epochs, rs, wr

    epochs, _, wr = both(check)
    assert sorted(sum(epochs[0], [])) == list(range(7)) and epochs[0] != epochs[1]
    assert 1 not in wr


def test_batch_sampler_and_distributed_batch_sampler_shard_like_paddle():
    def check(P):
        ds = list(range(10))
        bs = P.io.BatchSampler(dataset=ds, batch_size=3, drop_last=False)
        seq = P.io.BatchSampler(sampler=P.io.SequenceSampler(ds), batch_size=4, drop_last=True)
        d1 = P.io.DistributedBatchSampler(ds, batch_size=2, num_replicas=3, rank=1)
        d2 = P.io.DistributedBatchSampler(ds, batch_size=3, shuffle=True)
        d2.set_epoch(4)
        loader = P.io.DataLoader(image_label_dataset(P, 10), batch_sampler=d1)
        return (len(bs), list(bs), len(seq), list(seq), len(d1), list(d1), len(d2), list(d2),
                len(loader), [b[1].numpy().tolist() for b in loader])

    both(check)


def test_bad_arguments_raise_paddles_errors():
    def check(P):
        ds = image_label_dataset(P, 4)
        bs = P.io.BatchSampler(dataset=ds, batch_size=2)
        return [
            raised(lambda: P.io.DataLoader(ds, batch_sampler=bs, batch_size=2)),
            raised(lambda: P.io.DataLoader(ds, batch_sampler=bs, shuffle=True)),
            raised(lambda: P.io.DataLoader(ds, batch_size=0)),
            raised(lambda: P.io.DataLoader(ds, batch_size=-2)),
            raised(lambda: P.io.DataLoader(ds, num_workers=-1)),
            raised(lambda: P.io.DataLoader(ds, timeout=-1)),
            raised(lambda: P.io.DataLoader(ds, prefetch_factor=0)),
            raised(lambda: P.io.DataLoader(iterable_dataset(P, 2), shuffle=True)),
            raised(lambda: P.io.DataLoader(iterable_dataset(P, 2), batch_sampler=bs)),
            raised(lambda: P.io.BatchSampler(dataset=ds, batch_size=0)),
            raised(lambda: P.io.BatchSampler(dataset=ds, sampler=[0, 1])),
            raised(lambda: P.io.BatchSampler()),
            raised(lambda: P.io.RandomSampler(ds, num_samples=9)),
            raised(lambda: P.io.RandomSampler(ds, num_samples=0, replacement=True)),
            raised(lambda: P.io.RandomSampler(ds, replacement=1)),
            raised(lambda: P.io.SubsetRandomSampler([])),
            raised(lambda: P.io.WeightedRandomSampler([1.0], 0)),
            raised(lambda: P.io.TensorDataset([P.zeros([3]), P.zeros([2])])),
            raised(lambda: P.io.ConcatDataset([])),
            raised(lambda: P.io.ComposeDataset([ds, image_label_dataset(P, 3)])),
            raised(lambda: P.io.ChainDataset([ds])),
            raised(lambda: P.io.random_split(ds, [1, 2])),
            raised(lambda: P.io.Dataset()[0]),
            raised(lambda: len(P.io.Dataset())),
            raised(lambda: iterable_dataset(P, 1)[0]),
            raised(lambda: P.io.dataloader.collate.default_collate_fn([[1, 2], [1]])),
            raised(lambda: P.io.dataloader.collate.default_collate_fn([object()])),
        ]

    errors = both(check)
    assert all(e[0] == "raised" for e in errors)


def test_random_split_sizes_and_paddle_seed_repeats_the_split():
    def check(P):
        ds = list(range(10))
        P.seed(5)
        first = [list(s) for s in P.io.random_split(ds, [0.3, 0.7])]
        P.seed(5)
        again = [list(s) for s in P.io.random_split(ds, [0.3, 0.7])]
        return [len(s) for s in first], first == again, sorted(sum(first, []))

    both(check)


def test_workers_give_the_batches_of_paddles_single_process_loader():
    ref = [obs(b) for b in paddle.io.DataLoader(image_label_dataset(paddle, 7), batch_size=2)]
    loader = ilp.io.DataLoader(image_label_dataset(ilp, 7), batch_size=2, num_workers=2)
    assert [obs(b) for b in loader] == ref
    assert ilp.io.get_worker_info() is None


def test_worker_info_is_visible_inside_workers():
    class WhoLoads(ilp.io.Dataset):
        def __getitem__(self, i):
            info = ilp.io.get_worker_info()
            return np.array([info.id, info.num_workers])

        def __len__(self):
            return 4

    ids = [b.numpy().tolist() for b in ilp.io.DataLoader(WhoLoads(), batch_size=1, num_workers=2)]
    assert ids == [[[0, 2]], [[1, 2]], [[0, 2]], [[1, 2]]]


def test_one_epoch_of_linear_regression_gives_paddles_losses():
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((10, 3)).astype("float32")
    y_np = (x_np @ np.array([[1.0], [-2.0], [0.5]], dtype="float32") + 0.1).astype("float32")
    w_np = rng.standard_normal((3, 1)).astype("float32")

    def run(P):
        model = P.nn.Linear(3, 1)
        model.weight.set_value(w_np)
        model.bias.set_value(np.zeros([1], "float32"))
        opt = P.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        loader = P.io.DataLoader(P.io.TensorDataset([P.to_tensor(x_np), P.to_tensor(y_np)]),
                                 batch_size=4)
        losses = []
        for xb, yb in loader:
            loss = P.nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        return losses, model.weight.numpy()

    (ref_losses, ref_w), (got_losses, got_w) = run(paddle), run(ilp)
    assert len(got_losses) == 3
    np.testing.assert_allclose(got_losses, ref_losses, rtol=1e-5)
    np.testing.assert_allclose(got_w, ref_w, rtol=1e-5)


def test_real_paddle_workers_and_facade_workers_give_the_same_batches_every_epoch():
    def check(P):
        loader = P.io.DataLoader(image_label_dataset(P, 5), batch_size=2, num_workers=2,
                                 persistent_workers=True)
        return len(loader), [[obs(b) for b in loader] for _ in range(2)]

    both(check)


def test_a_worker_error_is_reraised_with_paddles_wrapper_text():
    """Paddle's ``_WorkerException.reraise`` (worker.py): ``DataLoader worker(<id>) caught
    <Type> with message:\\n<traceback>``. (Real Paddle is not run here: with
    ``num_workers=0`` its reader thread dies and the loop hangs; that is not emulated.)"""
    class Bad(ilp.io.Dataset):
        def __getitem__(self, i):
            if i == 2:
                raise ValueError("sample 2 is broken")
            return np.float32(i)

        def __len__(self):
            return 4

    with pytest.raises(ValueError, match=r"^DataLoader worker\(1\) caught ValueError with "
                                         r"message:\nTraceback") as info:
        list(ilp.io.DataLoader(Bad(), batch_size=2, num_workers=2))
    assert "sample 2 is broken" in str(info.value)
    with pytest.raises(ValueError, match="^sample 2 is broken$"):
        list(ilp.io.DataLoader(Bad(), batch_size=2))


def test_workers_seed_numpy_each_their_own_way_and_repeat_with_numpy_seed():
    class Noise(ilp.io.Dataset):
        def __getitem__(self, i):
            return np.random.rand(1)

        def __len__(self):
            return 4

    def epoch():
        np.random.seed(11)
        return [b.numpy().ravel().tolist() for b in
                ilp.io.DataLoader(Noise(), batch_size=1, num_workers=2)]

    first = epoch()
    assert first[0] != first[1]  # worker 0 and worker 1 draw different numbers
    assert epoch() == first


def test_calling_the_loader_gives_an_iterator_with_a_length():
    def check(P):
        it = P.io.DataLoader(P.io.TensorDataset([P.arange(4)]), batch_size=3)()
        return len(it), [obs(b) for b in it]

    assert both(check)[0] == 2


def test_subset_random_sampler_repeats_with_paddle_seed_and_keeps_its_indices():
    def check(P):
        P.seed(3)
        first = list(P.io.SubsetRandomSampler([10, 20, 30, 40, 50]))
        P.seed(3)
        again = list(P.io.SubsetRandomSampler([10, 20, 30, 40, 50]))
        return sorted(first), first == again, len(P.io.SubsetRandomSampler([1, 2]))

    both(check)


def sharded_stream(P, n, shard):
    class Stream(P.io.IterableDataset):
        def __iter__(self):
            info = P.io.get_worker_info()
            lo, hi = 0, n
            if shard and info is not None:
                per = -(-n // info.num_workers)
                lo, hi = info.id * per, min(info.id * per + per, n)
            for i in range(lo, hi):
                yield np.array([i, -1 if info is None else info.id])

    return Stream()


@pytest.mark.parametrize("shard", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
def test_iterable_dataset_workers_each_stream_their_own_copy_round_robin(shard, drop_last):
    def check(P):
        loader = P.io.DataLoader(sharded_stream(P, 7, shard), batch_size=2, num_workers=2,
                                 drop_last=drop_last)
        return [obs(b) for b in loader]

    batches = both(check)
    assert len(batches) == {(False, False): 8, (False, True): 6, (True, False): 4,
                            (True, True): 3}[shard, drop_last]



def test_tensor_dataset_through_facade_workers_matches_paddles_single_process_batches():
    """(Real Paddle is run with num_workers=0: its workers over a TensorDataset hung here.)"""
    def run(P, workers):
        x = P.to_tensor(np.arange(12, dtype="float32").reshape(6, 2), stop_gradient=False)
        loader = P.io.DataLoader(P.io.TensorDataset([x, P.arange(6)]), batch_size=4,
                                 num_workers=workers, places=P.CPUPlace(), return_list=False,
                                 timeout=30)
        return [obs(b) for b in loader]

    assert run(ilp, 2) == run(paddle, 0)
