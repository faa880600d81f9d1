#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang-14 (AddressSanitizer + UndefinedBehaviorSanitizer)
# in their own build directory and runs each for SECONDS (default 30) from its committed seed
# corpus (fuzz/corpus/<target>, with fuzz/dict/<target>.dict when there is one). Fails if any
# target finds a crash, a sanitizer report, a leak, a timeout (10 s per input) or an input that
# needs more than 2 GiB. New inputs go to a scratch directory, never into the committed corpus.
#
# Usage: tools/fuzz.sh [SECONDS] [TARGET...]      (targets: npy npz png jpeg pfm tiff problem_text problem_json rt_options solve_gradient; default all)
# Environment: PROXGEN_FUZZ_BUILD_DIR (default build-fuzz; one configured with the targets is kept as it is),
# PROXGEN_FUZZ_REUSE_DIR (a build directory used instead where it is configured with the targets:
# tools/ci/fuzz.sh names the asan+ubsan stage's), JOBS (build parallelism, default 2),
# FUZZ_JOBS (targets run at once, one core each, default 1: on 2 cores, FUZZ_JOBS=2 halves the time).
# A failing input is kept as <build dir>/artifacts/<target>/crash-*; replay it with
#   <build dir>/fuzz/fuzz_<target> <file>
# and add it to tests/io/fuzz_regressions/<target>/ with its fix.
set -euo pipefail

seconds=${1:-30}
shift || true
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PROXGEN_FUZZ_BUILD_DIR:-$root/build-fuzz}
# A build directory configured with the fuzz targets (by clang: CMake refuses them otherwise).
has_fuzz_targets() { grep -qs '^PROXGEN_BUILD_FUZZERS:BOOL=ON' "$1/CMakeCache.txt"; }
if [[ -n ${PROXGEN_FUZZ_REUSE_DIR:-} ]] && has_fuzz_targets "$PROXGEN_FUZZ_REUSE_DIR"; then
  build=$PROXGEN_FUZZ_REUSE_DIR
fi

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
mkdir -p "$build"
# (the library as a unity build: fuzz_rt_options links all of it; ld.bfd, as tools/ci/common.sh
# says why). A build directory already configured with the fuzz targets is used as it is.
has_fuzz_targets "$build" ||
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROXGEN_UNITY_BUILD=ON \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 "${launcher[@]}" \
  -DPROXGEN_BUILD_TESTS=OFF -DPROXGEN_BUILD_EXAMPLES=OFF -DPROXGEN_BUILD_BENCH=OFF \
  -DPROXGEN_BUILD_FUZZERS=ON -DPROXGEN_GOLD_LINKER=OFF > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target proxgen_fuzzers -j "${JOBS:-2}"

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for f in "$root"/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp | sed 's/^fuzz_//')"); done
fi

# One target: fuzz from the committed corpus into a scratch directory; a line of result, and a
# file $build/failed_<target> if it failed.
run_target() {
  local t=$1 binary=$build/fuzz/fuzz_$1 scratch=$build/scratch/$1 artifacts=$build/artifacts/$1
  local log=$build/fuzz_$1.log status=0 dict=()
  rm -rf "$scratch"
  mkdir -p "$scratch" "$artifacts"
  touch "$build/failed_$t"  # removed only once the target has passed
  [[ -f $root/fuzz/dict/$t.dict ]] && dict=(-dict="$root/fuzz/dict/$t.dict")
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dict[@]}" "$scratch" "$root/fuzz/corpus/$t" > "$log" 2>&1 || status=$?
  local execs cov
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  cov=$(grep -E '^#[0-9]+.*cov:' "$log" | tail -1 | grep -o 'cov: [0-9]*' || true)
  if [[ $status -ne 0 ]]; then
    echo "fuzz_$t: FAILED (exit $status) after ${execs:-?} inputs; log $log"
    grep -E 'ERROR|SUMMARY|Test unit written|runtime error' "$log" | head -20 || true
  else
    rm -f "$build/failed_$t"
    echo "fuzz_$t: ok, ${execs:-?} inputs in ${seconds}s, ${cov:-cov: ?}"
  fi
}

for t in "${targets[@]}"; do
  [[ -x $build/fuzz/fuzz_$t ]] || { echo "fuzz: no target '$t' ($build/fuzz/fuzz_$t)"; exit 1; }
done
# FUZZ_JOBS targets at a time (each fuzzer uses one core).
for t in "${targets[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge ${FUZZ_JOBS:-1} ]]; do wait -n || true; done
  run_target "$t" &
done
wait

failed=()
for t in "${targets[@]}"; do [[ -e $build/failed_$t ]] && failed+=("$t"); done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: failures in ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, no failure"
