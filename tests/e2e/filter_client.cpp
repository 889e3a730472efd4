// A program with known kernels launched from a known chain of functions, for the tests
// of kernel filters and call stacks. Linked with -rdynamic, so that the call stacks name
// its functions.
//
//   filter_client
//
// In this order: memcpyHtoD; four times host_outer -> host_middle -> launch_vec_add
// (vecAdd, stream 0) and launch_spin (spin, on a created stream); launch_block_sum
// (blockSum, on that stream); memset; cuCtxSynchronize. Launches: vecAdd#1 spin#1
// vecAdd#2 spin#2 vecAdd#3 spin#3 vecAdd#4 spin#4 blockSum#1. Prints the created
// stream's id ("stream <id>") and PASS.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda.h>

namespace {

constexpr char kModuleImage[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry _Z4spiny(.param .u64 _Z4spiny_param_0) { ret; }\n"
    ".visible .entry _Z6vecAddPKfS0_Pfi(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u32 p3) { ret; }\n"
    ".visible .entry _Z8blockSumPKfPfi(.param .u64 p0, .param .u64 p1, .param .u32 p2) { ret; }\n";

constexpr int kElements = 1024;

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  std::printf("FAIL: %s returned %d\n", what, static_cast<int>(r));
  std::exit(1);
}

struct Workload {
  CUfunction vec_add = nullptr, spin = nullptr, block_sum = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr a = 0, b = 0, c = 0;
};
Workload w;

}  // namespace

// The chain the tests read in the stacks: exported, never inlined.
extern "C" __attribute__((noinline, visibility("default"))) void launch_vec_add() {
  int n = kElements;
  void* args[] = {&w.a, &w.b, &w.c, &n};
  check(cuLaunchKernel(w.vec_add, kElements / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "vecAdd");
}

extern "C" __attribute__((noinline, visibility("default"))) void launch_spin() {
  unsigned long long ns = 1000;
  void* args[] = {&ns};
  check(cuLaunchKernel(w.spin, 1, 1, 1, 32, 1, 1, 0, w.stream, args, nullptr), "spin");
}

extern "C" __attribute__((noinline, visibility("default"))) void launch_block_sum() {
  int n = kElements;
  void* args[] = {&w.a, &w.c, &n};
  check(cuLaunchKernel(w.block_sum, 4, 1, 1, 256, 1, 1, 0, w.stream, args, nullptr), "blockSum");
}

extern "C" __attribute__((noinline, visibility("default"))) void host_middle() {
  launch_vec_add();
  launch_spin();
  asm volatile("");  // keeps the calls above from being tail calls
}

extern "C" __attribute__((noinline, visibility("default"))) void host_outer() {
  host_middle();
  asm volatile("");
}

extern "C" __attribute__((noinline, visibility("default"))) void run_workload() {
  float host[kElements] = {};
  check(cuMemcpyHtoD(w.a, host, sizeof host), "cuMemcpyHtoD");
  // One call site: the four launches of each kernel share their stack.
#pragma GCC unroll 1
  for (int i = 0; i < 4; ++i) host_outer();
  launch_block_sum();
  check(cuMemsetD8(w.c, 0, sizeof host), "cuMemsetD8");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  asm volatile("");
}

int main() {
  check(cuInit(0), "cuInit");
  CUdevice dev = 0;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx = nullptr;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, kModuleImage), "cuModuleLoadData");
  check(cuModuleGetFunction(&w.vec_add, module, "_Z6vecAddPKfS0_Pfi"), "vecAdd");
  check(cuModuleGetFunction(&w.spin, module, "_Z4spiny"), "spin");
  check(cuModuleGetFunction(&w.block_sum, module, "_Z8blockSumPKfPfi"), "blockSum");
  check(cuStreamCreate(&w.stream, 0), "cuStreamCreate");
  unsigned long long id = 0;
  check(cuStreamGetId(w.stream, &id), "cuStreamGetId");
  std::printf("stream %llu\n", id);
  for (CUdeviceptr* p : {&w.a, &w.b, &w.c}) check(cuMemAlloc(p, kElements * sizeof(float)), "cuMemAlloc");
  run_workload();
  std::printf("PASS\n");
  return 0;
}
