#!/usr/bin/env bash
# CI stage: every libFuzzer target for a bounded time from its committed seed corpus, through
# tools/fuzz.sh (clang-14 + libFuzzer; see that script). Where the asan+ubsan stage configured
# build-asan (clang-14, the fuzz targets defined), the targets are built there on its library.
#   tools/ci/fuzz.sh [seconds per target, default 30]
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/ci/common.sh
ci_stage_timer "fuzz"
seconds=${1:-30}
export PROXGEN_FUZZ_REUSE_DIR=$PWD/build-asan
# both cores: two targets at a time (tools/fuzz.sh runs each on one core)
FUZZ_JOBS=${FUZZ_JOBS:-2} tools/fuzz.sh "$seconds"
