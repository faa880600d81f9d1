#!/usr/bin/env bash
# Configures and builds ProxGen in ./build (Release, Ninja). Extra arguments go to the build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build "$@"
