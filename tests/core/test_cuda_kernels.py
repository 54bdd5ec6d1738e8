"""The vectorised CUDA kernels (inplace_lab/cuda_kernels.py) give cupy's ufunc answers bit for
bit, and step aside wherever they do not apply. Needs cupy and a GPU: skipped elsewhere, but
for the sources' compile check, which needs only nvcc."""
import shutil
import subprocess
import types

import numpy as np
import pytest

from inplace_lab import backend, cuda_kernels
import inplace_lab.torch as T

gpu = pytest.mark.skipif(backend._CUPY_DEVICES == 0, reason="needs cupy and a CUDA device")

OPS = ("add", "subtract", "multiply", "true_divide")
N = cuda_kernels.MIN_ELEMENTS


def _arrays(n, dtype, seed=0):
    import cupy

    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)
    y[::7] = 0.0  # (division by zero: inf and nan)
    x[::11] = np.nan
    return cupy.asarray(x), cupy.asarray(y)


def _bits(a):
    import cupy

    return cupy.asnumpy(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


@gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n", [N, N + 1, N + 2, N + 3, 3 * N + 5])
def test_tensor_tensor_and_tensor_number_match_cupys_ufunc_bit_for_bit(op, dtype, n):
    import cupy

    f = getattr(cupy, op)
    npd = np.dtype(dtype)
    x, y = _arrays(n, dtype)
    for args in ((x, y), (x, 1.1), (2.5, y), (x, 3)):
        got = cuda_kernels.binary(f, args, None, npd)
        assert got is not None, (op, dtype, n, args[1].__class__)
        np.testing.assert_array_equal(_bits(got), _bits(f(*args, dtype=npd)))
    target = x.copy()
    assert cuda_kernels.binary(f, (target, y), target, npd) is target  # in place: out=a
    np.testing.assert_array_equal(_bits(target), _bits(f(x, y)))


@gpu
def test_the_ufunc_runs_where_the_kernel_does_not_apply():
    import cupy

    x, y = _arrays(N + 5, "float32")
    npd = np.dtype("float32")
    for args in ((x[1:], y[1:]),          # 4 bytes off a 16-byte boundary
                 (x[::2], y[::2]),        # strided
                 (x[:N // 2], y[:N // 2]),  # few elements
                 (x, True),               # a bool is not a number here
                 (x, 2 ** 60)):           # an int a double cannot hold
        assert cuda_kernels.binary(cupy.add, args, None, npd) is None
    assert cuda_kernels.binary(cupy.maximum, (x, y), None, npd) is None
    assert cuda_kernels.binary(cupy.add, (x, y), None, np.dtype("float16")) is None
    assert cuda_kernels.binary(cupy.add, (x.reshape(-1, 1)[:N], y[:N]), None, npd) is None


@gpu
def test_the_library_uses_them_with_the_same_answers_versions_and_bytes():
    x = T.randn(1 << 20, device="cuda")
    y = T.randn(1 << 20, device="cuda")
    ref = (x.cpu() * y.cpu() + 1.0).numpy()
    before = T.cuda.memory_allocated()
    z = x * y + 1.0
    assert T.cuda.memory_allocated() - before == 4 << 20  # (x * y freed, z held)
    np.testing.assert_array_equal(z.cpu().numpy(), ref)
    v = x._version
    x.add_(y)
    x.mul_(2.0)
    assert x._version == v + 2
    np.testing.assert_array_equal(z.cpu().numpy(), ref)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (CUDA's compiler)")
def test_every_kernel_source_compiles_without_a_warning(tmp_path, monkeypatch):
    sources = {}

    class RawKernel:  # (records what cupy would compile)
        def __init__(self, src, name):
            sources[name] = src

        def __call__(self, *args):
            pass

    monkeypatch.setattr(cuda_kernels, "_cupy", types.SimpleNamespace(RawKernel=RawKernel))
    monkeypatch.setattr(cuda_kernels, "_kernels", {})
    for op in cuda_kernels._OPS:
        for dt in cuda_kernels._TYPES:
            for form in ("tt", "ts", "st"):
                cuda_kernels._kernel(op, dt, form)
    assert len(sources) == 4 * 2 * 3
    cu = tmp_path / "kernels.cu"
    cu.write_text("\n".join(sources.values()))
    r = subprocess.run(["nvcc", "-ptx", str(cu), "-o", str(tmp_path / "k.ptx")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
