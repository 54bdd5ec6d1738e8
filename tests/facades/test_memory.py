"""The relu peak-memory lesson on the simulated GPU, through both facades.

A float32 [1, 64, 512, 512] tensor is 67,108,864 bytes: ``relu(x)`` peaks at twice that
(x and y alive), ``relu_(x)`` at exactly that.
"""
from __future__ import annotations

import pytest

import inplace_lab as il
from inplace_lab.paddle import creation as paddle_creation

SHAPE = [1, 64, 512, 512]


@pytest.fixture
def gpu():
    import gc

    il.set_simulated_gpu(True)
    gc.collect()  # (earlier tests' cyclic garbage on the GPU would count in the peaks)
    yield
    paddle_creation.set_device("cpu")


def test_paddle_relu_peaks_at_two_tensors_relu_inplace_at_one(gpu):
    import inplace_lab.paddle as paddle
    import inplace_lab.paddle.nn.functional as F

    paddle.set_device("gpu")
    assert paddle.get_device() == "gpu:0"
    x = paddle.zeros(SHAPE)
    assert str(x.place) == "Place(gpu:0)"
    paddle.device.cuda.reset_max_memory_allocated()
    y = F.relu(x)
    assert paddle.device.cuda.max_memory_allocated() == 134_217_728
    del y
    paddle.device.cuda.reset_max_memory_allocated()
    z = F.relu_(x)
    assert z is x
    assert paddle.device.cuda.max_memory_allocated() == 67_108_864
    assert paddle.device.cuda.memory_allocated() == 67_108_864


def test_torch_relu_peaks_at_two_tensors_relu_inplace_at_one(gpu):
    import inplace_lab.torch as torch

    assert torch.cuda.is_available()
    x = torch.zeros(SHAPE, device="cuda")
    torch.cuda.reset_peak_memory_stats()
    y = torch.relu(x)
    assert torch.cuda.max_memory_allocated() == 134_217_728
    del y
    torch.cuda.reset_peak_memory_stats()
    torch.relu_(x)
    assert torch.cuda.max_memory_allocated() == 67_108_864


def test_no_gpu_means_set_device_gpu_fails_clearly():
    il.set_simulated_gpu(False)
    if il.backend.gpu_count():
        pytest.skip("a real GPU is present")
    with pytest.raises(RuntimeError, match="no GPU available"):
        paddle_creation.set_device("gpu")
