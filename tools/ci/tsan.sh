#!/usr/bin/env bash
# CI stage: ThreadSanitizer build of the library and the thread-safety stress test (test_threads:
# many threads solving at once), run whole. Any race report fails the stage.
# libHalide/LLVM and the kernels they compile are not instrumented: races inside them are invisible
# (docs/reliability.md); tsan.supp lists what is silenced and why.
#   tools/ci/tsan.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/ci/common.sh
ci_stage_timer "tsan"
dir=${1:-build-tsan}

sanitizer_configure "$dir" "-fsanitize=thread"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tools/ci/tsan.supp"
build_and_run_tests "$dir" test_threads
