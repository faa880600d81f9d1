#!/usr/bin/env bash
# The main job: install, build, fetch the demo photograph, run TV denoising and TV deconvolution.
# Results (PNGs, convergence plots) land in ./out.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh --target proxgen_demo
tools/fetch_demo_images.sh data
build/examples/proxgen_demo data/camera.png out "$@"
