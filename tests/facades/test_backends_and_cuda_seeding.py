"""The seeding and device-picking boilerplate of torch programs runs as on torch 2.13's CPU
build: ``torch.cuda.manual_seed_all``, ``torch.backends.cudnn.*`` flags, ``mps.is_available``."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import inplace_lab.torch as il  # noqa: E402


def _flags(T):
    b = T.backends
    return (b.cudnn.enabled, b.cudnn.deterministic, b.cudnn.benchmark, b.cudnn.allow_tf32,
            b.cudnn.is_available(), b.cudnn.version(), b.mps.is_available(), b.mps.is_built(),
            b.cuda.is_built(), b.cuda.matmul.allow_tf32, b.mkldnn.is_available(),
            b.mkl.is_available(), b.openmp.is_available(), b.cpu.get_cpu_capability())


@pytest.mark.skipif(torch.cuda.is_available() or il.cuda.is_available(), reason="CPU-only view")
def test_backend_flags_and_answers_match_the_cpu_build():
    assert _flags(il) == _flags(torch)
    for T in (torch, il):
        old = T.backends.cudnn.deterministic, T.backends.cudnn.benchmark
        T.backends.cudnn.deterministic, T.backends.cudnn.benchmark = True, False
        assert (T.backends.cudnn.deterministic, T.backends.cudnn.benchmark) == (True, False)
        T.backends.cudnn.deterministic, T.backends.cudnn.benchmark = old
    import inplace_lab.torch.backends.cudnn as cudnn

    assert cudnn is il.backends.cudnn


def _seeding(T):
    out = []
    for call in ("manual_seed(3)", "manual_seed_all(3)", "seed()", "seed_all()",
                 "initial_seed()", "get_rng_state()"):
        try:
            out.append(("ok", eval("T.cuda." + call, {"T": T})))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.skipif(torch.cuda.is_available() or il.cuda.is_available(), reason="CPU-only view")
def test_cuda_seeding_is_a_no_op_without_a_gpu_as_torch():
    assert _seeding(il) == _seeding(torch)
    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    il.manual_seed(0)
    il.cuda.manual_seed_all(0)
    assert il.randn(3).tolist() == torch.randn(3).tolist()  # (the CPU stream is untouched)
