"""Sections 4-5: training steps vs torch CPU; tracked memory vs real memory (tracemalloc)."""
from __future__ import annotations

import gc
import importlib
import tracemalloc

from . import workloads as W
from .harness import interleaved, ratio


def _submodule(lib, name):
    try:
        return importlib.import_module(f"{lib.__name__}.{name}")
    except ImportError:
        return None


def training(sec, cfg, il, torch):
    if torch is None:
        sec.skipped = "torch is not installed (pip install -e '.[oracle]')"
        return
    sizes, batch = cfg.mlp, cfg.batch
    runs = {}
    for lib in (il, torch):
        params = W.mlp_params(lib, sizes)
        x, onehot = W.mlp_batch(lib, batch, sizes[0], sizes[-1])
        for opt_cls in (W.PlainSGD, W.PlainAdam):
            opt = opt_cls(lib, params)
            runs[(opt_cls.__name__, lib.__name__)] = (
                lambda p=params, o=opt, xx=x, oh=onehot: W.train_step(p, o, xx, oh))
    for opt_name in ("PlainSGD", "PlainAdam"):
        t = interleaved({"inplace_lab": runs[(opt_name, "inplace_lab")],
                         "torch": runs[(opt_name, "torch")]}, cfg.reps_train, warmup=cfg.warmup)
        label = "SGD" if opt_name == "PlainSGD" else "Adam"
        sec.add(f"MLP {'-'.join(map(str, sizes))} batch {batch}, {label}, plain ops: "
                "inplace_lab / torch", ratio(t, "inplace_lab", "torch"), target=1.2,
                detail={k + "_ms": round(v * 1e3, 3) for k, v in t.items()})
    sec.notes.append("plain ops: matmul + add + relu + log_softmax loss, the optimiser's update "
                     "written with in-place ops under no_grad (workloads.PlainSGD/PlainAdam); "
                     "the same code runs on both libraries")
    _nn_optim(sec, cfg, il, torch)


def _nn_optim(sec, cfg, il, torch):
    """The same steps through ``inplace_lab.nn`` / ``inplace_lab.optim`` when they exist."""
    nn, optim = _submodule(il, "nn"), _submodule(il, "optim")
    if nn is None or optim is None:
        sec.notes.append("inplace_lab.nn / inplace_lab.optim not present in this tree: the "
                         "nn.Module/optim variants and the small CNN step are skipped")
        return
    sizes, batch = cfg.mlp, cfg.batch
    for opt_name in ("SGD", "Adam"):
        try:
            steps = {lib.__name__: _module_step(lib, _mlp_module(lib, sizes), opt_name,
                                                batch, (sizes[0],), sizes[-1])
                     for lib in (il, torch)}
        except Exception as e:  # an nn/optim surface still being built: say what is missing
            sec.notes.append(f"nn/optim MLP {opt_name} skipped: {type(e).__name__}: {e}")
            continue
        t = interleaved(steps, cfg.reps_train, warmup=cfg.warmup)
        sec.add(f"MLP batch {batch}, nn.Linear + optim.{opt_name}: inplace_lab / torch",
                ratio(t, "inplace_lab", "torch"), target=1.2,
                detail={k + "_ms": round(v * 1e3, 3) for k, v in t.items()})
    try:
        steps = {lib.__name__: _module_step(lib, _cnn_module(lib, cfg.cnn_channels), "SGD",
                                            cfg.cnn_batch, (1, 28, 28), 10)
                 for lib in (il, torch)}
    except Exception as e:
        sec.notes.append(f"small CNN step skipped: {type(e).__name__}: {e}")
        return
    t = interleaved(steps, cfg.reps_train, warmup=cfg.warmup)
    sec.add(f"small CNN batch {cfg.cnn_batch}, SGD (reported): inplace_lab / torch",
            ratio(t, "inplace_lab", "torch"),
            detail={k + "_ms": round(v * 1e3, 3) for k, v in t.items()})


def _mlp_module(lib, sizes):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(lib.nn.Linear(a, b))
        if i + 2 < len(sizes):
            layers.append(lib.nn.ReLU())
    return lib.nn.Sequential(*layers)


def _cnn_module(lib, ch):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, ch, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(ch, 2 * ch, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(2 * ch * 5 * 5, 10))


def _module_step(lib, model, opt_name, batch, in_shape, n_out):
    import numpy as np

    rng = np.random.default_rng(2)
    x = lib.tensor(rng.standard_normal((batch,) + in_shape).astype(np.float32))
    y = lib.tensor(rng.integers(0, n_out, batch).astype(np.int64))
    opt = getattr(lib.optim, opt_name)(model.parameters(), lr=1e-3)
    F = lib.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    step()  # fail here, not inside the timing loop, when a piece is missing
    return step


# ---- section 5 --------------------------------------------------------------------------------

def _measure(il, make, act):
    """(tracked peak, real peak) in bytes above what was live before ``make()``."""
    gc.collect()
    tracemalloc.start()
    try:
        base_real = tracemalloc.get_traced_memory()[0]
        base_tracked = il.memory_allocated()
        objs = make()
        il.reset_peak_memory_stats()
        tracemalloc.reset_peak()
        keep = act(objs)
        real = tracemalloc.get_traced_memory()[1] - base_real
        tracked = il.max_memory_allocated() - base_tracked
        del keep, objs
        return tracked, real
    finally:
        tracemalloc.stop()


def memory(sec, cfg, il, torch):
    shape = cfg.relu_shape
    nbytes = 4
    for s in shape:
        nbytes *= s
    for name, act, expect in (("relu", lambda x: x.relu(), 2 * nbytes),
                              ("relu_", lambda x: x.relu_(), nbytes)):
        tracked, real = _measure(il, lambda: il.randn(*shape), act)
        sec.add(f"lesson {name}: tracked peak - expected", tracked - expect, unit="B",
                target=0, op="==", detail={"tracked": tracked, "expected": expect})
        sec.add(f"lesson {name}: real / tracked peak", round(real / tracked, 4), target=1.05,
                detail={"real": real, "tracked": tracked})
    sizes, batch = cfg.mlp, cfg.batch

    def make():
        params = W.mlp_params(il, sizes)
        x, onehot = W.mlp_batch(il, batch, sizes[0], sizes[-1])
        opt = W.PlainSGD(il, params)
        W.train_step(params, opt, x, onehot)  # grads exist: the steady state of training
        return params, opt, x, onehot

    tracked, real = _measure(il, make, lambda o: W.train_step(*o))
    sec.add("MLP SGD step: real / tracked peak", round(real / tracked, 4), target=1.05,
            detail={"real": real, "tracked": tracked})
    sec.notes.append(f"lesson tensor shape {list(shape)} float32 ({nbytes:,} bytes): relu peaks "
                     "at x and y alive, relu_ at x alone (SEMANTICS.md section 1); 'real' is "
                     "tracemalloc's peak (numpy reports its buffers to it) over the same window, "
                     "so kernel temporaries that no tensor owns show up as real > tracked")
