#!/usr/bin/env bash
# The checks that need a real NVIDIA GPU and cupy, in one go (run from the repo root):
#   1. the tests that use the GPU (real-GPU memory accounting against cupy's pool, devices,
#      set_default_device, a training step, the sweep's programs on cuda against the CPU);
#   2. the device sweep: prepared programs on inplace_lab's CPU and cuda, and on torch CUDA;
#   3. the benchmark suite's GPU section (8);
#   4. where one call's time goes (scripts/gpu_overhead.py: cupy, inplace_lab, torch CUDA).
# Usage: scripts/gpu_check.sh OUTDIR [PROGRAMS.json]. Logs and results land in OUTDIR.
# PROGRAMS.json comes from a machine with torch 2.13 (the programs the CPU sweeps check):
#   python -m tests.differential.device_sweep --both --write .gpu/programs.json 1500
# (.gpu/ ignored by git, carried to the GPU machine).
set -u
out=${1:-/tmp/gpu_check}
programs=${2:-}
py=${PYTHON:-python3}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
t0=$(date +%s)
stamp() { echo "=== $1 (+$(( $(date +%s) - t0 )) s)"; }

stamp environment
nvidia-smi -L
$py -c "import cupy, numpy, torch; print('cupy', cupy.__version__, 'numpy', numpy.__version__,
'torch', torch.__version__, 'torch cuda', torch.cuda.is_available())"

stamp tests
timeout 170 $py -m pytest -q -p no:randomly -rfEs \
  tests/core/test_devices.py tests/nn/test_cuda.py tests/core/test_default_device.py tests/core/test_gpu_paths.py \
  tests/facades/test_memory.py tests/data/test_data.py tests/differential/test_device_sweep.py \
  tests/core/test_cuda_kernels.py \
  2>&1 | tee "$out/tests.log" | tail -60

if [ -n "$programs" ]; then
  stamp "device sweep"
  # (--torch also compares torch CUDA; the device machine's torch was 2.11, whose error texts
  # differ from 2.13's in 334 of 3000 programs: SWEEP_TORCH=1 to run it anyway)
  timeout 150 $py -m tests.differential.device_sweep --programs "$programs" --jobs 12 \
    ${SWEEP_TORCH:+--torch} \
    > "$out/sweep.log" 2>&1
  grep -A14 "^\[cpu vs cuda\]" "$out/sweep.log" | head -150
  tail -2 "$out/sweep.log"
fi

stamp "benchmarks section 8"
timeout 100 $py -m benchmarks --only 8 --no-profile --json "$out/gpu_bench.json" 2>&1 | grep -A12 "^8\. GPU"
cp benchmarks/results_gpu.json "$out/" 2>/dev/null  # (commit it here: RESULTS.md shows it)
stamp "per-call overhead"
PYTHONPATH=. timeout 90 $py scripts/gpu_overhead.py > "$out/overhead.log" 2>&1
head -32 "$out/overhead.log"
stamp done
