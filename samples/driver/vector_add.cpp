// vector_add: c = a + b on device 0, plus one kernel of known duration.
//
// Operations, in this order, in one context on device 0, all on the NULL stream:
//   memcpyHtoD          200000 bytes from pageable memory (a, std::vector)
//   memcpyHtoD          200000 bytes from pageable memory (b, std::vector)
//   _Z6vecAddPKfS0_Pfi  grid 196x1x1, block 256x1x1, no dynamic shared memory
//   memcpyDtoH          200000 bytes into page-locked memory (c, cuMemAllocHost)
//   _Z4spiny            grid 1x1x1, block 1x1x1, spins 2000000 ns (2 ms)
// That is 2 kernels, 2 HtoD copies and 1 DtoH copy: five records in a profile log.
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
constexpr unsigned long long kSpinNanoseconds = 2'000'000;

void run() {
  CU_CHECK(cuInit(0));
  CUdevice device;
  CU_CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CU_CHECK(cuCtxCreate(&context, nullptr, 0, device));
  CUmodule module;
  CU_CHECK(cuModuleLoadData(&module, samples::kernels_ptx()));
  CUfunction vec_add;
  CU_CHECK(cuModuleGetFunction(&vec_add, module, samples::kVecAddName));
  CUfunction spin;
  CU_CHECK(cuModuleGetFunction(&spin, module, samples::kSpinName));

  // Sums of these are exact in float, so the check below can demand equality.
  std::vector<float> a(kElements);
  std::vector<float> b(kElements);
  for (int i = 0; i < kElements; ++i) {
    a[i] = static_cast<float>(i) * 0.5f;
    b[i] = static_cast<float>(kElements - i) * 0.25f;
  }
  CUdeviceptr device_a;
  CUdeviceptr device_b;
  CUdeviceptr device_c;
  CU_CHECK(cuMemAlloc(&device_a, kBytes));
  CU_CHECK(cuMemAlloc(&device_b, kBytes));
  CU_CHECK(cuMemAlloc(&device_c, kBytes));
  float* c = nullptr;
  CU_CHECK(cuMemAllocHost(reinterpret_cast<void**>(&c), kBytes));

  CU_CHECK(cuMemcpyHtoD(device_a, a.data(), kBytes));
  std::printf("memcpyHtoD %zu bytes from pageable memory\n", kBytes);
  CU_CHECK(cuMemcpyHtoD(device_b, b.data(), kBytes));
  std::printf("memcpyHtoD %zu bytes from pageable memory\n", kBytes);

  int elements = kElements;
  void* vec_add_args[] = {&device_a, &device_b, &device_c, &elements};
  CU_CHECK(cuLaunchKernel(vec_add, kGridBlocks, 1, 1, kBlockThreads, 1, 1, 0, nullptr, vec_add_args, nullptr));
  std::printf("vecAdd grid %u block %u\n", kGridBlocks, kBlockThreads);

  CU_CHECK(cuMemcpyDtoH(c, device_c, kBytes));
  std::printf("memcpyDtoH %zu bytes into page-locked memory\n", kBytes);

  unsigned long long spin_nanoseconds = kSpinNanoseconds;
  void* spin_args[] = {&spin_nanoseconds};
  CU_CHECK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, nullptr, spin_args, nullptr));
  std::printf("spin %llu ns grid 1 block 1\n", kSpinNanoseconds);
  CU_CHECK(cuCtxSynchronize());

  for (int i = 0; i < kElements; ++i) {
    if (c[i] != a[i] + b[i]) samples::fail("c[%d] is %g, expected %g", i, c[i], a[i] + b[i]);
  }

  CU_CHECK(cuMemFreeHost(c));
  CU_CHECK(cuMemFree(device_c));
  CU_CHECK(cuMemFree(device_b));
  CU_CHECK(cuMemFree(device_a));
  CU_CHECK(cuModuleUnload(module));
  CU_CHECK(cuCtxDestroy(context));
}

}  // namespace

int main() { return samples::run_sample(run); }
