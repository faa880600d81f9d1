#!/usr/bin/env bash
# CI stage: AddressSanitizer + UndefinedBehaviorSanitizer build of the library and unit tests
# (build-asan/), each test executable run whole. Any ASan report, UBSan report or leak fails the
# stage. Not instrumented: libHalide/LLVM (Debian's build) and the kernels they compile, whose
# memory accesses ASan does not see (docs/reliability.md).
#
# Every unit-test executable runs, in two groups. The first group reaches every part of ProxGen's
# own C++ (I/O parsers, front ends, DSL and planner, lowering, the kernel layer and its caches, the
# solver loops, FFT/DCT x-updates, threads, failure paths) and runs against a fresh kernel cache, so
# every pipeline it uses is lowered under the sanitizers. The second group (the catalogue-wide
# tests: the same code on many more problems) runs against the kernel cache the main stage filled
# when there is one (.ci/run's PROXGEN_CACHE_DIR): their time was JIT compilation by libHalide,
# which is not instrumented (22 min for all with a fresh cache, over CI's budget). ASAN_ALL=1 runs
# both groups with a fresh cache.
#   [ASAN_ALL=1] tools/ci/asan.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/ci/common.sh
ci_stage_timer "asan+ubsan"
dir=${1:-build-asan}

# Every UBSan check aborts the test instead of printing and continuing.
sanitizer_configure "$dir" "-fsanitize=address,undefined -fno-sanitize-recover=all"
main_stage_cache=${PROXGEN_CACHE_DIR:-}
mapfile -t all < <(unit_test_targets "$dir")
lowering=(test_io test_dsl test_prox test_adjoint test_spectral test_user_operator test_diff_fn
          test_runtime test_jit_cache test_failure_modes test_threads test_bad_input)
first=() second=()
for t in "${all[@]}"; do
  if [[ " ${lowering[*]} " == *" $t "* ]]; then first+=("$t"); else second+=("$t"); fi
done

export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/ci/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
echo "asan+ubsan: building proxgen and ${all[*]}"
cmake --build "$dir" --target "${all[@]}" >"$dir/build.log" 2>&1 || { tail -n 100 "$dir/build.log"; exit 1; }
status=0
fresh_kernel_cache "$dir"
echo "asan+ubsan: ${first[*]} (fresh kernel cache: every pipeline lowered here)"
mapfile -t exes < <(executables_in "$dir" "${first[@]}")
run_catch_executables "$dir/logs" "${exes[@]}" || status=1
if [[ ${ASAN_ALL:-0} != 1 && -n $main_stage_cache && -d $main_stage_cache ]]; then
  export PROXGEN_CACHE_DIR=$main_stage_cache
  echo "asan+ubsan: ${second[*]} (the main stage's kernel cache)"
else
  echo "asan+ubsan: ${second[*]} (the same fresh kernel cache)"
fi
mapfile -t exes < <(executables_in "$dir" "${second[@]}")
run_catch_executables "$dir/logs" "${exes[@]}" || status=1
exit $status
