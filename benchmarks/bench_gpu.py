"""Section 8: GPU (cupy vs torch CUDA) when a GPU and cupy are present; skipped otherwise."""
from __future__ import annotations

from . import workloads as W
from .harness import interleaved, ratio


def _gpu_available(torch):
    try:
        import cupy
    except ImportError:
        return "cupy is not installed"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "no CUDA device"
    except Exception as e:
        return f"no usable CUDA device ({type(e).__name__}: {e})"
    if torch is None or not torch.cuda.is_available():
        return "torch has no CUDA (the CPU wheel): nothing to compare cupy against"
    return None


def gpu(sec, cfg, il, torch):
    why = _gpu_available(torch)
    if why is not None:
        sec.skipped = f"{why}: GPU section not run on this machine"
        return
    import cupy

    n = cfg.large
    xi = il.randn(n, device="cuda")
    yi = il.randn(n, device="cuda")
    xt = torch.randn(n, device="cuda")
    yt = torch.randn(n, device="cuda")

    def sync(fn, which):
        def run():
            fn()
            (cupy.cuda.Device().synchronize if which == "il" else torch.cuda.synchronize)()
        return run

    for name, fi, ft in (("add_", lambda: xi.add_(yi), lambda: xt.add_(yt)),
                         ("mul (out of place)", lambda: xi * yi, lambda: xt * yt),
                         ("sum", lambda: xi.sum(), lambda: xt.sum())):
        t = interleaved({"inplace_lab": sync(fi, "il"), "torch": sync(ft, "t")}, cfg.reps_large, warmup=cfg.warmup)
        sec.add(f"{name} on {n:,} float32: inplace_lab(cupy) / torch CUDA",
                ratio(t, "inplace_lab", "torch"), target=1.1,
                detail={k + "_ms": round(v * 1e3, 4) for k, v in t.items()})
    steps = {}
    for lib, tag in ((il, "il"), (torch, "t")):
        params = [p.to("cuda").detach().requires_grad_() for p in W.mlp_params(lib, cfg.mlp)]
        x, onehot = (a.to("cuda") for a in W.mlp_batch(lib, cfg.batch, cfg.mlp[0], cfg.mlp[-1]))
        opt = W.PlainSGD(lib, params)
        steps[lib.__name__] = sync(lambda p=params, o=opt, a=x, h=onehot: W.train_step(p, o, a, h),
                                   tag)
    t = interleaved(steps, cfg.reps_train, warmup=cfg.warmup)
    sec.add("MLP SGD step on GPU: inplace_lab / torch CUDA", ratio(t, "inplace_lab", "torch"),
            target=1.2, detail={k + "_ms": round(v * 1e3, 3) for k, v in t.items()})
    pool = cupy.get_default_memory_pool()
    sec.add("tracked cuda bytes / cupy pool used bytes",
            round(il.memory_allocated("cuda") / max(pool.used_bytes(), 1), 4),
            detail={"tracked": il.memory_allocated("cuda"), "pool_used": pool.used_bytes()},
            note="reported: the pool also holds cupy's own scratch buffers")
