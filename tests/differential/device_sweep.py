"""The sweep's programs on the GPU: the same program on inplace_lab's CPU and on ``cuda``.

A program (``program_builder``) builds its tensors with factory functions and no ``device=``,
so ``torch.set_default_device`` moves the whole program: run once with the CPU as default
and once with ``cuda``, every observation (values, layout, versions, autograd state, grads,
which tensors share a pointer or a storage, errors and warnings) must be the same. On a real
GPU that checks the cupy half of the backend against the numpy half, op by op; without one it
runs on the simulated GPU backed by ``cupy_like`` (numpy that refuses what cupy lacks and
lays results out as cupy does), which checks the GPU code paths and that nothing in a
program's path drops the default device or mixes devices.

With ``--torch`` the cuda run is also compared with real torch on its own GPU (the device
machine's torch build, whatever version that is), with the sweep's known differences.

``python -m tests.differential.device_sweep [--wide|--both] [--torch] [--jobs N] [--no-shrink]
N [START]``, or ``... --programs FILE`` to read programs written by ``--write FILE`` (a machine
with torch 2.13 writes them, so the programs are those the CPU sweep checked):
``python -m tests.differential.device_sweep --both --write .gpu/programs.json 1500``.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from .program_sweep import KNOWN, first_difference, minimise, observe


class OnDevice:
    """A framework module with a default device: ``T`` for one run of a program."""

    def __init__(self, module, device):
        self._module, self._device = module, device

    def __getattr__(self, name):
        return getattr(self._module, name)


def observe_on(lines, T, **kw):
    """``observe`` with ``T``'s default device set while the program runs (and reset after)."""
    if not isinstance(T, OnDevice):
        return observe(lines, T, **kw)
    old = T._module.get_default_device()
    T._module.set_default_device(T._device)
    try:
        return observe(lines, T._module, **kw)
    finally:
        T._module.set_default_device(old)


def _is_fp_warning(w):
    return w[0] == "RuntimeWarning" and "encountered in" in w[1]


def _close(a, b):
    return np.allclose(a, b, rtol=1e-4, atol=1e-6, equal_nan=True)


_WRITES = (".scatter(", ".scatter_(", "index_copy", "index_put", "] = ")

# Where a CPU run and a GPU run of one program may part, in torch as here:
DEVICE_KNOWN = {
    # A storage grown by resize_ (or by an out= result's resize) is uninitialised past its old
    # end: what a program reads there differs from run to run.
    "uninitialised": lambda line, path, a, b: path.endswith(".values") and (
        ".resize_(" in line or "out=" in line),
    # Duplicate indices in a write (scatter, index_copy_, index_put_, x[idx] = v): which of the
    # writes lands is undefined on a GPU (torch's docs say so).
    "duplicate_index_writes": lambda line, path, a, b: path.endswith(".values") and
    any(op in line for op in _WRITES),
    # numpy's floating-point RuntimeWarnings: the sweep records every warning (inplace_lab
    # filters these for its users, as torch gives none); cupy gives none either.
    "numpy_fp_warnings": lambda line, path, a, b: path.endswith(".warnings") and
    all(_is_fp_warning(w) for w in list(a) + list(b)),
    # torch's type names in error texts: torch.cuda.FloatTensor, CUDABoolType on a GPU.
    "device_type_names": lambda line, path, a, b: path.endswith(":error_text") and
    b.replace("torch.cuda.", "torch.").replace("CUDA", "CPU") == a,
    # x[i] = t with a 0-dim t: ATen's copy_to fills (FillBackward3) with a CPU value only; a
    # GPU one is viewed, expanded and copied (CopyBackwards): the graph differs from there.
    "setitem_gpu_scalar": lambda line, path, a, b: "] = " in line and
    path.split(".")[-1].split(":")[0] in ("grad_fn", "next"),
    # A GPU's float32 exp/pow/... round differently by a few ulps.
    "gpu_rounding": lambda line, path, a, b: path.endswith(".values") and _close(a, b),
}
DEVICE_STOPS = {"uninitialised", "duplicate_index_writes", "setitem_gpu_scalar"}


