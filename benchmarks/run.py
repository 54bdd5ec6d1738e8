"""The one command: run every section, print a table, write JSON (and RESULTS.md).

    python -m benchmarks                      # full suite (= make bench)
    python -m benchmarks --smoke --json p     # tiny sizes, a few seconds, JSON only
    python -m benchmarks --only 1,6           # some sections (RESULTS.md is not rewritten)

If OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set (some machines here set them for older
OpenBLAS builds; they slow a current numpy), the suite re-executes itself without both, in
its own process only, and RESULTS.md says what was set (``--keep-openblas-env`` keeps them).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from dataclasses import dataclass

from . import machine

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Config:
    chain_ops: int = 1000
    reps_small: int = 21
    large: int = 10 ** 7
    reps_large: int = 15
    mlp: tuple = (784, 512, 512, 10)
    batch: int = 256
    reps_train: int = 9
    cnn_channels: int = 8
    cnn_batch: int = 64
    relu_shape: tuple = (1, 64, 512, 512)
    mlp_instr: tuple = (784, 128, 10)
    batch_instr: int = 64
    reps_instr: int = 11
    graph_nodes: int = 1000
    reps_render: int = 3
    trace_steps: int = 5000
    profile_reps: int = 5
    warmup: int = 1
    instr_loads: int = 3  # how many of section 6's workloads run (smoke: the first only)


SMOKE = Config(chain_ops=40, reps_small=3, large=10 ** 4, reps_large=3, mlp=(32, 16, 16, 10),
               batch=8, reps_train=1, cnn_channels=2, cnn_batch=4, relu_shape=(1, 4, 16, 16),
               mlp_instr=(32, 16, 10), batch_instr=8, reps_instr=2, graph_nodes=40,
               reps_render=1, trace_steps=200, profile_reps=1, warmup=0,
               instr_loads=1)

SECTIONS = (  # id, key, title, "module:function"
    (1, "small_ops", "Small-op overhead vs torch CPU", "bench_core:small_ops"),
    (2, "inplace_large", "Large in-place elementwise vs numpy out=", "bench_core:inplace_large"),
    (3, "outofplace_large", "Large out-of-place elementwise and reductions vs numpy",
     "bench_core:outofplace_large"),
    (4, "training", "Training steps vs torch CPU", "bench_train:training"),
    (5, "memory", "Memory: tracked peak vs real peak", "bench_train:memory"),
    (6, "instrumentation", "Instrumentation: compiled out / no listener / recording",
     "bench_instr:instrumentation"),
    (7, "renderers", "Renderers (seconds)", "bench_render:renderers"),
    (8, "gpu", "GPU: cupy vs torch CUDA", "bench_gpu:gpu"),
)


def _parse(argv):
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, a few seconds (CI)")
    ap.add_argument("--json", default=None, help="JSON path (default benchmarks/results.json)")
    ap.add_argument("--md", default=None,
                    help="RESULTS.md path (default: benchmarks/RESULTS.md for a full run of "
                         "every section; not written otherwise)")
    ap.add_argument("--only", default="", help="comma-separated section ids")
    ap.add_argument("--no-profile", action="store_true", help="skip the cProfile pass")
    ap.add_argument("--keep-openblas-env", action="store_true")
    ap.add_argument("--render", metavar="JSON", default=None,
                    help="only rewrite RESULTS.md (or --md) from an existing results JSON, "
                         "e.g. after editing ANALYSIS.md")
    return ap.parse_args(argv)


def _reexec_without_openblas(argv):
    found = {k: os.environ[k] for k in machine.OPENBLAS_VARS if k in os.environ}
    if not found:
        return
    env = {k: v for k, v in os.environ.items() if k not in machine.OPENBLAS_VARS}
    env[machine.WAS_ENV] = ", ".join(f"{k}={v}" for k, v in found.items())
    os.execve(sys.executable, [sys.executable, "-m", "benchmarks", *argv], env)


GPU_JSON = os.path.join(HERE, "results_gpu.json")  # section 8 as last run on a GPU machine


def _gpu_doc():
    if not os.path.exists(GPU_JSON):
        return None
    with open(GPU_JSON) as f:
        return json.load(f)


def _render(args) -> int:
    from . import report

    with open(args.render) as f:
        doc = json.load(f)
    md = args.md or os.path.join(HERE, "RESULTS.md")
    with open(md, "w") as f:
        f.write(report.markdown(doc, os.path.join(HERE, "ANALYSIS.md"), _gpu_doc()))
    print(f"Markdown written to {md} from {args.render}", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parse(argv)
    if args.render:
        return _render(args)
    if not args.keep_openblas_env:
        _reexec_without_openblas(argv)
    import importlib

    import inplace_lab as il

    try:
        import torch
    except ImportError:
        torch = None
    cfg = SMOKE if args.smoke else Config()
    only = {int(s) for s in args.only.split(",") if s.strip()}
    meta = machine.describe(" ".join(["python -m benchmarks", *argv]).strip())
    meta["mode"] = "smoke" if args.smoke else "full"
    meta["config"] = {k: v for k, v in cfg.__dict__.items()}
    from .harness import Section

    sections = []
    for sid, key, title, where in SECTIONS:
        sec = Section(sid, key, title)
        sections.append(sec)
        if only and sid not in only:
            sec.skipped = "not selected (--only)"
            continue
        modname, fname = where.split(":")
        fn = getattr(importlib.import_module(f".{modname}", __package__), fname)
        t0 = time.perf_counter()
        print(f"[{sid}] {title} ...", file=sys.stderr, flush=True)
        try:
            fn(sec, cfg, il, torch)
        except Exception as e:  # keep the other sections; the report and the smoke test say so
            sec.error = f"{type(e).__name__}: {e}"
            traceback.print_exc()
        sec.seconds = time.perf_counter() - t0
    prof = None
    if not args.no_profile and not only:
        from .profile_small import profile

        print("[profile] small-op path ...", file=sys.stderr, flush=True)
        prof = profile(cfg, il)
    meta["loadavg_at_end"] = machine._loadavg()
    doc = {"meta": meta, "sections": [s.to_dict() for s in sections], "profile": prof}
    from . import report

    print(report.table(doc))
    json_path = args.json or os.path.join(HERE, "results.json")
    with open(json_path, "w") as f:
        json.dump(doc, f, indent=1, default=str)
    print(f"JSON written to {json_path}", file=sys.stderr)
    gpu = next(s for s in doc["sections"] if s["key"] == "gpu")
    if not args.smoke and gpu["results"] and not gpu["skipped"]:  # a GPU machine: keep its run
        with open(GPU_JSON, "w") as f:
            json.dump({"meta": meta, "sections": [gpu]}, f, indent=1, default=str)
        print(f"GPU section written to {GPU_JSON}", file=sys.stderr)
    md = args.md or (os.path.join(HERE, "RESULTS.md") if not args.smoke and not only else None)
    if md:
        with open(md, "w") as f:
            f.write(report.markdown(doc, os.path.join(HERE, "ANALYSIS.md"), _gpu_doc()))
        print(f"Markdown written to {md}", file=sys.stderr)
    return 1 if any(s.error for s in sections) else 0
