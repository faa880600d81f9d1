#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (and tools/setup.sh's packages): builds the CUDA variant of the
# deployment example, solves the 2048² deblurring problem with it and with the pinned CPU (AVX2)
# solver, compares the two, and prints ms/iteration for both. Prepared to run in one go in under
# 5 minutes (only the needed targets are built, with every core). Exit status 0 only when both ran
# and agree within RTOL.
#   tests/device/run_cuda.sh [build dir]     env: ITERATIONS (100), WIDTH (2048), RTOL (1e-4),
#                                             CUDA_TARGET (x86-64-linux-avx2-cuda-cuda_capability_80)
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
build=${1:-/tmp/proxgen-cuda-build}
width=${WIDTH:-2048}
iterations=${ITERATIONS:-100}
rtol=${RTOL:-1e-4}
# sm_80 PTX runs on every newer GPU (the driver compiles it for the device); the host side is pinned
# to AVX2 so that the program does not depend on the build machine's CPU.
cuda_target=${CUDA_TARGET:-x86-64-linux-avx2-cuda-cuda_capability_80}
cuda_exe=proxgen_deploy_$(echo "$cuda_target" | tr -c 'A-Za-z0-9\n' '_')

if ! nvidia-smi -L; then
  echo "run_cuda: FAILED: no NVIDIA GPU visible (nvidia-smi)" >&2
  exit 2
fi

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPROXGEN_BUILD_BENCH=OFF \
      "-DPROXGEN_AOT_TARGETS=x86-64-linux-avx2;$cuda_target" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
ninja -C "$build" proxgen_deploy "$cuda_exe" proxgen_aot_jit_reference proxgen_aot_compare
echo "run_cuda: built in $(( $(date +%s) - start )) s"

work="$build/run_cuda"
rm -rf "$work" && mkdir -p "$work"
"$build/tests/aot/proxgen_aot_jit_reference" "$width" 0.002 0 "$work"   # inputs only
echo "== CPU (x86-64-linux-avx2), ${width}², $iterations iterations"
"$build/examples/deploy/proxgen_deploy" "$work/b.npy" "$work/kernel.npy" 0.002 "$iterations" "$work/x_cpu.npy" --warmup
echo "== GPU ($cuda_target), ${width}², $iterations iterations"
"$build/examples/deploy/$cuda_exe" "$work/b.npy" "$work/kernel.npy" 0.002 "$iterations" "$work/x_cuda.npy" --warmup
echo "== CUDA vs CPU (relative tolerance $rtol: GPU sqrt/division round differently)"
"$build/tests/aot/proxgen_aot_compare" "$work/x_cuda.npy" "$work/x_cpu.npy" "$rtol"
echo "run_cuda: PASSED in $(( $(date +%s) - start )) s"
