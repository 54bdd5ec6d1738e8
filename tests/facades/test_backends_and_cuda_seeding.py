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


def _cuda_answers(T, calls):
    """What each ``T.cuda.<call>`` returns or raises."""
    out = []
    for call in calls:
        try:
            out.append(("ok", eval("T.cuda." + call, {"T": T})))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            out.append((type(e).__name__, str(e)))
    return out


def _seeding(T):
    return _cuda_answers(T, ("manual_seed(3)", "manual_seed_all(3)", "seed()", "seed_all()",
                             "initial_seed()", "get_rng_state()"))


@pytest.mark.skipif(torch.cuda.is_available() or il.cuda.is_available(), reason="CPU-only view")
def test_cuda_seeding_is_a_no_op_without_a_gpu_as_torch():
    assert _seeding(il) == _seeding(torch)
    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    il.manual_seed(0)
    il.cuda.manual_seed_all(0)
    assert il.randn(3).tolist() == torch.randn(3).tolist()  # (the CPU stream is untouched)


def _memory_answers(T):
    # (memory_allocated is left out: tensors an earlier test made on the simulated GPU may
    # still be alive and counted)
    return [T.version.cuda] + _cuda_answers(T, (
        "memory_reserved()", "max_memory_reserved()", "memory_stats()", "memory_summary()",
        "get_device_name()", "get_device_properties(0)", "device_count()", "empty_cache()"))


@pytest.mark.skipif(torch.cuda.is_available() or il.cuda.is_available(), reason="CPU-only view")
def test_cuda_memory_questions_answer_as_the_cpu_build():
    assert _memory_answers(il) == _memory_answers(torch)


def test_simulated_gpu_reserves_what_it_allocates():
    import inplace_lab

    was = inplace_lab.backend.simulated_gpu()
    inplace_lab.set_simulated_gpu(True)
    try:
        if inplace_lab.backend.gpu_count() == 0 or not inplace_lab.backend.simulated_gpu():
            pytest.skip("a real GPU is present")
        base = il.cuda.memory_reserved()
        x = il.ones(1000, device="cuda")
        assert il.cuda.memory_reserved() - base == 4000
        assert il.cuda.max_memory_reserved() >= il.cuda.memory_reserved()
        stats = il.cuda.memory_stats()
        assert stats["allocated_bytes.all.current"] == il.cuda.memory_allocated()
        assert "Allocated memory" in il.cuda.memory_summary()
        assert il.cuda.get_device_name() == "inplace_lab simulated GPU"
        del x
    finally:
        inplace_lab.set_simulated_gpu(was)


def test_compile_runs_eagerly_with_torchs_wrapper():
    # What torch 2.13 answers, checked once by hand: torch.compile itself is not called here,
    # since importing torch._dynamo turns off torch.distributions' argument validation for the
    # rest of the process (and inductor would build C++ on the first call).
    m = il.nn.Linear(2, 1)
    c = il.compile(m)

    @il.compile
    def h(x):
        return x + 1

    assert type(c).__name__ == "OptimizedModule" and c._orig_mod is m
    assert list(c.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert repr(c) == ("OptimizedModule(\n  (_orig_mod): Linear(in_features=2, out_features=1, "
                       "bias=True)\n)")
    assert c.weight is m.weight and c.training and h.__name__ == "h"
    assert il.compile(m, disable=True) is m and callable(il.compile(mode="reduce-overhead"))
    x = il.ones(3, 2)
    assert il.equal(c(x), m(x))
    assert il.compile(lambda t: t * 2)(x).tolist() == (x * 2).tolist()
