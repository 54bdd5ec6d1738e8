"""The GPU half of the kernels, checked on any machine through ``cupy_like``.

Each case met a difference on a real H200 (cupy 14.2) before its fix: cupy's ufuncs take no
``where=``, its ``clip`` no ``dtype``, it has no ``errstate`` and no ``maximum.accumulate``,
and its new results are C-ordered whatever the inputs' layout. Each op runs on the CPU and
on ``cuda`` (the simulated GPU backed by cupy_like, or a real GPU where there is one): the
same values, strides, versions and gradients.
"""
from __future__ import annotations

import numpy as np
import pytest

import inplace_lab as il
import inplace_lab.torch as T
from inplace_lab import backend
from tests.differential.cupy_like import any_gpu, cupy_like


@pytest.fixture(autouse=True)
def gpu():
    with any_gpu():
        yield


def _on(dev, fn):
    x = T.tensor([[-1.5, 0.25, 2.0], [0.5, -0.75, 3.5]], device=dev)
    return fn(x)


CASES = {
    "clamp": lambda x: x.clamp(-0.5, 0.5),
    "clamp_ int": lambda x: x.to(T.int32).clamp_(-1, 2),
    "hardtanh": lambda x: T.nn.functional.hardtanh(x, -0.5, 1.0),
    "relu6 in place": lambda x: T.nn.functional.relu6(x, inplace=True),
    "leaky_relu in place": lambda x: T.nn.functional.leaky_relu(x, 0.2, inplace=True),
    "cummax": lambda x: x.cummax(1),
    "cummin": lambda x: x.cummin(0),
    "mode": lambda x: x.round().mode(1),
    "round(decimals)": lambda x: x.round(decimals=1),
    "scatter_add_ on bool": lambda x: (x > 0).scatter_add_(  # (cupy's add.at refuses bool)
        0, T.zeros(2, 3, dtype=T.long, device=x.device), T.ones(2, 3, dtype=T.bool, device=x.device)),
    "sigmoid": lambda x: x.sigmoid(),
    "transposed times two": lambda x: x.t() * 2,
    "transposed pow": lambda x: x.t().pow(2),
    "transposed clamp": lambda x: x.t().clamp(0, 1),
    "logcumsumexp": lambda x: x.logcumsumexp(1),
}


def _seen(r):
    rs = r if isinstance(r, tuple) else (r,)
    return [(t.tolist(), t.stride(), t._version, str(t.dtype)) for t in rs]


@pytest.mark.parametrize("name", CASES)
def test_an_op_on_cuda_gives_the_cpus_values_strides_and_versions(name):
    fn = CASES[name]
    cpu, gpu = _on("cpu", fn), _on("cuda", fn)
    assert all(t.device.type == "cuda" for t in (gpu if isinstance(gpu, tuple) else (gpu,)))
    assert _seen(gpu) == _seen(cpu)


def test_sinc_rounds_as_torchs_formula_not_cupys_sinc():
    """sinc(2.0) in float32 is sin(2 pi) / (2 pi) = 2.78e-08 in torch (both devices); cupy's own
    sinc gave 0.0. The GPU's sin may differ from numpy's by an ulp elsewhere (0.25: CUDA's
    sinf), so values agree to float32 rounding and the zero is the formula's, not exact."""
    cpu, gpu = (T.tensor([-1.5, 0.25, 2.0, 3.5, 0.0], device=d).sinc() for d in ("cpu", "cuda"))
    assert gpu.device.type == "cuda" and gpu.tolist()[4] == 1.0
    assert abs(gpu.tolist()[2] - 2.7827534e-08) < 1e-14
    np.testing.assert_allclose(gpu.tolist(), cpu.tolist(), rtol=1e-6, atol=1e-12)


