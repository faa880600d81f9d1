#!/usr/bin/env bash
# CI stage: AddressSanitizer + UndefinedBehaviorSanitizer build of the library and unit tests
# (build-asan/), each test executable run whole. Any ASan report, UBSan report or leak fails the
# stage. Not instrumented: libHalide/LLVM (Debian's build) and the kernels they compile, whose
# memory accesses ASan does not see (docs/reliability.md).
#
# CI runs the unit-test executables that reach every part of ProxGen's own C++ — I/O readers and
# writers, the problem-file front ends, the DSL and planner, prox operators, every linear operator's
# lowering (adjoint tests), the FFT/DCT x-updates and their FFTW buffers, the run-time API, the
# kernel layer and its caches, failure paths, threads — against a fresh kernel cache, so every
# pipeline they use is lowered under the sanitizers. The catalogue-wide executables (the same code
# on many more problems; user operators' autodiff, whose time is libHalide's) are left to
# ASAN_ALL=1: all of them took 22 min here, the CI budget is 25 for every stage.
#   [ASAN_ALL=1] tools/ci/asan.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/ci/common.sh
ci_stage_timer "asan+ubsan"
dir=${1:-build-asan}

# Every UBSan check aborts the test instead of printing and continuing.
sanitizer_configure "$dir" "-fsanitize=address,undefined -fno-sanitize-recover=all"
mapfile -t all < <(unit_test_targets "$dir")
checked=(test_io test_dsl test_prox test_adjoint test_spectral test_runtime test_jit_cache
         test_failure_modes test_threads test_fusion test_bad_input test_problem_text test_problem_json)
tests=()
for t in "${all[@]}"; do
  if [[ ${ASAN_ALL:-0} == 1 || " ${checked[*]} " == *" $t "* ]]; then tests+=("$t"); fi
done

export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/ci/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
build_and_run_tests "$dir" "${tests[@]}"
