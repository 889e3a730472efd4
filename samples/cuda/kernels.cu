// Compiled to PTX for the driver-API samples and to SASS for the runtime-API sample.
#include "kernels.cuh"

__global__ void vecAdd(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__device__ unsigned long long global_timer_ns() {
  unsigned long long now;
  // volatile: every read must happen, in order, or the loop below is folded away.
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void spin(unsigned long long ns) {
  const unsigned long long start = global_timer_ns();
  while (global_timer_ns() - start < ns) {
  }
}

__global__ void blockSum(const float* in, float* out, int n) {
  // Static shared memory of a known size (1024 bytes): the log's stasmemperblock.
  __shared__ float s[kBlockSumMaxThreads];
  const unsigned t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void empty() {}