def _known(known):
    """(known, stops): cpu against cuda steps over DEVICE_KNOWN (stopping where the runs part)."""
    return (DEVICE_KNOWN, DEVICE_STOPS) if known is None else (known, None)


def difference(lines, ref, got, known=None):
    """(line, path, ref's, got's) where the two runs first part, or None."""
    known, stops = _known(known)
    return first_difference(lines, ref, got, known, observe_fn=observe_on, stops=stops)


def report(seed, lines, ref, got, known=None, shrink=True):
    """None if the program runs the same on both; else the (minimised) program and the field."""
    d = difference(lines, ref, got, known)
    if d is None:
        return None
    if shrink:
        known, stops = _known(known)
        lines, d = minimise(lines, ref, got, known=known, observe_fn=observe_on, stops=stops)
    else:
        lines = lines[: d[0] + 1]
    return (f"--- seed {seed}: line {d[0]} {d[1]}\n" + "\n".join(lines) +
            f"\nref: {d[2]!r}\ngot: {d[3]!r}")


# ---- Paddle programs: paddle.set_device('gpu') against 'cpu' -------------------------------

def paddle_observe_on(lines, dev):
    """``paddle_program_sweep.observe`` of ``inplace_lab.paddle`` with ``dev`` set."""
    import inplace_lab.paddle as lab

    from .paddle_program_sweep import observe as paddle_observe

    old = lab.get_device()
    lab.set_device(dev)
    try:
        return paddle_observe(lines, lab)
    finally:
        lab.set_device(old)


def _unnamed(text):
    from .paddle_program_sweep import _GENERATED

    return _GENERATED.sub("<name>", text)


PADDLE_DEVICE_KNOWN = dict(DEVICE_KNOWN, **{
    # The two runs share one process: Paddle's tensor-name counter runs on.
    "generated_names": lambda line, path, a, b: path.endswith("error_text") and
    _unnamed(a) == _unnamed(b),
    # Paddle's kernel refusal names the device's backend: (CPU, ...) against (GPU, ...).
    "kernel_backend": lambda line, path, a, b: path.endswith("error_text") and
    a.replace("(CPU, Undefined", "(GPU, Undefined") == b,
})


def paddle_difference(lines):
    """(line, path, cpu's, gpu's) where a Paddle program's runs first part, or None."""
    from .paddle_program_sweep import difference

    return difference(lines, "cpu", "gpu", PADDLE_DEVICE_KNOWN, DEVICE_STOPS, paddle_observe_on)


def _programs(argv):
    if "--programs" in argv:
        with open(argv[argv.index("--programs") + 1]) as f:
            return [(p["seed"], p["lines"]) for p in json.load(f)]
    from .program_builder import build
    from .program_builder_wide import build as build_wide

    pos = [a for a in argv[1:] if not a.startswith("--") and not _is_option_value(argv, a)]
    n = int(pos[0]) if pos else 200
    start = int(pos[1]) if len(pos) > 1 else 0
    seeds = range(start, start + n)
    if "--both" in argv:  # core and wide programs, seeds c<N> and w<N>
        return [(f"c{s}", build(s)) for s in seeds] + [(f"w{s}", build_wide(s)) for s in seeds]
    b = build_wide if "--wide" in argv else build
    return [(s, b(s)) for s in seeds]


def _is_option_value(argv, a):
    i = argv.index(a)
    return i > 0 and argv[i - 1] in ("--programs", "--write", "--jobs")


def use_cupy_like() -> None:
    """Without a real GPU, the cuda runs use ``cupy_like`` (cupy's refusals and layouts)."""
    from inplace_lab import backend

    from .cupy_like import cupy_like

    if not backend.gpu_count() or backend.simulated_gpu():
        backend.set_simulated_gpu(True)
        backend._simulated_xp = cupy_like


