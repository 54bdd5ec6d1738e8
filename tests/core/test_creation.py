"""Creation functions vs torch (shapes, dtypes, values), seeding, and numpy memory sharing."""
from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

import inplace_lab as il

torch = pytest.importorskip("torch")

MADE = {
    "tensor_ints": lambda L: L.tensor([1, 2]),
    "tensor_floats": lambda L: L.tensor([1, 2.0]),
    "tensor_bools": lambda L: L.tensor([True, False]),
    "tensor_complex": lambda L: L.tensor([1j, 2]),
    "tensor_scalar": lambda L: L.tensor(3),
    "tensor_empty": lambda L: L.tensor([]),
    "tensor_nested": lambda L: L.tensor([[1, 2], [3, 4]]),
    "tensor_numpy_f64": lambda L: L.tensor(np.ones(2)),
    "tensor_numpy_i32": lambda L: L.tensor(np.ones(2, dtype=np.int32)),
    "tensor_dtype": lambda L: L.tensor([1, 2], dtype=L.float64),
    "arange_int": lambda L: L.arange(5),
    "arange_float": lambda L: L.arange(0, 1, 0.25),
    "arange_float_start": lambda L: L.arange(1.0, 4),
    "arange_neg_step": lambda L: L.arange(5, 0, -2),
    "arange_dtype": lambda L: L.arange(1, 4, dtype=L.float64),
    "linspace": lambda L: L.linspace(0, 1, 5),
    "linspace_one": lambda L: L.linspace(2, 3, 1),
    "full_int": lambda L: L.full((2, 3), 7),
    "full_float": lambda L: L.full((2,), 1.5),
    "full_bool": lambda L: L.full((2,), True),
    "full_dtype": lambda L: L.full((2,), 1.5, dtype=L.int32),
    "eye": lambda L: L.eye(3),
    "eye_rect": lambda L: L.eye(2, 3),
    "zeros_varargs": lambda L: L.zeros(2, 3),
    "zeros_tuple": lambda L: L.zeros((2, 3)),
    "ones_list": lambda L: L.ones([2], dtype=L.int16),
    "ones_0d": lambda L: L.ones(()),
    "zeros_like": lambda L: L.zeros_like(L.ones(2, 3, dtype=L.int32)),
    "ones_like_dtype": lambda L: L.ones_like(L.ones(2), dtype=L.float64),
    "full_like": lambda L: L.full_like(L.ones(2, dtype=L.int64), 3),
    "new_zeros": lambda L: L.ones(2, dtype=L.float64).new_zeros(3),
    "new_ones": lambda L: L.ones(2, dtype=L.int32).new_ones((2, 2)),
    "new_full": lambda L: L.ones(2, dtype=L.int32).new_full((2,), 1.5),
    "new_tensor": lambda L: L.ones(2, dtype=L.float64).new_tensor([1, 2]),
}

SHAPED = {  # random or uninitialised: compare shape and dtype only
    "empty": lambda L: L.empty(2, 3),
    "empty_zero": lambda L: L.empty(0),
    "rand": lambda L: L.rand(2, 3),
    "rand_f64": lambda L: L.rand(4, dtype=L.float64),
    "randn": lambda L: L.randn((3,)),
    "randn_f16": lambda L: L.randn(3, dtype=L.float16),
    "randint": lambda L: L.randint(10, (3,)),
    "randint_low": lambda L: L.randint(3, 10, (2, 2)),
    "randint_dtype": lambda L: L.randint(0, 5, (4,), dtype=L.float32),
    "randperm": lambda L: L.randperm(5),
    "empty_like": lambda L: L.empty_like(L.ones(2, dtype=L.int8)),
    "rand_like": lambda L: L.rand_like(L.ones(2, 2)),
    "randn_like": lambda L: L.randn_like(L.ones(2, dtype=L.float64)),
    "randint_like": lambda L: L.randint_like(L.ones(3), 4),
    "new_empty": lambda L: L.ones(2, dtype=L.int32).new_empty(4),
}


def _dt(t):
    return str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("name", MADE)
def test_created_values_and_dtypes_match_torch(name):
    mine, theirs = MADE[name](il), MADE[name](torch)
    assert (_dt(mine), tuple(mine.shape)) == (_dt(theirs), tuple(theirs.shape))
    assert np.allclose(np.asarray(mine), theirs.numpy()) and mine.stride() == theirs.stride()


@pytest.mark.parametrize("name", SHAPED)
def test_random_and_empty_shapes_and_dtypes_match_torch(name):
    mine, theirs = SHAPED[name](il), SHAPED[name](torch)
    assert (_dt(mine), tuple(mine.shape)) == (_dt(theirs), tuple(theirs.shape))


