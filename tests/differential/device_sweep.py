"""The sweep's programs on the GPU: the same program on inplace_lab's CPU and on ``cuda``.

A program (``program_builder``) builds its tensors with factory functions and no ``device=``,
so ``torch.set_default_device`` moves the whole program: run once with the CPU as default
and once with ``cuda``, every observation (values, layout, versions, autograd state, grads,
which tensors share a pointer or a storage, errors and warnings) must be the same. On a real
GPU that checks the cupy half of the backend against the numpy half, op by op; without one it
runs on the simulated GPU (numpy buffers accounted on ``cuda:0``) and checks that nothing in
a program's path drops the default device or mixes devices.

With ``--torch`` the cuda run is also compared with real torch on its own GPU (the device
machine's torch build, whatever version that is), with the sweep's known differences.

``python -m tests.differential.device_sweep [--wide] [--torch] [--jobs N] [--no-shrink] N [START]``, or
``... --programs FILE`` to read programs written by ``--write FILE`` (a machine with torch
2.13 writes them, so the programs are those the CPU sweep checked).
"""
from __future__ import annotations

import json
import sys

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


# A storage grown by resize_ (or by an out= result's resize) is uninitialised past its old
# end, in torch as here: what a program reads there differs from run to run, so the runs are
# compared up to that line.
UNINITIALISED = {"uninitialised": lambda line, path, a, b: path.endswith(".values") and (
    ".resize_(" in line or "out=" in line)}


def _known(known):
    """(known, stops): cpu against cuda steps over uninitialised reads and stops there."""
    return (UNINITIALISED, set(UNINITIALISED)) if known is None else (known, None)


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


def _programs(argv):
    if "--programs" in argv:
        with open(argv[argv.index("--programs") + 1]) as f:
            return [(p["seed"], p["lines"]) for p in json.load(f)]
    from .program_builder import build
    from .program_builder_wide import build as build_wide

    pos = [a for a in argv[1:] if not a.startswith("--") and not _is_option_value(argv, a)]
    n = int(pos[0]) if pos else 200
    start = int(pos[1]) if len(pos) > 1 else 0
    b = build_wide if "--wide" in argv else build
    return [(s, b(s)) for s in range(start, start + n)]


def _is_option_value(argv, a):
    i = argv.index(a)
    return i > 0 and argv[i - 1] in ("--programs", "--write", "--jobs")


def _check(job):
    seed, lines, with_torch, shrink = job
    import inplace_lab.torch as lab

    out = [report(seed, lines, OnDevice(lab, "cpu"), OnDevice(lab, "cuda"), shrink=shrink)]
    if with_torch:
        import torch

        out.append(report(seed, lines, OnDevice(torch, "cuda"), OnDevice(lab, "cuda"), KNOWN,
                          shrink=False))  # (another torch version: many, left unshrunk)
    return seed, out


def main(argv):
    programs = _programs(argv)
    if "--write" in argv:
        with open(argv[argv.index("--write") + 1], "w") as f:
            json.dump([{"seed": s, "lines": lines} for s, lines in programs], f)
        return 0
    import inplace_lab as il

    if not il.backend.gpu_count():
        import os

        os.environ["INPLACE_LAB_SIMULATED_GPU"] = "1"  # (for the workers too)
        il.set_simulated_gpu(True)
    print(f"{len(programs)} programs on {il.backend.device_label(il.device('cuda:0'))}",
          flush=True)
    with_torch = "--torch" in argv
    shrink = "--no-shrink" not in argv  # (minimising reruns a program many times)
    jobs = [(s, lines, with_torch, shrink) for s, lines in programs]
    n = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 1
    bad = {"cpu vs cuda": [], "torch cuda vs inplace_lab cuda": []}

    def tally(seed, out):
        for (label, seeds), text in zip(bad.items(), out):
            if text is not None:
                seeds.append(seed)
                print(f"[{label}] {text}", flush=True)
    if n > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(n) as pool:
            for seed, out in pool.imap_unordered(_check, jobs, chunksize=2):
                tally(seed, out)
    else:
        for job in jobs:
            tally(*_check(job))
    for label, seeds in bad.items():
        print(f"{label}: {len(seeds)} of {len(programs)} differ {seeds[:40]}")
    return 1 if bad["cpu vs cuda"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
