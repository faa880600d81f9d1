#!/usr/bin/env bash
# Configures and builds ProxGen in ./build (Release, Ninja). Extra arguments go to the build.
set -euo pipefail
cd "$(dirname "$0")/.."
# The library as a unity build (PROXGEN_UNITY_BUILD, CMakeLists.txt): a third of its CPU time.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPROXGEN_UNITY_BUILD=ON
cmake --build build "$@"
