"""Section 6: the price of instrumentation. The same workloads with the hooks compiled out,
with no listener (the normal build), with the trace recorder on, and with a live Inspector
attached (``inplace_lab.widgets.inspect``, no browser) when this tree has one."""
from __future__ import annotations

import importlib

from . import workloads as W
from .compiled_out import CompiledOut
from .harness import interleaved, ratio


def _live_inspector():
    """``inspect(*tensors) -> widget with close()``, or a reason string when there is none."""
    try:
        widgets = importlib.import_module("inplace_lab.widgets")
    except ImportError as e:
        return f"inplace_lab.widgets is not importable here ({e})"
    fn = getattr(widgets, "inspect", None)
    if not callable(fn):
        return "inplace_lab.widgets has no inspect(*tensors)"
    return fn


class _Attach:
    """Attach a live Inspector untimed before a repetition and close it untimed after, so
    the figure is the per-op listening cost, not building the widget."""

    def __init__(self, inspect, watch):
        self.inspect, self.watch, self.widget = inspect, watch, None

    def setup(self, name):
        if name == "inspector":
            self.widget = self.inspect(*self.watch)

    def teardown(self, name):
        if name == "inspector":
            self.widget.close()
            self.widget = None


def instrumentation(sec, cfg, il, torch):
    trace_mod = importlib.import_module("inplace_lab.trace")
    compiled = CompiledOut()
    sec.notes.append("compiled out = the core's functions re-compiled without their "
                     f"`if hooks.active:` blocks ({len(compiled.names)} functions: "
                     f"{', '.join(n.rsplit('.', 1)[-1] for n in compiled.names)}); "
                     "creation factories keep theirs (a closure)")
    inspect = _live_inspector()
    if isinstance(inspect, str):
        sec.notes.append(f"live Inspector variant skipped: {inspect}")
        inspect = None
    else:
        sec.notes.append("live Inspector: `inplace_lab.widgets.inspect(<the workload's input "
                         "tensors>)` attached and closed outside the timed call; no front end "
                         "is connected, so no redraw runs")

    n = cfg.chain_ops
    x, w, b = W.small_inputs(il)
    xg, _, _ = W.small_inputs(il, requires_grad=True)
    params = W.mlp_params(il, cfg.mlp_instr)
    bx, onehot = W.mlp_batch(il, cfg.batch_instr, cfg.mlp_instr[0], cfg.mlp_instr[-1])
    opt = W.PlainSGD(il, params)
    loads = {  # label: (work, tensors a live Inspector watches)
        f"chain {n} ops forward+backward": (lambda: W.chain_backward(xg, w, b, n), (xg, w, b)),
        f"chain {n} ops forward": (lambda: W.chain(x, w, b, n), (x, w, b)),
        f"MLP {'-'.join(map(str, cfg.mlp_instr))} SGD step": (
            lambda: W.train_step(params, opt, bx, onehot), tuple(params) + (bx,)),
    }
    for label, (work, watch) in list(loads.items())[:cfg.instr_loads]:
        cases = {"compiled_out": _within(compiled, work), "no_listener": work,
                 "trace": _within_new(trace_mod.Trace, work)}
        att = None
        if inspect is not None:
            att = _Attach(inspect, watch)
            cases["inspector"] = work
        t = interleaved(cases, cfg.reps_instr, warmup=cfg.warmup,
                        setup=att.setup if att else None,
                        teardown=att.teardown if att else None)
        detail = {k + "_ms": round(v * 1e3, 3) for k, v in t.items()}
        sec.add(f"{label}: no listener / compiled out", ratio(t, "no_listener", "compiled_out"),
                target=1.05, detail=detail)
        sec.add(f"{label}: trace recorder / no listener", ratio(t, "trace", "no_listener"),
                target=2.0, detail=detail)
        if att is not None:
            sec.add(f"{label}: live Inspector / no listener",
                    ratio(t, "inspector", "no_listener"), target=2.0, detail=detail)


def _within(cm, work):
    def run():
        with cm:
            work()
    return run


def _within_new(factory, work):
    def run():
        with factory():
            work()
    return run
