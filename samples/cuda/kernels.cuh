#pragma once
// The sample kernels. Their C++ signatures fix their mangled names, which the simulated
// driver (tests/simdriver/) implements and the profiler logs as method names:
//   vecAdd   _Z6vecAddPKfS0_Pfi
//   spin     _Z4spiny
//   blockSum _Z8blockSumPKfPfi
//   empty    _Z5emptyv

// c[i] = a[i] + b[i] for i < n.
__global__ void vecAdd(const float* a, const float* b, float* c, int n);

// Busy-waits `ns` nanoseconds of the GPU's global timer: a kernel of known duration.
__global__ void spin(unsigned long long ns);

// out[blockIdx.x] = sum of the block's elements of `in` below n. blockDim.x must be a
// power of two and at most kBlockSumMaxThreads.
inline constexpr int kBlockSumMaxThreads = 256;
__global__ void blockSum(const float* in, float* out, int n);

// Does nothing: launch overhead only.
__global__ void empty();
