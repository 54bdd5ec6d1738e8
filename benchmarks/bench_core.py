"""Sections 1-3: small-op overhead vs torch, large in-place and out-of-place ops vs numpy."""
from __future__ import annotations

import numpy as np

from . import ladder
from . import workloads as W
from .harness import interleaved, peak_extra_bytes, ratio, us

# A Python-level dispatcher cannot allocate nothing at all: numpy's own ``out=`` call already
# allocates a few hundred bytes of Python objects. The target "0 bytes" is read as "no
# allocation of tensor data": the peak extra bytes of one op stay below one page.
NO_BUFFER_BYTES = 4096


def small_ops(sec, cfg, il, torch):
    n = cfg.chain_ops
    if torch is None:
        sec.notes.append("torch is not installed: only the inplace_lab and numpy timings ran")
    xi, wi, bi = W.small_inputs(il)
    xa, wa, ba = (t.numpy() for t in (xi, wi, bi))
    cases = {"inplace_lab": lambda: W.chain(xi, wi, bi, n),
             "numpy": lambda: W.chain_numpy(np, xa, wa, ba, n)}
    if torch is not None:
        xt, wt, bt = W.small_inputs(torch)
        cases["torch"] = lambda: W.chain(xt, wt, bt, n)
    t = interleaved(cases, cfg.reps_small, warmup=cfg.warmup)
    _small_results(sec, "forward", t, n, torch is not None)

    if torch is not None:
        _ladder(sec, cfg, n, cases)

    xg, _, _ = W.small_inputs(il, requires_grad=True)
    cases = {"inplace_lab": lambda: W.chain_backward(xg, wi, bi, n)}
    if torch is not None:
        xtg, _, _ = W.small_inputs(torch, requires_grad=True)
        cases["torch"] = lambda: W.chain_backward(xtg, wt, bt, n)
    t = interleaved(cases, cfg.reps_small, warmup=cfg.warmup)
    _small_results(sec, "forward+backward", t, n, torch is not None)
    sec.notes.append(f"chain of {n} ops (mul, add, tanh, sub) on 8x8 float32; forward+backward "
                     "adds .sum().backward(); torch threads: "
                     f"{torch.get_num_threads() if torch is not None else '-'}")


def _ladder(sec, cfg, n, cases):
    """The cost ladder (benchmarks/ladder.py): the prototype behind the 1.0x target, then each
    piece of per-op work added, beside inplace_lab and torch in one interleaved run."""
    runs = {"inplace_lab": cases["inplace_lab"], "torch": cases["torch"]}
    for name, make in ladder.RUNGS:
        x, w, b = ladder.inputs(make)
        runs[name] = lambda x=x, w=w, b=b: W.chain(x, w, b, n)
    t = interleaved(runs, cfg.reps_small, warmup=cfg.warmup)
    for name, _ in ladder.RUNGS:
        sec.add(f"cost ladder: {name} / torch (reported)", ratio(t, name, "torch"),
                detail={"us_per_op": us(t[name] / n), "torch_us_per_op": us(t["torch"] / n),
                        "inplace_lab_us_per_op": us(t["inplace_lab"] / n)})
    sec.notes.append("cost ladder (benchmarks/ladder.py): the 60-line prototype the 1.0x target "
                     "came from, then the lane's checks, the tensor's fields, a version counter "
                     "and a storage with exact byte accounting added one at a time, each a "
                     "minimal real implementation running the same chain")


def _small_results(sec, label, t, n, have_torch):
    detail = {f"{k}_us_per_op": us(v / n) for k, v in t.items()}
    if have_torch:
        sec.add(f"{label}: inplace_lab / torch", ratio(t, "inplace_lab", "torch"), target=1.0,
                detail=detail)
    if "numpy" in t:
        sec.add(f"{label}: inplace_lab / raw numpy (floor, reported)",
                ratio(t, "inplace_lab", "numpy"), detail=detail)


def _numpy_relu_(a):
    """numpy computing ATen's relu: 0 first, so that NaN and -0.0 pass through (ops/activation.py;
    ``np.maximum(a, 0)`` turns -0.0 into 0.0 and runs a few percent faster)."""
    return np.maximum(0, a, out=a)


def inplace_large(sec, cfg, il, torch):
    n = cfg.large
    x = il.randn(n)
    y = il.full((n,), 1.0)
    xa = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    ya = np.ones(n, np.float32)
    ops = {
        "add_": (lambda: x.add_(y), lambda: np.add(xa, ya, out=xa)),
        "mul_": (lambda: x.mul_(y), lambda: np.multiply(xa, ya, out=xa)),
        "relu_": (lambda: x.relu_(), lambda: _numpy_relu_(xa)),
    }
    for name, (fi, fn) in ops.items():
        t = interleaved({"inplace_lab": fi, "numpy": fn}, cfg.reps_large, warmup=cfg.warmup)
        sec.add(f"{name} time: inplace_lab / numpy out=", ratio(t, "inplace_lab", "numpy"),
                target=1.05, detail={k + "_ms": round(v * 1e3, 3) for k, v in t.items()})
        b_il, b_np = peak_extra_bytes(fi), peak_extra_bytes(fn)
        sec.add(f"{name} bytes allocated per op", b_il, unit="B", target=NO_BUFFER_BYTES,
                detail={"numpy_out_bytes": b_np, "tensor_bytes": n * 4},
                note="peak extra bytes (tracemalloc) during one op; numpy's out= call shown "
                     "in detail")
    sec.notes.append(f"{n:,} float32 elements; mul_ multiplies by 1.0 and add_ adds 1.0 so "
                     "values stay normal (no denormal slow path on either side)")
    sec.notes.append(f"bytes target: below {NO_BUFFER_BYTES} B, i.e. no temporary of tensor "
                     "data (Python call objects of a few hundred bytes remain, as for numpy)")


def outofplace_large(sec, cfg, il, torch):
    n = cfg.large
    x = il.randn(n)
    y = il.randn(n)
    xa, ya = x.numpy().copy(), y.numpy().copy()
    ops = {
        "add": (lambda: x + y, lambda: xa + ya),
        "mul": (lambda: x * y, lambda: xa * ya),
        "relu": (lambda: x.relu(), lambda: np.maximum(0, xa)),  # (see _numpy_relu_)
        "exp": (lambda: x.exp(), lambda: np.exp(xa)),
        "sum": (lambda: x.sum(), lambda: xa.sum()),
        "mean": (lambda: x.mean(), lambda: xa.mean()),
        "amax": (lambda: x.amax(), lambda: xa.max()),
    }
    for name, (fi, fn) in ops.items():
        t = interleaved({"inplace_lab": fi, "numpy": fn}, cfg.reps_large, warmup=cfg.warmup)
        sec.add(f"{name}: inplace_lab / numpy", ratio(t, "inplace_lab", "numpy"), target=1.1,
                detail={k + "_ms": round(v * 1e3, 3) for k, v in t.items()})
    sec.notes.append(f"{n:,} float32 elements; reductions over the whole tensor")
