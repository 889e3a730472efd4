// A program whose call stacks the tests read back by name, file and line: a static
// function, a function inlined into it, a function of a library built with
// -fvisibility=hidden, an allocation made in a static function. Built with -g, not
// linked with -rdynamic: its functions are in .symtab only. The tests find the lines
// by the "// at:" markers, so that editing this file moves nothing they expect.
//
//   stack_program [delete-self | replace-self FILE]
//
// delete-self removes the program's file first, replace-self puts FILE at its path
// (the image in memory stays what it was). Then, in this order: a cuMemAlloc (allocate_buffer), a launch from the inlined
// launch_inlined (in static launch_from_static), a launch from the library
// (stack_library_launch), a cuMemFree. Prints PASS.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda.h>

#include "stack_library.hpp"

namespace {

constexpr char kModuleImage[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry _Z4spiny(.param .u64 _Z4spiny_param_0) { ret; }\n";

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  std::printf("FAIL: %s returned %d\n", what, static_cast<int>(r));
  std::exit(1);
}

}  // namespace

__attribute__((always_inline)) static inline void launch_inlined(CUfunction f) {
  unsigned long long ns = 1000;
  void* args[] = {&ns};
  check(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), "spin");  // at: inlined launch
}

__attribute__((noinline)) static void launch_from_static(CUfunction f) {
  launch_inlined(f);  // at: static calls inlined
  asm volatile("");   // keeps the call above from being a tail call
}

__attribute__((noinline)) static CUdeviceptr allocate_buffer() {
  CUdeviceptr p = 0;
  check(cuMemAlloc(&p, 4096), "cuMemAlloc");  // at: allocation
  return p;
}

int main(int argc, char** argv) {
  char self[4096] = {};
  if (argc > 1 && ::readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 2;
  if (argc == 2 && std::strcmp(argv[1], "delete-self") == 0 && ::unlink(self) != 0) return 2;
  if (argc == 3 && std::strcmp(argv[1], "replace-self") == 0 && std::rename(argv[2], self) != 0) return 2;
  check(cuInit(0), "cuInit");
  CUdevice dev = 0;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx = nullptr;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, kModuleImage), "cuModuleLoadData");
  CUfunction spin = nullptr;
  check(cuModuleGetFunction(&spin, module, "_Z4spiny"), "spin");
  const CUdeviceptr buffer = allocate_buffer();  // at: main allocates
  launch_from_static(spin);                       // at: main calls static
  stack_library_launch(spin);                     // at: main calls library
  check(cuMemFree(buffer), "cuMemFree");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  std::printf("PASS\n");
  return 0;
}
