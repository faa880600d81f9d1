#!/usr/bin/env bash
# Prepares, on the build machine, the check tests/device/run_prepared.sh runs on a machine with an
# NVIDIA GPU and nothing else of ours (no Halide, no compiler, no Debian packages): the deployment
# program (examples/deploy/deploy.cpp) of every generated algorithm (Pock–Chambolle, linearized
# ADMM, ADMM, HQS, Condat–Vũ) linked against its solver for a pinned CPU target and for CUDA, and the problem's
# inputs. Generated libraries need only the driver at run time (Halide's CUDA runtime loads
# libcuda with dlopen), so the programs run there as built here.
#   tests/device/prepare_cuda.sh [build dir] [output dir]   env: WIDTH (1024), CUDA_TARGET
#                                                           (x86-64-linux-avx2-cuda-cuda_capability_80)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-.device}
width=${WIDTH:-1024}
# sm_80 PTX runs on every newer GPU (the driver compiles it for the device); the host side is
# pinned to AVX2 so that the programs do not depend on this machine's CPU
cuda=${CUDA_TARGET:-x86-64-linux-avx2-cuda-cuda_capability_80}
cpu=x86-64-linux-avx2
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
rm -rf "$out" && mkdir -p "$out"
halide_include=$(dirname "$(find /usr/include -name HalideBuffer.h | head -1)")
for entry in deblur: deblur_ladmm:PROXGEN_DEPLOY_LADMM deblur_admm:PROXGEN_DEPLOY_ADMM deblur_hqs:PROXGEN_DEPLOY_HQS \
             deblur_cv:PROXGEN_DEPLOY_CV; do
  name=${entry%%:*}
  define=${entry#*:}
  for target in "$cpu" "$cuda"; do
    dir=$gen/$name/$target
    mkdir -p "$dir"
    algorithm=${name#deblur_}; [[ $name == deblur ]] && algorithm=pc
    "$build/examples/deploy/deblur.generator" -a "$algorithm" -o "$dir" -n "$name" -t "$target" > /dev/null
    "$build/examples/deploy/deblur.generator" -o "$dir" -r halide_runtime -t "$target"
    kind=$([[ $target == *cuda* ]] && echo cuda || echo cpu)
    g++ -std=c++20 -O2 -ffp-contract=off ${define:+-D$define} -I"$dir" -Iinclude -I"$halide_include" \
        examples/deploy/deploy.cpp "$dir/$name.a" "$dir/halide_runtime.a" -lpthread -ldl -s -o "$out/${name}_$kind"
  done
done
"$build/tests/aot/proxgen_aot_jit_reference" "$width" 0.002 0 "$out" > /dev/null  # b.npy and kernel.npy only
cp tests/device/run_prepared.sh "$out/"
du -sh "$out"
