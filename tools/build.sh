#!/usr/bin/env bash
# Configures and builds ProxGen in ./build (Release, Ninja). Extra arguments go to the build.
set -euo pipefail
cd "$(dirname "$0")/.."
# A unity build: the library's sources compile in a few batches that parse Halide.h once each
# (64 instead of 194 CPU-seconds for the library; docs/reliability.md). Two files that define the
# same internal name then collide: rebuild with -DCMAKE_UNITY_BUILD=OFF to tell.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON
cmake --build build "$@"
