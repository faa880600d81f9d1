#!/usr/bin/env bash
# Install, build everything, run every test (unit, reference, must-fail-to-compile, install).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh
cd build
ctest --output-on-failure -j2 "$@"