def _check(job):
    """A worker's job: the cpu/cuda report, and inplace_lab's cuda run for --torch."""
    seed, lines, with_torch, shrink = job
    import inplace_lab.torch as lab

    if os.environ.get("INPLACE_LAB_SIMULATED_GPU"):
        use_cupy_like()
    ours = observe_on(lines, OnDevice(lab, "cuda")) if with_torch else None
    return seed, report(seed, lines, OnDevice(lab, "cpu"), OnDevice(lab, "cuda"),
                        shrink=shrink), ours


def _torch_run(job):
    """torch CUDA's run of a program, in a process of torch's own: a device-side assert
    (an index out of range, which torch's CPU kernels raise as IndexError) poisons the
    process's CUDA context, cupy's included. None once that has happened."""
    seed, lines = job[:2]
    import torch

    seen = observe_on(lines, OnDevice(torch, "cuda"))
    return seed, None if "device-side assert" in repr(seen) else seen


def _versus_torch(lines, theirs, ours):
    """The first difference (beyond KNOWN) between torch's run and inplace_lab's, or None."""
    d = first_difference(lines, theirs, ours, KNOWN, observe_fn=lambda lines, seen: seen)
    if d is None:
        return None
    return ("--- " + f"line {d[0]} {d[1]}\n" + "\n".join(lines[: d[0] + 1]) +
            f"\nref: {d[2]!r}\ngot: {d[3]!r}")


def main(argv):
    programs = _programs(argv)
    if "--write" in argv:
        with open(argv[argv.index("--write") + 1], "w") as f:
            json.dump([{"seed": s, "lines": lines} for s, lines in programs], f)
        return 0
    import inplace_lab as il

    if not il.backend.gpu_count():
        os.environ["INPLACE_LAB_SIMULATED_GPU"] = "1"  # (for the workers too)
        use_cupy_like()
    xp = il.backend.xp_of(il.device("cuda:0")).__name__
    print(f"{len(programs)} programs on {il.backend.device_label(il.device('cuda:0'))} ({xp})",
          flush=True)
    with_torch = "--torch" in argv
    shrink = "--no-shrink" not in argv  # (minimising reruns a program many times)
    jobs = [(s, lines, with_torch, shrink) for s, lines in programs]
    n = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 1
    bad = {"cpu vs cuda": [], "torch cuda vs inplace_lab cuda": []}
    ours = {}

    def tally(seed, text, seen):
        ours[seed] = seen
        if text is not None:
            bad["cpu vs cuda"].append(seed)
            print(f"[cpu vs cuda] {text}", flush=True)
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    if n > 1:
        with ctx.Pool(n) as pool:
            for res in pool.imap_unordered(_check, jobs, chunksize=2):
                tally(*res)
    else:
        for job in jobs:
            tally(*_check(job))
    poisoned = []
    if with_torch:  # (torch in processes of its own, renewed often: see _torch_run)
        text = {s: lines for s, lines in programs}
        with ctx.Pool(max(n, 1), maxtasksperchild=20) as pool:
            for seed, theirs in pool.imap_unordered(_torch_run, jobs, chunksize=1):
                if theirs is None:
                    poisoned.append(seed)
                    continue
                d = _versus_torch(text[seed], theirs, ours[seed])
                if d is not None:
                    bad["torch cuda vs inplace_lab cuda"].append(seed)
                    print(f"[torch cuda vs inplace_lab cuda] seed {seed} {d}", flush=True)
    for label, seeds in bad.items():
        print(f"{label}: {len(seeds)} of {len(programs)} differ {seeds[:40]}")
    if poisoned:
        print(f"torch CUDA: {len(poisoned)} programs not compared (a device-side assert in "
              f"their process) {poisoned[:20]}")
    return 1 if bad["cpu vs cuda"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
