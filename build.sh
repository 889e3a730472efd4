#!/usr/bin/env bash
# Sets up a fresh Debian machine and builds computeprof into ./build.
# Installs missing packages with apt-get (needs root), then configures and builds.
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake g++ make libfmt-dev catch2 libsqlite3-dev libunwind-dev python3 pocl-opencl-icd ocl-icd-opencl-dev opencl-headers librsvg2-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "build.sh: missing packages: ${missing[*]}; run as root or install them first" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@"
cmake --build build -j"$(nproc)"
