"""Where a GPU call's time goes: per-call cost of one small and one large op, raw cupy against
inplace_lab on cupy against torch CUDA, and a cProfile of inplace_lab's calls (run by
scripts/gpu_check.sh; needs cupy and a GPU)."""
import cProfile
import pstats
import sys
import time

import cupy
import torch

import inplace_lab as il


def per_call(fn, sync, reps=2000):
    for _ in range(50):
        fn()
    sync()
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t) / reps)
    return best * 1e6


def main():
    csync = cupy.cuda.Device().synchronize
    tsync = torch.cuda.synchronize
    for n in (64, 10**7):
        reps = 2000 if n < 10**6 else 200
        a, b = cupy.random.randn(n, dtype=cupy.float32), cupy.random.randn(n, dtype=cupy.float32)
        x, y = il.randn(n, device="cuda"), il.randn(n, device="cuda")
        tx, ty = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        rows = [
            ("cupy.add(a, b, out=a)", lambda: cupy.add(a, b, out=a), csync),
            ("il x.add_(y)", lambda: x.add_(y), csync),
            ("torch x.add_(y)", lambda: tx.add_(ty), tsync),
            ("cupy a * b", lambda: a * b, csync),
            ("il x * y", lambda: x * y, csync),
            ("torch x * y", lambda: tx * ty, tsync),
            ("cupy a.sum()", lambda: a.sum(), csync),
            ("il x.sum()", lambda: x.sum(), csync),
            ("torch x.sum()", lambda: tx.sum(), tsync),
        ]
        print(f"--- n = {n:,} float32: microseconds per call (best of 5 x {reps})")
        for name, fn, sync in rows:
            print(f"{name:28s} {per_call(fn, sync, reps):9.2f}")
    print("--- the vectorised kernels (inplace_lab.cuda_kernels) on and off: microseconds per call")
    from inplace_lab import cuda_kernels

    default = cuda_kernels.MIN_ELEMENTS
    for n in (64, 4096, 1 << 14, 1 << 17, 1 << 20, 10**7):
        x, y = il.randn(n, device="cuda"), il.randn(n, device="cuda")
        reps = 2000 if n < 10**6 else 200
        row = []
        for floor in (1, 1 << 62):
            cuda_kernels.MIN_ELEMENTS = floor
            row += [per_call(f, csync, reps) for f in (lambda: x.add_(y), lambda: x * y,
                                                       lambda: x.sum())]
        print(f"n={n:>10,}  on: add_ {row[0]:7.2f} mul {row[1]:7.2f} sum {row[2]:7.2f}"
              f"   off: add_ {row[3]:7.2f} mul {row[4]:7.2f} sum {row[5]:7.2f}")
    cuda_kernels.MIN_ELEMENTS = default
    sys.stdout.flush()
    x, y = il.randn(64, device="cuda"), il.randn(64, device="cuda")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3000):
        x.add_(y)
        x * y
        x.sum()
    csync()
    prof.disable()
    print("--- cProfile: 3000 x (add_, mul, sum) on 64 float32 on cuda")
    pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(25)
    mlp_profile()


def mlp_profile():
    """The benchmark's MLP SGD step on the GPU, profiled (section 8's 2.2x)."""
    from benchmarks import workloads as W
    from benchmarks.run import Config

    cfg = Config()
    params = [p.to("cuda").detach().requires_grad_() for p in W.mlp_params(il, cfg.mlp)]
    x, onehot = (a.to("cuda") for a in W.mlp_batch(il, cfg.batch, cfg.mlp[0], cfg.mlp[-1]))
    opt = W.PlainSGD(il, params)
    for _ in range(5):
        W.train_step(params, opt, x, onehot)
    csync = cupy.cuda.Device().synchronize
    csync()
    t = time.perf_counter()
    for _ in range(50):
        W.train_step(params, opt, x, onehot)
    csync()
    print(f"--- MLP SGD step on cuda: {(time.perf_counter() - t) / 50 * 1e3:.3f} ms per step")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(50):
        W.train_step(params, opt, x, onehot)
    csync()
    prof.disable()
    pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(35)


if __name__ == "__main__":
    main()
