// runtime_vector_add: the runtime-API sample (<<<>>>, cudaMemcpy, a stream,
// cudaMemcpyAsync). It needs a GPU: the tests build it but do not run it.
//
// Operations, in this order, on the current device:
//   memcpyHtoD          200000 bytes from pageable memory (a, std::vector)
//   memcpyHtoD          200000 bytes from pageable memory (b, std::vector)
//   _Z6vecAddPKfS0_Pfi  grid 196x1x1, block 256x1x1, legacy default stream (c = a + b)
//   _Z8blockSumPKfPfi   grid 196x1x1, block 256x1x1, on a created stream
//   memcpyDtoHasync     784 bytes into page-locked memory (block sums, cudaMallocHost),
//                       on the created stream
//   memcpyDtoH          200000 bytes into pageable memory (c, std::vector)
// That is 2 kernels, 2 HtoD copies, 1 DtoHasync and 1 DtoH copy.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <vector>

#include "common/sample_outcome.hpp"
#include "cuda/kernels.cuh"

namespace {

void check_runtime_call(cudaError_t result, const char* call) {
  if (result != cudaSuccess) samples::fail("%s returned %s", call, cudaGetErrorName(result));
}
#define CUDA_CHECK(call) check_runtime_call((call), #call)

constexpr int kElements = 50000;
constexpr std::size_t kBytes = kElements * sizeof(float);
constexpr unsigned kBlockThreads = 256;
constexpr unsigned kGridBlocks = (kElements + kBlockThreads - 1) / kBlockThreads;
constexpr std::size_t kSumBytes = kGridBlocks * sizeof(float);

// Small whole numbers: every sum is exact in float whatever the order of adding.
float input_a(int i) { return static_cast<float>(i % 7); }
float input_b(int i) { return static_cast<float>(i % 5); }

void check_results(const std::vector<float>& c, const float* sums) {
  for (int i = 0; i < kElements; ++i) {
    const float expected = input_a(i) + input_b(i);
    if (c[i] != expected) samples::fail("c[%d] is %g, expected %g", i, c[i], expected);
  }
  for (unsigned block = 0; block < kGridBlocks; ++block) {
    float expected = 0.0f;
    for (unsigned t = 0; t < kBlockThreads && block * kBlockThreads + t < kElements; ++t) {
      expected += c[block * kBlockThreads + t];
    }
    if (sums[block] != expected) samples::fail("block sum %u is %g, expected %g", block, sums[block], expected);
  }
}

void run() {
  std::vector<float> a(kElements);
  std::vector<float> b(kElements);
  for (int i = 0; i < kElements; ++i) {
    a[i] = input_a(i);
    b[i] = input_b(i);
  }
  float* device_a = nullptr;
  float* device_b = nullptr;
  float* device_c = nullptr;
  float* device_sums = nullptr;
  CUDA_CHECK(cudaMalloc(&device_a, kBytes));
  CUDA_CHECK(cudaMalloc(&device_b, kBytes));
  CUDA_CHECK(cudaMalloc(&device_c, kBytes));
  CUDA_CHECK(cudaMalloc(&device_sums, kSumBytes));
  float* sums = nullptr;
  CUDA_CHECK(cudaMallocHost(&sums, kSumBytes));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  CUDA_CHECK(cudaMemcpy(device_a, a.data(), kBytes, cudaMemcpyHostToDevice));
  std::printf("memcpyHtoD %zu bytes from pageable memory\n", kBytes);
  CUDA_CHECK(cudaMemcpy(device_b, b.data(), kBytes, cudaMemcpyHostToDevice));
  std::printf("memcpyHtoD %zu bytes from pageable memory\n", kBytes);

  vecAdd<<<kGridBlocks, kBlockThreads>>>(device_a, device_b, device_c, kElements);
  CUDA_CHECK(cudaGetLastError());
  std::printf("vecAdd grid %u block %u\n", kGridBlocks, kBlockThreads);
  // A stream from cudaStreamCreate waits for the legacy default stream: vecAdd is done
  // before blockSum starts.
  blockSum<<<kGridBlocks, kBlockThreads, 0, stream>>>(device_c, device_sums, kElements);
  CUDA_CHECK(cudaGetLastError());
  std::printf("blockSum grid %u block %u on a created stream\n", kGridBlocks, kBlockThreads);
  CUDA_CHECK(cudaMemcpyAsync(sums, device_sums, kSumBytes, cudaMemcpyDeviceToHost, stream));
  std::printf("memcpyDtoHasync %zu bytes into page-locked memory\n", kSumBytes);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<float> c(kElements);
  CUDA_CHECK(cudaMemcpy(c.data(), device_c, kBytes, cudaMemcpyDeviceToHost));
  std::printf("memcpyDtoH %zu bytes into pageable memory\n", kBytes);

  check_results(c, sums);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFreeHost(sums));
  CUDA_CHECK(cudaFree(device_sums));
  CUDA_CHECK(cudaFree(device_c));
  CUDA_CHECK(cudaFree(device_b));
  CUDA_CHECK(cudaFree(device_a));
}

}  // namespace

int main() { return samples::run_sample(run); }
