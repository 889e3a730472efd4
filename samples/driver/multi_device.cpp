// multi_device: the same work on every device, each in its own context.
//
// All contexts are created first (one per device, in device order), then for each
// device d in turn, on the NULL stream of its context:
//   memcpyHtoD          200000 bytes from pageable memory (a, std::vector)
//   memcpyHtoD          200000 bytes from pageable memory (b, std::vector)
//   _Z6vecAddPKfS0_Pfi  grid 196x1x1, block 256x1x1              (c = a + b)
//   _Z8blockSumPKfPfi   grid 196x1x1, block 256x1x1, 1024 bytes static shared memory
//   memcpyDtoH          200000 bytes into pageable memory (c, std::vector)
//   memcpyDtoH          784 bytes into pageable memory (the 196 block sums)
// Per device: 2 kernels, 2 HtoD, 2 DtoH. With the simulated driver's 2 devices: 4
// kernels, 4 HtoD and 4 DtoH copies, in two contexts (two logs with %d in the name).
#include <cuda.h>

#include <cstddef>
#include <cstdio>
#include <vector>

#include "common/sample_outcome.hpp"
#include "driver/driver_check.hpp"
#include "driver/embedded_kernels.hpp"

namespace {

constexpr int kElements = 50000;
constexpr std::size_t kBytes = kElements * sizeof(float);
constexpr unsigned kBlockThreads = 256;
constexpr unsigned kGridBlocks = (kElements + kBlockThreads - 1) / kBlockThreads;
constexpr std::size_t kSumBytes = kGridBlocks * sizeof(float);

// Small whole numbers: every sum below is exact in float whatever the order of adding,
// so the GPU's tree reduction and the host's loop must agree exactly.
float input_a(int device, int i) { return static_cast<float>(i % 7 + device); }
float input_b(int i) { return static_cast<float>(i % 5); }

void check_results(int device, const std::vector<float>& c, const std::vector<float>& sums) {
  for (int i = 0; i < kElements; ++i) {
    const float expected = input_a(device, i) + input_b(i);
    if (c[i] != expected) samples::fail("device %d: c[%d] is %g, expected %g", device, i, c[i], expected);
  }
  for (unsigned block = 0; block < kGridBlocks; ++block) {
    float expected = 0.0f;
    for (unsigned t = 0; t < kBlockThreads && block * kBlockThreads + t < kElements; ++t) {
      expected += c[block * kBlockThreads + t];
    }
    if (sums[block] != expected) {
      samples::fail("device %d: block sum %u is %g, expected %g", device, block, sums[block], expected);
    }
  }
}

void run_on_device(int device, CUcontext context) {
  CU_CHECK(cuCtxSetCurrent(context));
  CUmodule module;
  CU_CHECK(cuModuleLoadData(&module, samples::kernels_ptx()));
  CUfunction vec_add;
  CU_CHECK(cuModuleGetFunction(&vec_add, module, samples::kVecAddName));
  CUfunction block_sum;
  CU_CHECK(cuModuleGetFunction(&block_sum, module, samples::kBlockSumName));

  std::vector<float> a(kElements);
  std::vector<float> b(kElements);
  for (int i = 0; i < kElements; ++i) {
    a[i] = input_a(device, i);
    b[i] = input_b(i);
  }
  CUdeviceptr device_a;
  CUdeviceptr device_b;
  CUdeviceptr device_c;
  CUdeviceptr device_sums;
  CU_CHECK(cuMemAlloc(&device_a, kBytes));
  CU_CHECK(cuMemAlloc(&device_b, kBytes));
  CU_CHECK(cuMemAlloc(&device_c, kBytes));
  CU_CHECK(cuMemAlloc(&device_sums, kSumBytes));

  CU_CHECK(cuMemcpyHtoD(device_a, a.data(), kBytes));
  std::printf("device %d: memcpyHtoD %zu bytes from pageable memory\n", device, kBytes);
  CU_CHECK(cuMemcpyHtoD(device_b, b.data(), kBytes));
  std::printf("device %d: memcpyHtoD %zu bytes from pageable memory\n", device, kBytes);

  int elements = kElements;
  void* vec_add_args[] = {&device_a, &device_b, &device_c, &elements};
  CU_CHECK(cuLaunchKernel(vec_add, kGridBlocks, 1, 1, kBlockThreads, 1, 1, 0, nullptr, vec_add_args, nullptr));
  std::printf("device %d: vecAdd grid %u block %u\n", device, kGridBlocks, kBlockThreads);
  void* block_sum_args[] = {&device_c, &device_sums, &elements};
  CU_CHECK(cuLaunchKernel(block_sum, kGridBlocks, 1, 1, kBlockThreads, 1, 1, 0, nullptr, block_sum_args, nullptr));
  std::printf("device %d: blockSum grid %u block %u\n", device, kGridBlocks, kBlockThreads);

  std::vector<float> c(kElements);
  std::vector<float> sums(kGridBlocks);
  CU_CHECK(cuMemcpyDtoH(c.data(), device_c, kBytes));
  std::printf("device %d: memcpyDtoH %zu bytes into pageable memory\n", device, kBytes);
  CU_CHECK(cuMemcpyDtoH(sums.data(), device_sums, kSumBytes));
  std::printf("device %d: memcpyDtoH %zu bytes into pageable memory\n", device, kSumBytes);

  check_results(device, c, sums);

  CU_CHECK(cuMemFree(device_sums));
  CU_CHECK(cuMemFree(device_c));
  CU_CHECK(cuMemFree(device_b));
  CU_CHECK(cuMemFree(device_a));
  CU_CHECK(cuModuleUnload(module));
}

void run() {
  CU_CHECK(cuInit(0));
  int device_count = 0;
  CU_CHECK(cuDeviceGetCount(&device_count));
  if (device_count < 1) samples::fail("cuDeviceGetCount reported %d devices", device_count);
  std::printf("%d devices\n", device_count);

  std::vector<CUcontext> contexts(device_count);
  for (int device = 0; device < device_count; ++device) {
    CUdevice handle;
    CU_CHECK(cuDeviceGet(&handle, device));
    CU_CHECK(cuCtxCreate(&contexts[device], nullptr, 0, handle));
  }
  for (int device = 0; device < device_count; ++device) run_on_device(device, contexts[device]);
  for (CUcontext context : contexts) CU_CHECK(cuCtxDestroy(context));
}

}  // namespace

int main() { return samples::run_sample(run); }
