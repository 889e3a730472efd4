#!/usr/bin/env bash
# Sets up a fresh Debian machine and builds computeprof into ./build.
# Installs missing packages with apt-get (as root, or through sudo), then configures and
# builds as the user who ran it.
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake g++ make ninja-build libfmt-dev catch2 libre2-dev libsqlite3-dev zlib1g-dev libunwind-dev libdw-dev python3 protobuf-compiler pocl-opencl-icd ocl-icd-opencl-dev opencl-headers librsvg2-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  # Only the installation runs as root (sudo for a user): the build stays the user's, so
  # that ctest can write into it afterwards.
  as_root=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "build.sh: missing packages: ${missing[*]}; install them as root (no sudo here), then run build.sh again" >&2
      exit 1
    fi
    echo "build.sh: installing missing packages with sudo: ${missing[*]}" >&2
    as_root=(sudo)
  fi
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA 13 toolkit and its CUPTI are not Debian packages. Without them CMake builds
# only the OpenCL half of libcomputeprof.so: say exactly what is missing where, and how
# to point at a toolkit. The places looked at are those of CMake's FindCUDAToolkit.
cuda_root=${CUDAToolkit_ROOT:-/usr/local/cuda}
for arg in "$@"; do
  [[ $arg == -DCUDAToolkit_ROOT=* ]] && cuda_root=${arg#-DCUDAToolkit_ROOT=}
done
# What is missing of the toolkit at $cuda_root, or nothing.
cuda_missing() {
  local cuda_h=$cuda_root/include/cuda.h
  [[ -e $cuda_h ]] || { echo "no CUDA toolkit at $cuda_root (no $cuda_h)"; return; }
  local version
  version=$(sed -n 's/^#define CUDA_VERSION \([0-9][0-9]*\)$/\1/p' "$cuda_h")
  [[ -n $version ]] || { echo "$cuda_h defines no CUDA_VERSION"; return; }
  ((version >= 13000)) || { echo "the CUDA toolkit at $cuda_root is CUDA $((version / 1000)).$((version % 1000 / 10)), not 13"; return; }
  [[ -e $cuda_root/include/cupti.h || -e $cuda_root/extras/CUPTI/include/cupti.h ]] ||
    { echo "no CUPTI in the CUDA toolkit at $cuda_root (no cupti.h in $cuda_root/include or $cuda_root/extras/CUPTI/include)"; return; }
  local dir
  for dir in "$cuda_root"/lib64 "$cuda_root"/lib "$cuda_root"/targets/*/lib "$cuda_root"/extras/CUPTI/lib64; do
    if [[ -e $dir/libcupti.so ]]; then
      [[ -e $dir/libcupti.so.13 ]] || echo "no CUPTI 13 in the CUDA toolkit at $cuda_root (no libcupti.so.13 beside $dir/libcupti.so)"
      return
    fi
  done
  echo "no CUPTI library in the CUDA toolkit at $cuda_root (no libcupti.so in $cuda_root/lib64, lib, targets/*/lib or extras/CUPTI/lib64)"
}

# A new build directory is made with Ninja (a tenth less CPU than Makefiles: no recursive
# make, no dependency scan per target); one that exists keeps the generator it was made
# with. Files are compiled eight at a time (CMAKE_UNITY_BUILD, docs/design.md "Build
# time"); -DCMAKE_UNITY_BUILD=OFF compiles each alone.
generator=()
[[ -e build/CMakeCache.txt ]] || generator=(-G Ninja)
cmake "${generator[@]}" -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" -DCMAKE_UNITY_BUILD=ON "$@"
cmake --build build -j"$(nproc)"

# Last, where it is seen: what is missing, and what CMake built without it.
cuda_gap=$(cuda_missing)
if ! grep -qx 'COMPUTEPROF_WITH_CUDA:INTERNAL=ON' build/CMakeCache.txt; then
  echo "build.sh: ${cuda_gap:-CMake found no usable CUDA 13 toolkit with CUPTI}." >&2
  echo "build.sh: install the CUDA 13 toolkit (NVIDIA's cuda-toolkit-13 packages, CUPTI included) or point at it with ./build.sh -DCUDAToolkit_ROOT=DIR." >&2
  echo "build.sh: built without it: libcomputeprof.so and computeprof profile OpenCL programs only, not CUDA ones (no CUDA samples, simulated driver or CUDA tests)." >&2
elif [[ -n $cuda_gap ]]; then
  found=$(sed -n 's/^CUDAToolkit_BIN_DIR:PATH=//p' build/CMakeCache.txt)
  echo "build.sh: $cuda_gap; CMake built the CUDA half with the toolkit of ${found%/bin}." >&2
fi
