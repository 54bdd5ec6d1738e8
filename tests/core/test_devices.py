"""Devices: cpu, the simulated GPU (numpy buffers, separate accounting), and a real GPU via cupy.

The simulated-GPU tests run everywhere. Tests marked ``gpu`` need cupy and a CUDA device and
are skipped cleanly otherwise; they make real cupy allocations and compare the accounting
with cupy's memory pool.
"""
from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

import inplace_lab as il
from inplace_lab import backend

torch = pytest.importorskip("torch")

real_gpu = pytest.mark.skipif(backend._CUPY_DEVICES == 0, reason="needs cupy and a CUDA device")
cpu_only = pytest.mark.skipif(backend._CUPY_DEVICES > 0, reason="behaviour of a machine without a GPU")
SAME_DEVICE = ("Expected all tensors to be on the same device, but found at least two devices, "
               "cuda:0 and cpu!")


@pytest.fixture
def sim():
    il.set_simulated_gpu(True)  # tests/conftest.py restores the switch afterwards
    yield
    gc.collect()


def test_device_objects_parse_like_torch():
    assert il.device("cuda:1") == il.device("gpu:1") and str(il.device("cuda:1")) == "cuda:1"
    assert repr(il.device("cpu")) == repr(torch.device("cpu"))
    assert repr(il.device("cuda:0")) == repr(torch.device("cuda:0"))
    assert il.zeros(2).device == il.device("cpu") == "cpu"
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        il.device("tpu")


@cpu_only
def test_cuda_without_a_gpu_names_the_simulated_switch():
    for make in (lambda: il.zeros(2, device="cuda"), lambda: il.zeros(2).cuda(),
                 lambda: il.zeros(2).to("cuda:0")):
        with pytest.raises(RuntimeError) as e:
            make()
        assert "set_simulated_gpu(True)" in str(e.value) and "INPLACE_LAB_SIMULATED_GPU=1" in str(e.value)


@cpu_only
def test_pin_memory_without_an_accelerator_raises_like_torch():
    x = il.zeros(2)
    assert not x.is_pinned() and not torch.zeros(2).is_pinned()
    with pytest.raises(RuntimeError) as want:
        torch.zeros(2).pin_memory()
    with pytest.raises(RuntimeError) as got:
        x.pin_memory()
    assert str(got.value) == str(want.value)


@cpu_only
def test_env_var_turns_on_the_simulated_gpu():
    code = ("import inplace_lab as il; x = il.ones(3, device='cuda'); "
            "print(x.device, il.memory_allocated('cuda:0'), il.backend.device_label(x.device))")
    env = dict(os.environ, INPLACE_LAB_SIMULATED_GPU="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.stdout.split() == ["cuda:0", "12", "cuda:0", "(simulated", "on", "numpy)"]


@cpu_only
def test_simulated_gpu_has_its_own_accounting_and_is_labelled(sim):
    gc.collect()  # (an earlier test's cyclic garbage would be freed inside the count below)
    cpu0, gpu0 = il.memory_allocated("cpu"), il.memory_allocated("cuda")
    x = il.ones(10, device="cuda")
    assert x.is_cuda and x.device == il.device("cuda:0")
    assert il.memory_allocated("cuda:0") == gpu0 + 40 and il.memory_allocated("cpu") == cpu0
    assert backend.device_label(x.device) == "cuda:0 (simulated on numpy)"
    rec = [r for r in il.memory_snapshot("cuda") if r.storage_id == x.untyped_storage().id]
    assert rec and rec[0].simulated and rec[0].device == "cuda:0"
    assert "simulated" in repr(x.untyped_storage())
    assert repr(x) == "tensor([1., 1., 1., 1., 1., 1., 1., 1., 1., 1.], device='cuda:0')"
    del x, rec
    gc.collect()
    assert il.memory_allocated("cuda:0") == gpu0


def test_to_and_cpu_cuda_move_data_between_devices(sim):
    x = il.arange(4.0)
    assert x.to("cpu") is x and x.cpu() is x
    g = x.cuda()
    assert g.device.type == "cuda" and g.tolist() == x.tolist()
    assert g.to("cuda") is g and g.cuda() is g
    assert g.untyped_storage() is not x.untyped_storage() and g.data_ptr() != x.data_ptr()
    g.add_(1)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]  # a copy, not an alias
    back = g.cpu()
    assert back.device == "cpu" and back.tolist() == [1.0, 2.0, 3.0, 4.0]
    h = x.to("cuda", il.float64)
    assert h.device.type == "cuda" and h.dtype is il.float64
    assert x.to(h).device == h.device and x.to(h).dtype is il.float64


def test_to_keeps_the_autograd_edge(sim):
    x = il.tensor([1.0, 2.0], requires_grad=True)
    y = x.cuda() * 3
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and x.grad.device == "cpu"


def test_cross_device_ops_raise_torchs_text(sim):
    g, c = il.ones(2, device="cuda"), il.ones(2)
    for op in (lambda: g + c, lambda: il.mul(g, c), lambda: g.add_(c)):
        with pytest.raises(RuntimeError) as e:
            op()
        assert str(e.value) == SAME_DEVICE
    assert g._version == 0
    assert (g + il.tensor(1.0)).device.type == "cuda"  # a 0-dim CPU tensor may join


def test_copy_across_devices_is_allowed_and_bumps_once(sim):
    g, c = il.zeros(3, device="cuda"), il.arange(3.0)
    g.copy_(c)
    assert g.tolist() == [0.0, 1.0, 2.0] and g._version == 1 and g.device.type == "cuda"
    c.copy_(g + 1)
    assert c.tolist() == [1.0, 2.0, 3.0] and c._version == 1


def test_numpy_of_a_cuda_tensor_raises_like_torch(sim):
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        il.ones(2, device="cuda").numpy()


@real_gpu
def test_real_gpu_tensors_are_cupy_arrays_counted_like_cupys_pool():
    import cupy as cp

    pool = cp.get_default_memory_pool()
    gc.collect()
    before, used0 = il.memory_allocated("cuda:0"), pool.used_bytes()
    x = il.ones(1 << 20, device="cuda")
    assert isinstance(x.untyped_storage().data, cp.ndarray)
    assert il.memory_allocated("cuda:0") - before == 4 << 20 == pool.used_bytes() - used0
    y = x * 2
    assert il.memory_allocated("cuda:0") - before == 8 << 20 == pool.used_bytes() - used0
    del x, y
    gc.collect()
    assert il.memory_allocated("cuda:0") == before and pool.used_bytes() == used0


@real_gpu
def test_real_gpu_relu_inplace_peak():
    x = il.rand(1, 64, 512, 512, device="cuda")
    base = il.memory_allocated("cuda:0")
    il.reset_peak_memory_stats("cuda:0")
    x.relu_()
    assert il.max_memory_allocated("cuda:0") == base
    y = il.relu(x)
    assert il.max_memory_allocated("cuda:0") == base + 67_108_864
    del y


@real_gpu
def test_real_gpu_pin_memory_and_round_trip():
    x = il.arange(6.0).reshape(2, 3)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and p.tolist() == x.tolist()
    assert p.pin_memory() is p
    g = p.cuda()
    assert g.cpu().tolist() == x.tolist()
    with pytest.raises(RuntimeError) as e:
        g + x
    assert str(e.value) == SAME_DEVICE
