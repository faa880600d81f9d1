#!/usr/bin/env bash
# CI stage: AddressSanitizer + UndefinedBehaviorSanitizer build of the library and unit tests
# (build-asan/), each test executable run whole. Any ASan report, UBSan report or leak fails the
# stage. Not instrumented: libHalide/LLVM (Debian's build) and the kernels they compile, whose
# memory accesses ASan does not see (docs/reliability.md).
#
# Two groups of unit-test executables. The first reaches every part of ProxGen's own C++ that
# builds pipelines or handles memory — I/O readers and writers, the problem-file front ends, the
# DSL and planner, the run-time API (which solves problems of every kind), the kernel layer and its
# caches — and runs against a fresh kernel cache, so every pipeline it uses is lowered under the
# sanitizers. The second — prox operators, the FFT/DCT x-updates and their FFTW buffers, the fused
# iterations, the failure paths, threads (TSan's stage checks their races) — runs against the
# kernel cache the main stage filled (.ci/run's PROXGEN_CACHE_DIR): ProxGen's C++ around the
# kernels runs sanitized without compiling them again. The adjoint tests and the catalogue-wide
# executables (the same code on many more problems) are left to ASAN_ALL=1, which runs every unit
# test against a fresh cache (22 min here; CI's budget is 25 min for every stage). -O1, not -O0:
# at -O0 the front ends' bad-input test ran 411 s instead of 36. Compiled by clang-14 (the
# fuzz stage then builds its targets in this build directory, on this library: tools/ci/fuzz.sh).
#   [ASAN_ALL=1] tools/ci/asan.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/ci/common.sh
ci_stage_timer "asan+ubsan"
dir=${1:-build-asan}

# Every UBSan check aborts the test instead of printing and continuing.
SANITIZER_CC=clang sanitizer_configure "$dir" "-fsanitize=address,undefined -fno-sanitize-recover=all"
main_stage_cache=${PROXGEN_CACHE_DIR:-}
mapfile -t all < <(unit_test_targets "$dir")
lowered=(test_io test_dsl test_runtime test_jit_cache test_bad_input test_problem_text test_problem_json)
around=(test_prox test_spectral test_fusion test_failure_modes test_threads test_variables)
first=() second=()
for t in "${all[@]}"; do
  if [[ ${ASAN_ALL:-0} == 1 || " ${lowered[*]} " == *" $t "* ]]; then first+=("$t")
  elif [[ " ${around[*]} " == *" $t "* ]]; then second+=("$t"); fi
done

export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/ci/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
build_tests "$dir" "${first[@]}" "${second[@]}"
status=0
fresh_kernel_cache "$dir"
echo "asan+ubsan: ${first[*]} (a fresh kernel cache: every pipeline lowered here)"
run_tests "$dir" "${first[@]}" || status=1
if [[ ${#second[@]} -gt 0 ]]; then
  if [[ -n $main_stage_cache && -d $main_stage_cache ]]; then
    export PROXGEN_CACHE_DIR=$main_stage_cache
    echo "asan+ubsan: ${second[*]} (the main stage's kernel cache)"
  else
    echo "asan+ubsan: ${second[*]} (no main-stage kernel cache: the fresh one)"
  fi
  run_tests "$dir" "${second[@]}" || status=1
fi
exit $status