def test_a_gradient_through_a_permute_keeps_the_cpus_layout_and_version():
    """pow's backward on a permuted input: cupy's C-ordered result permuted back used to
    give the leaf a non-contiguous gradient, copied in (version 1) by the layout contract."""
    out = {}
    for dev in ("cpu", "cuda"):
        x = T.arange(6.0, device=dev).reshape(2, 3).requires_grad_()
        x.t().pow(2).sum().backward()
        g, = T.autograd.grad(x.permute(1, 0).exp().sum(), [x])
        out[dev] = (x.grad.tolist(), x.grad.stride(), x.grad._version, g.stride())
    assert out["cuda"] == out["cpu"] == ([[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]], (3, 1), 0, (3, 1))


def test_cupy_like_refuses_what_cupy_refuses():
    a = np.ones((2, 3))
    with pytest.raises(TypeError, match="Wrong arguments"):
        cupy_like.multiply(a, 2, out=a, where=a > 0)
    with pytest.raises(TypeError, match="dtype"):
        cupy_like.clip(a, 0, 1, dtype=np.float64)
    with pytest.raises(NotImplementedError, match="cupy_maximum.accumulate"):
        cupy_like.maximum.accumulate(a)
    assert not hasattr(cupy_like, "errstate")
    assert cupy_like.add(a.T, 1).flags.c_contiguous and not np.add(a.T, 1).flags.c_contiguous


def test_backend_helpers_take_the_gpu_branch_for_a_non_numpy_module():
    a = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    assert backend.accumulate(cupy_like, "maximum", a, 1).tolist() == \
        np.maximum.accumulate(a, axis=1).tolist()
    out = np.empty((2, 3), np.float32)
    r = backend.clip(cupy_like, a, 1.0, 4.0, out, np.float32)
    assert r is out and out.tolist() == np.clip(a, 1, 4).tolist()
    assert backend.special_for(cupy_like) is cupy_like.special


def test_a_cpu_scalar_tensor_joins_a_cuda_op():
    g = T.ones(2, device="cuda")
    r = g + T.tensor(1.5)
    assert r.device == il.device("cuda:0") and r.tolist() == [2.5, 2.5]
    g.mul_(T.tensor(2.0))
    assert g.tolist() == [2.0, 2.0] and g._version == 1


def test_type_names_on_a_gpu_are_torch_cudas():
    """torch.cuda.FloatTensor in x.type() and in the saved-tensor error (seen on torch CUDA)."""
    x = T.ones(3, device="cuda", requires_grad=True)
    assert x.type() == "torch.cuda.FloatTensor" and T.ones(1).type() == "torch.FloatTensor"
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    assert "[torch.cuda.FloatTensor [3]], which is output 0 of Exp" in str(e.value)
    t = T.zeros(2, 3, device="cuda")
    with pytest.raises(RuntimeError, match=r"^expand\(CUDABoolType\{\[2, 2, 3\]\}, size=\[2, 3\]\)"):
        t.masked_scatter_(T.ones(2, 2, 3, dtype=T.bool, device="cuda"), T.ones(12, device="cuda"))


def test_setitem_of_a_gpu_scalar_tensor_copies_and_of_a_number_fills():
    """ATen's copy_to fills only with a 0-dim CPU value; setitem makes a number's value on the
    CPU even for a GPU tensor, so only a 0-dim GPU tensor value is copied (CopyBackwards)."""
    def names(dev, value):
        w = T.ones(2, 3, device=dev, requires_grad=True)
        t = w * 1
        t[:] = value(dev)
        fn = t.grad_fn
        return type(fn).__name__, [type(f).__name__ for f, _ in fn.next_functions]

    scalar = lambda dev: T.tensor(2.0, device=dev, requires_grad=True) * 1  # noqa: E731
    assert names("cpu", scalar)[0] == "FillBackward3"
    assert names("cuda", scalar) == ("CopyBackwards", ["MulBackward0", "ExpandBackward0"])
    assert names("cuda", lambda dev: 0.5)[0] == names("cpu", lambda dev: 0.5)[0] == "FillBackward3"
