"""Where the small-op time goes: cProfile over the 8x8 chain, forward and forward+backward.

Reports the top functions by own time (share of the profiled total) and the same time
grouped into areas of the core, so RESULTS.md can say what dominates with numbers.
cProfile inflates call-heavy code, so shares matter more than absolute microseconds.
"""
from __future__ import annotations

import cProfile
import os
import pstats

from . import workloads as W

AREAS = (  # (area, predicate on (filename, function name)); first match wins
    ("import machinery (function-local imports)", lambda f, n: "importlib" in f or n == "__import__"
     or "_handle_fromlist" in n),
    ("numpy kernels", lambda f, n: n.startswith("<method") or "numpy" in f
     or n.startswith("<built-in method numpy") or n in ("<built-in method numpy.asarray>",)),
    ("memory accounting + weakrefs", lambda f, n: f.endswith(("memory.py", "weakref.py",
                                                               "_weakrefset.py"))
     or "finalize" in n),
    ("Tensor/Storage construction", lambda f, n: f.endswith(("tensor.py", "storage.py",
                                                             "layout.py", "version.py"))),
    ("dtype promotion", lambda f, n: f.endswith("dtypes.py") or n in ("promote", "float_rule")
     or n.endswith("_dtype") or n == "result_dtype"),
    ("dispatcher", lambda f, n: f.endswith("dispatch.py")),
    ("op kernels/methods (ops/*.py)", lambda f, n: "/ops/" in f),
    ("autograd nodes/saved", lambda f, n: f.endswith(("node.py", "saved.py", "views.py",
                                                      "grad_mode.py"))),
    ("backward engine", lambda f, n: f.endswith("engine.py")),
    ("devices/backend/policy", lambda f, n: f.endswith(("backend.py", "policy.py"))),
    ("Python builtins", lambda f, n: f == "~"),
)


def _area(filename, name):
    for area, pred in AREAS:
        if pred(filename, name):
            return area
    return "other"


def profile(cfg, il, top=15):
    x, w, b = W.small_inputs(il)
    xg, _, _ = W.small_inputs(il, requires_grad=True)
    runs = {"forward": lambda: W.chain(x, w, b, cfg.chain_ops),
            "forward+backward": lambda: W.chain_backward(xg, w, b, cfg.chain_ops)}
    out = {}
    for label, fn in runs.items():
        fn()  # warm
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(cfg.profile_reps):
            fn()
        pr.disable()
        out[label] = _summarise(pstats.Stats(pr), cfg.chain_ops * cfg.profile_reps, top)
    return out


def _summarise(st, n_ops, top):
    rows = []
    areas = {}
    total = 0.0
    for (filename, line, name), (cc, nc, tt, ct, _) in st.stats.items():
        total += tt
        area = _area(filename, name)
        areas[area] = areas.get(area, 0.0) + tt
        rows.append((tt, ct, nc, filename, line, name, area))
    rows.sort(reverse=True)
    short = _shorten
    return {
        "profiled_us_per_op": round(total / n_ops * 1e6, 2),
        "top": [{"function": f"{short(f)}:{ln}({n})", "calls_per_op": round(nc / n_ops, 2),
                 "own_us_per_op": round(tt / n_ops * 1e6, 3),
                 "cum_us_per_op": round(ct / n_ops * 1e6, 3),
                 "share": round(tt / total, 4), "area": a}
                for tt, ct, nc, f, ln, n, a in rows[:top]],
        "areas": {a: {"us_per_op": round(v / n_ops * 1e6, 3), "share": round(v / total, 4)}
                  for a, v in sorted(areas.items(), key=lambda kv: -kv[1])},
    }


def _shorten(path):
    if path == "~":
        return "builtin"
    parts = path.replace(os.sep, "/").split("/")
    if "inplace_lab" in parts:
        return "/".join(parts[parts.index("inplace_lab"):])
    return "/".join(parts[-2:])
