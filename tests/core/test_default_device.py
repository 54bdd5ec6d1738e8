"""torch.set_default_device / get_default_device and ``with torch.device(...)``.

Factory functions called without ``device=`` make their tensors on the default device;
``*_like`` and ``new_*`` follow their input, ``from_numpy`` stays on the CPU. The cuda
half runs on the real GPU where there is one, else on the simulated one.
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
import inplace_lab.torch as lab
from inplace_lab import backend

torch = pytest.importorskip("torch")


@pytest.fixture
def gpu():
    if not backend.gpu_count():
        il.set_simulated_gpu(True)  # tests/conftest.py restores the switch and the default
    return il.device("cuda:0")


def test_cpu_default_reads_like_torch():
    for T in (torch, lab):
        assert repr(T.get_default_device()) == "device(type='cpu')"
        T.set_default_device("cpu")
        assert repr(T.get_default_device()) == "device(type='cpu')"
        with T.device("cpu") as d:
            assert repr(d) == "device(type='cpu')" and T.zeros(1).device.type == "cpu"
        T.set_default_device(None)
        assert repr(T.get_default_device()) == "device(type='cpu')"


def test_bad_device_string_is_refused_when_set():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        lab.set_default_device("tpu")
    assert lab.get_default_device() == il.device("cpu")


@pytest.mark.skipif(backend.gpu_count() > 0, reason="behaviour of a machine without a GPU")
def test_missing_gpu_is_refused_by_the_first_factory_call_as_in_torch():
    lab.set_default_device("cuda")  # torch too accepts it here ...
    with pytest.raises(RuntimeError, match="set_simulated_gpu"):  # ... and fails at the factory
        lab.zeros(1)


def test_factories_follow_the_default_device(gpu):
    lab.set_default_device("cuda")
    assert lab.get_default_device() == gpu and repr(lab.get_default_device()) == \
        "device(type='cuda', index=0)"
    made = [lab.zeros(2), lab.ones(2, 3), lab.empty(1), lab.full((2,), 1.5), lab.tensor([1, 2]),
            lab.arange(3), lab.linspace(0, 1, 5), lab.eye(2), lab.rand(2), lab.randn(2),
            lab.randint(0, 4, (3,)), lab.randperm(3), lab.empty_strided((2, 2), (1, 2)),
            lab.as_tensor([1.0])]
    assert all(t.device == gpu for t in made)
    before = il.memory_allocated("cuda:0")
    x = lab.zeros(256)
    assert il.memory_allocated("cuda:0") == before + 1024
    del x


def test_like_functions_and_from_numpy_keep_their_source_device(gpu):
    c = lab.ones(2)
    lab.set_default_device("cuda")
    assert lab.zeros_like(c).device.type == "cpu" and c.new_zeros(2).device.type == "cpu"
    assert lab.from_numpy(np.ones(2)).device.type == "cpu"
    assert lab.tensor(c).device == gpu  # torch.tensor is a factory: the default wins
    lab.set_default_device(None)
    g = lab.ones(2, device="cuda")
    assert lab.tensor(g).device == gpu  # no default set: a tensor's copy stays where it was
    lab.set_default_device("cpu")
    assert lab.tensor(g).device.type == "cpu"


def test_with_device_nests_and_restores(gpu):
    with lab.device("cuda"):
        assert lab.ones(1).device == gpu
        with lab.device("cpu"):
            assert lab.ones(1).device.type == "cpu"
        assert lab.ones(1).device == gpu
    assert lab.ones(1).device.type == "cpu" and lab.get_default_device().type == "cpu"


def test_modules_and_a_training_step_run_on_the_default_device(gpu):
    """One model's weights trained on the CPU and, made under ``with device('cuda')``, on
    the GPU (its own random init replaced: a GPU draws other numbers): the same losses."""
    def make():
        return lab.nn.Sequential(lab.nn.Linear(6, 8), lab.nn.ReLU(), lab.nn.Linear(8, 3))

    lab.manual_seed(0)
    weights = make().state_dict()
    losses = {}
    for where in ("cpu", "cuda"):
        with lab.device(where):
            model = make()
            x = lab.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
            y = lab.tensor([0, 2, 1, 2])
        model.load_state_dict(weights)
        assert all(p.device.type == where for p in model.parameters())
        assert x.device.type == where and y.device.type == where
        opt = lab.optim.Adam(model.parameters(), lr=0.05)
        run = []
        for _ in range(5):
            opt.zero_grad()
            loss = lab.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            run.append(loss.item())
        losses[where] = run
    assert losses["cpu"][-1] < losses["cpu"][0]
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-5)
