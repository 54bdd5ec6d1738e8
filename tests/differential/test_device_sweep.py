"""The sweep's programs with ``cuda`` as the default device against the CPU run.

On a real GPU this compares the cupy half of the backend with the numpy half on every op a
program uses (values, layouts, versions, grads, aliasing, errors). Without one it runs on the
simulated GPU backed by ``cupy_like`` (numpy refusing what cupy lacks, allocating as cupy
does), which checks the GPU code paths and that every factory honours the default device
and no op of a program mixes devices. ``INPLACE_LAB_DEVICE_SWEEP=N`` runs N seeds of each
builder (default 300).
"""
from __future__ import annotations

import os

import pytest

from tests.differential.cupy_like import any_gpu
from tests.differential.device_sweep import OnDevice, difference, observe_on, report
from tests.differential.program_builder import build
from tests.differential.program_builder_wide import build as build_wide

pytest.importorskip("torch")
lab = pytest.importorskip("inplace_lab.torch")

SEEDS = int(os.environ.get("INPLACE_LAB_DEVICE_SWEEP", "300"))
CHUNK = 50


@pytest.fixture(autouse=True)
def gpu():
    with any_gpu():
        yield


@pytest.mark.parametrize("builder", [build, build_wide], ids=["core", "wide"])
@pytest.mark.parametrize("start", range(0, SEEDS, CHUNK))
def test_programs_run_the_same_on_cuda_as_on_the_cpu(builder, start):
    bad = [report(s, builder(s), OnDevice(lab, "cpu"), OnDevice(lab, "cuda"))
           for s in range(start, min(start + CHUNK, SEEDS))]
    bad = [b for b in bad if b]
    assert not bad, "\n".join(bad)


def test_the_cuda_run_is_on_cuda_and_a_difference_is_caught():
    seen = observe_on(["t0 = T.ones(2)", "t1 = T.tensor(str(t0.device) == 'cuda:0')"],
                      OnDevice(lab, "cuda"))
    assert seen[1]["state"]["t1"]["values"].item() is True
    assert lab.get_default_device().type == "cpu"  # (reset after the run)
    d = difference(["t0 = T.ones(2)", "t1 = t0.numpy()"], OnDevice(lab, "cpu"),
                   OnDevice(lab, "cuda"))
    assert d[:2] == (1, ".line:unexpected_error") and "can't convert cuda:0" in d[3][2]
    # an uninitialised read (resize_ grows the storage) is stepped over, and the run stops there
    assert difference(["t0 = T.ones(2)", "t0.resize_(50)", "t1 = t0 * 0"], OnDevice(lab, "cpu"),
                      OnDevice(lab, "cuda")) is None


@pytest.mark.parametrize("start", range(600, 600 + SEEDS // 2, CHUNK))
def test_paddle_programs_run_the_same_on_gpu_as_on_the_cpu(start):
    """paddle_program_builder's programs with paddle.set_device('gpu') against 'cpu'."""
    pytest.importorskip("paddle")  # (the builder runs each line on real Paddle as it writes)
    from tests.differential.device_sweep import paddle_difference
    from tests.differential.paddle_program_builder import build as paddle_build

    bad = []
    for s in range(start, start + CHUNK):
        lines = paddle_build(s)
        d = paddle_difference(lines)
        if d:
            bad.append(f"seed {s}: line {d[0]} {d[1]}\n" + "\n".join(lines[: d[0] + 1]) +
                       f"\ncpu: {d[2]!r}\ngpu: {d[3]!r}")
    assert not bad, "\n".join(bad)


def test_a_paddle_kernel_refusal_on_the_gpu_names_the_gpu():
    import inplace_lab.paddle as paddle

    paddle.set_device("gpu")
    try:
        x = paddle.to_tensor([1, 4])
        with pytest.raises(RuntimeError) as e:
            paddle.nn.functional.relu_(x)
    finally:
        paddle.set_device("cpu")
    assert str(e.value).startswith("(NotFound) The kernel with key (GPU, Undefined(AnyLayout), "
                                   "int64) of kernel `relu` is not registered.")
    assert x.tolist() == [1, 4] and x.inplace_version == 0
