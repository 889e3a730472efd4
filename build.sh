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

# The CUDA 13 toolkit (cuda.h, CUPTI 13) is not a Debian package: say plainly when it is
# missing, since without it only config/, logfmt/ and tools/ are built.
cuda_root=/usr/local/cuda
for arg in "$@"; do
  [[ $arg == -DCUDAToolkit_ROOT=* ]] && cuda_root=${arg#-DCUDAToolkit_ROOT=}
done
for needed in include/cuda.h include/cupti.h; do
  if [[ ! -e $cuda_root/$needed ]]; then
    echo "build.sh: the CUDA 13 toolkit is incomplete or missing: no $cuda_root/$needed." >&2
    echo "build.sh: install it (NVIDIA's cuda-toolkit-13 packages) or point at it with ./build.sh -DCUDAToolkit_ROOT=DIR;" >&2
    echo "build.sh: without it, no libcomputeprof.so is built (config/, logfmt/ and tools/ only)." >&2
    break
  fi
done

cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@"
cmake --build build -j"$(nproc)"
