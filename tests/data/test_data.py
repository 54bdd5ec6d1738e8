"""utils.data: datasets, loader batching/shuffling/drop_last/collate/pin_memory, augmentation."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import inplace_lab as il
from inplace_lab.utils.data import DataLoader, Generator, TensorDataset, default_collate
from inplace_lab.utils.data import transforms as T


def _ds(n=10):
    return TensorDataset(il.arange(float(n)).reshape(n, 1), il.arange(n))


def test_tensor_dataset_items_are_views_of_the_stored_tensors():
    ds = _ds()
    x, y = ds[3]
    assert x._is_view() and x.untyped_storage() is ds.tensors[0].untyped_storage()
    assert y.item() == 3 and len(ds) == 10
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(il.zeros(3), il.zeros(4))


def test_batches_in_order_with_and_without_drop_last():
    assert [b[1].tolist() for b in DataLoader(_ds(), batch_size=4)] == \
        [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    dl = DataLoader(_ds(), batch_size=4, drop_last=True)
    assert len(dl) == 2 and [b[1].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(DataLoader(_ds(), batch_size=4)) == 3


def test_shuffle_with_a_seeded_generator_is_reproducible_and_a_permutation():
    def order(seed):
        dl = DataLoader(_ds(), batch_size=3, shuffle=True, generator=Generator().manual_seed(seed))
        return [i for b in dl for i in b[1].tolist()]

    assert order(7) == order(7) and sorted(order(7)) == list(range(10)) and order(7) != order(8)
    assert order(7) != list(range(10))


def test_collated_batch_is_a_new_storage_not_a_view_of_the_dataset():
    ds = _ds()
    xb, _ = next(iter(DataLoader(ds, batch_size=4)))
    xb.mul_(0)
    assert ds.tensors[0].sum().item() == 45 and xb._base is None


def test_default_collate_handles_numbers_dicts_and_tuples():
    out = default_collate([{"a": il.ones(2), "b": 1}, {"a": il.zeros(2), "b": 2}])
    assert out["a"].shape == il.Size([2, 2]) and out["b"].tolist() == [1, 2]
    assert default_collate([(1.5, "x"), (2.5, "y")])[1] == ["x", "y"]


def test_pin_memory_without_a_gpu_warns_like_torch_and_is_a_noop():
    if il.cuda.is_available() and il.backend.is_real_gpu(il.device("cuda:0")):
        pytest.skip("a real GPU pins for real")
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator "
                                         "is found"):
        dl = DataLoader(_ds(), batch_size=5, pin_memory=True)
    assert not next(iter(dl))[0].is_pinned()


def test_horizontal_flip_in_place_writes_the_batch_once():
    x = il.arange(2 * 1 * 2 * 3.0).reshape(2, 1, 2, 3)
    before = x.numpy().copy()
    st = x.untyped_storage()
    assert T.random_horizontal_flip_(x, p=1.0) is x
    assert x._version == 1 and x.untyped_storage() is st
    np.testing.assert_array_equal(x.numpy(), before[..., ::-1])
    T.random_horizontal_flip_(x, p=0.0)
    np.testing.assert_array_equal(x.numpy(), before[..., ::-1])


def test_out_of_place_forms_leave_the_input_untouched():
    il.manual_seed(0)
    x = il.rand(4, 3, 6, 6)
    before = x.numpy().copy()
    for fn in (lambda t: T.random_horizontal_flip(t, 1.0), lambda t: T.random_crop(t, 4, 1),
               lambda t: T.color_jitter(t, 0.5, 0.5, 0.5)):
        out = fn(x)
        assert out.untyped_storage() is not x.untyped_storage()
    assert x._version == 0
    np.testing.assert_array_equal(x.numpy(), before)
    assert T.random_crop(x, 4, 1).shape == il.Size([4, 3, 4, 4])


def test_random_crop_in_place_keeps_size_and_content_comes_from_the_padded_image():
    il.manual_seed(1)
    x = il.arange(36.0).reshape(1, 1, 6, 6) + 1
    T.random_crop_(x, padding=2)
    assert x.shape == il.Size([1, 1, 6, 6]) and x._version == 1
    vals = x.numpy()
    assert set(np.unique(vals)) <= set(range(0, 37))


def test_color_jitter_in_place_stays_in_unit_range_and_bumps_per_op():
    il.manual_seed(2)
    x = il.rand(3, 3, 4, 4)
    T.color_jitter_(x, brightness=0.5, contrast=0.5, saturation=0.5)
    assert x._version == 4  # mul_, lerp_, lerp_, clamp_
    assert 0.0 <= x.min().item() and x.max().item() <= 1.0


def test_in_place_augmentation_of_a_saved_tensor_breaks_backward():
    w = il.ones(1, requires_grad=True)
    x = il.rand(2, 1, 2, 2)
    y = (x * w).sum()  # mul saved x for w's gradient
    T.random_horizontal_flip_(x, 1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_transform_classes_compose():
    t = T.Compose([T.RandomHorizontalFlip(1.0, inplace=True), T.ColorJitter(0.1, inplace=True)])
    x = il.rand(2, 3, 4, 4)
    assert t(x) is x and x._version == 3
    with pytest.raises(ValueError, match="an in-place crop must keep the image size"):
        T.RandomCrop(2, inplace=True)(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert T.RandomCrop(2)(x).shape == il.Size([2, 3, 2, 2])