def test_random_values_are_in_range():
    il.manual_seed(1)
    u = np.asarray(il.rand(1000))
    assert 0 <= u.min() and u.max() < 1 and u.std() > 0.2
    r = il.randint(3, 7, (1000,))
    assert set(r.tolist()) == {3, 4, 5, 6}
    assert sorted(il.randperm(6).tolist()) == list(range(6))


def test_manual_seed_reproduces_every_generator():
    def draw():
        return [il.rand(5).tolist(), il.randn(3, dtype=il.float16).tolist(),
                il.randint(0, 100, (4,)).tolist(), il.randperm(5).tolist()]

    il.manual_seed(123)
    a = draw()
    il.manual_seed(123)
    assert draw() == a
    il.manual_seed(124)
    assert draw() != a


@pytest.mark.parametrize("make,dtype", [(il.rand, il.float32), (il.randn, il.float32),
                                        (il.rand, il.float16), (il.randn, il.float64)])
def test_random_generation_writes_the_target_dtype_without_big_temporaries(make, dtype):
    n = 1 << 20
    gc.collect()
    tracemalloc.start()
    try:
        t = make(n, dtype=dtype)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert t.dtype is dtype
    # the storage itself plus at most one small chunk of float64 (never n float64s)
    assert peak < n * dtype.itemsize + (1 << 16) * 8 + 65536


def test_randint_writes_int64_without_a_copy():
    n = 1 << 20
    tracemalloc.start()
    try:
        il.randint(0, 10, (n,))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < n * 8 + (1 << 16) * 8 + 65536


def test_negative_size_error_matches_torch():
    with pytest.raises(RuntimeError) as want:
        torch.zeros(2, -1)
    with pytest.raises(RuntimeError) as got:
        il.zeros(2, -1)
    assert str(got.value) == str(want.value)


# ---- numpy interop: from_numpy and Tensor.numpy share memory ----------------------------------

def test_from_numpy_shares_memory_both_ways():
    a = np.zeros(4, dtype=np.float32)
    t = il.from_numpy(a)
    a[1] = 5
    assert t.tolist() == [0, 5, 0, 0]
    t.add_(1)
    assert a.tolist() == [1, 6, 1, 1] and t._version == 1
    assert t.data_ptr() == a.__array_interface__["data"][0]


@pytest.mark.parametrize("index", [np.s_[:, ::2], np.s_[1:, 1::2], np.s_[::2, 1:3]])
def test_from_numpy_of_a_non_contiguous_array_shares_memory_like_torch(index):
    a = np.arange(24.0).reshape(4, 6)[index]
    t, tt = il.from_numpy(a), torch.from_numpy(a)
    assert t.stride() == tt.stride() and t.storage_offset() == tt.storage_offset()
    assert t.data_ptr() == tt.data_ptr()
    t.mul_(-1)
    assert np.array_equal(a, tt.numpy()) and a.min() < 0


def test_from_numpy_transposed_array():
    a = np.arange(6.0).reshape(2, 3).T
    t = il.from_numpy(a)
    assert t.stride() == torch.from_numpy(a).stride() and t.tolist() == a.tolist()


def test_from_numpy_rejects_negative_strides_with_torchs_text():
    a = np.arange(3.0)[::-1]
    with pytest.raises(ValueError) as want:
        torch.from_numpy(a)
    with pytest.raises(ValueError) as got:
        il.from_numpy(a)
    assert str(got.value) == str(want.value)


def test_from_numpy_rejects_unsupported_dtypes():
    with pytest.raises(TypeError, match="can't convert np.ndarray of type"):
        il.from_numpy(np.array(["a"]))


def test_numpy_shares_memory_with_the_tensor():
    t = il.zeros(3)
    a = t.numpy()
    a[0] = 7
    assert t.tolist() == [7, 0, 0] and t._version == 0
    t.add_(1)
    assert a.tolist() == [8, 1, 1]
    v = t[1:]
    assert np.shares_memory(v.numpy(), a)


def test_numpy_keeps_the_storage_alive_after_the_tensor_dies():
    gc.collect()
    before = il.memory_allocated()
    t = il.ones(1000)
    a = t.numpy()
    del t
    gc.collect()
    assert il.memory_allocated() == before + 4000  # the array still uses the storage
    a[:] = 3
    assert a.sum() == 3000
    del a
    gc.collect()
    assert il.memory_allocated() == before


def test_numpy_of_a_tensor_requiring_grad_raises_like_torch():
    with pytest.raises(RuntimeError) as want:
        torch.zeros(2, requires_grad=True).numpy()
    with pytest.raises(RuntimeError) as got:
        il.zeros(2, requires_grad=True).numpy()
    assert str(got.value) == str(want.value)
