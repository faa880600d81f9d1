#!/usr/bin/env bash
# CI stage: AddressSanitizer + UndefinedBehaviorSanitizer build of the library and the unit tests
# (build-asan/), every unit-test executable run whole. Any ASan report, UBSan report or leak fails
# the stage. Not instrumented: libHalide/LLVM (Debian's build) and the kernels they compile,
# whose memory accesses ASan does not see (docs/reliability.md).
#   tools/ci/asan.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/ci/common.sh
ci_stage_timer "asan+ubsan"
dir=${1:-build-asan}

# Every UBSan check aborts the test instead of printing and continuing.
sanitizer_configure "$dir" "-fsanitize=address,undefined -fno-sanitize-recover=all"
mapfile -t tests < <(unit_test_targets "$dir")

export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/ci/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
build_and_run_tests "$dir" "${tests[@]}"
