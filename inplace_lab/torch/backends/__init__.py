"""``torch.backends``: the flags seeding and device-picking boilerplate reads and sets.

``torch.backends.cudnn.deterministic = True``, ``torch.backends.cudnn.benchmark = False`` and
``torch.backends.mps.is_available()`` run as in PyTorch 2.13's CPU build: the flags are plain
attributes (numpy and cupy have no autotuner to steer, so they change nothing here), and the
``is_available``/``is_built`` answers say what this machine has (cudnn and the cuda backend
follow ``torch.cuda.is_available()``; there is no MPS; the CPU capability is read from the
CPU's flags as ATen's dispatcher names it).
"""
from __future__ import annotations

import sys
import types

from inplace_lab import cuda as _cuda


def _module(name: str, doc: str, **attrs) -> types.ModuleType:
    m = types.ModuleType(f"{__name__}.{name}", doc)
    m.__dict__.update(attrs)
    sys.modules[m.__name__] = m
    return m


def _cpu_capability() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith("flags")), "").split()
    except OSError:
        return "DEFAULT"
    return "AVX512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "DEFAULT"


cudnn = _module("cudnn", "cuDNN's flags (plain attributes here).",
                enabled=True, deterministic=False, benchmark=False, allow_tf32=True,
                benchmark_limit=10, is_available=lambda: _cuda.is_available(),
                version=lambda: None)
mps = _module("mps", "Apple's Metal backend: never present here.",
              is_available=lambda: False, is_built=lambda: False)
cuda = _module("cuda", "The CUDA backend's flags.", is_built=lambda: _cuda.is_available(),
               matmul=types.SimpleNamespace(allow_tf32=False,
                                            allow_fp16_reduced_precision_reduction=True,
                                            allow_bf16_reduced_precision_reduction=True))
mkldnn = _module("mkldnn", "oneDNN's flags.", enabled=True, is_available=lambda: True)
mkl = _module("mkl", "MKL (torch's CPU build has it).", is_available=lambda: True)
openmp = _module("openmp", "OpenMP (torch's CPU build has it).", is_available=lambda: True)
cpu = _module("cpu", "The CPU kernels' dispatch.", get_cpu_capability=_cpu_capability)

__all__ = ["cudnn", "mps", "cuda", "mkldnn", "mkl", "openmp", "cpu"]
