#!/usr/bin/env bash
# Installs everything ProxGen needs from Debian 12's packages (run as root). Idempotent.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config libhalide14-0-dev libboost-dev libfmt-dev catch2
          libbenchmark-dev libfftw3-dev libpng-dev libjpeg-dev libtiff-dev zlib1g-dev
          nlohmann-json3-dev libcli11-dev
          clang-14 libfuzzer-14-dev
          g++-aarch64-linux-gnu qemu-user
          python3-dev python3-numpy pybind11-dev python3-pybind11 python3-pytest python3-pip python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
