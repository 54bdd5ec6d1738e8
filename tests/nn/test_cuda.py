"""inplace_lab.cuda: device context and memory stats (simulated GPU always; a real one via cupy)."""
from __future__ import annotations

import pytest

import inplace_lab as il
import inplace_lab.nn as nn
from inplace_lab import backend


@pytest.fixture
def sim_gpu():
    if backend.gpu_count() and not backend.simulated_gpu():
        yield "real"
        return
    old = backend._simulated
    il.set_simulated_gpu(True)
    try:
        yield "simulated"
    finally:
        il.set_simulated_gpu(old)


def test_device_context_sets_and_restores_the_current_device(sim_gpu):
    assert il.cuda.is_available() and il.cuda.device_count() >= 1
    assert il.cuda.current_device() == 0
    with il.cuda.device(0):
        assert il.cuda.current_device() == 0
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        with il.cuda.device(il.cuda.device_count()):
            pass
    assert il.cuda.current_device() == 0


def test_memory_stats_show_relu_inplace_saves_a_copy(sim_gpu):
    x = il.ones(1, 4, 64, 64, device="cuda")
    il.cuda.reset_peak_memory_stats()
    base = il.cuda.memory_allocated()
    y = nn.functional.relu(x)
    assert il.cuda.max_memory_allocated() - base == x.nbytes
    del y
    il.cuda.reset_peak_memory_stats()
    nn.ReLU(inplace=True)(x)
    assert il.cuda.max_memory_allocated() == il.cuda.memory_allocated() == base


def test_a_model_on_the_gpu_trains_and_stays_there(sim_gpu):
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=True), nn.Linear(4, 2)).cuda()
    w = m[0].weight
    assert w.is_cuda and m[0].weight is w
    opt = il.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    loss = nn.CrossEntropyLoss()(m(il.randn(5, 3, device="cuda")),
                                 il.tensor([0, 1, 0, 1, 1], device="cuda"))
    loss.backward()
    opt.step()
    assert w.is_cuda and w.grad.is_cuda and opt.state[w]["momentum_buffer"].is_cuda


def test_ops_across_devices_raise_a_clear_error(sim_gpu):
    lin = nn.Linear(3, 2).cuda()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        lin(il.randn(2, 3))


def test_without_any_gpu_the_context_explains_why():
    if backend.gpu_count():
        pytest.skip("a GPU (real or simulated) is present")
    assert not il.cuda.is_available()
    with pytest.raises(RuntimeError):
        with il.cuda.device(0):
            pass


def test_real_gpu_pinned_loader_and_non_blocking_copy():
    pytest.importorskip("cupy")
    if not backend.is_real_gpu(il.device("cuda:0")):
        pytest.skip("cupy found no CUDA device")
    from inplace_lab.utils.data import DataLoader, TensorDataset

    dl = DataLoader(TensorDataset(il.randn(8, 3), il.arange(8)), batch_size=4, pin_memory=True)
    xb, yb = next(iter(dl))
    assert xb.is_pinned() and yb.is_pinned()
    g = xb.to("cuda", non_blocking=True)
    il.cuda.synchronize()
    assert g.is_cuda and g.cpu().tolist() == xb.tolist()
