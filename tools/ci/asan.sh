#!/usr/bin/env bash
# CI stage: AddressSanitizer + UndefinedBehaviorSanitizer build of the library and the unit tests
# (build-asan/), every unit-test executable run whole. Any ASan report, UBSan report or leak fails
# the stage. Not instrumented: libHalide/LLVM (Debian's build) and the pipelines they JIT-compile,
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
echo "asan+ubsan: building proxgen and ${#tests[@]} unit-test executables: ${tests[*]}"
cmake --build "$dir" --target "${tests[@]}" >"$dir/build.log" 2>&1 || { tail -n 100 "$dir/build.log"; exit 1; }

supp=$PWD/tools/ci
export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:abort_on_error=0:halt_on_error=1"
export LSAN_OPTIONS="suppressions=${supp}/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
mapfile -t exes < <(executables_in "$dir" "${tests[@]}")
run_catch_executables "$dir/logs" "${exes[@]}"
