// A program that marks its structure with NVTX (header-only NVTX3: its own loader finds
// the shim through NVTX_INJECTION64_PATH), for the tests of NVTX ranges.
//
//   nvtx_client ranges | iterations | hostile
//
// ranges, in this order: memcpyHtoD outside any range; in "ProfilerStep#1": vecAdd; in
// "forward": spin; in the library's "layer" of domain "lib" (libnvtx_layer.so, its own
// NVTX): blockSum; back in "ProfilerStep#1": vecAdd. A second thread, named "worker":
// "worker"/"inner": vecAdd, and it ends the start/end range "async" the main thread
// started. A wide message "wide-ü": spin. "colored" (category 1 named "cat-one", colour
// 0xff00ff00, payload 7): memset. A mark "done".
// iterations: four times "iter": vecAdd, then "other": spin.
// hostile: NULL, empty, a megabyte, invalid UTF-8 and control characters as messages;
// a pop without a push, a range ended twice and one never ended, 10,000 names, a domain
// destroyed with a range open; a vecAdd inside the invalid name's range.
// Prints the NVTX_INJECTION64_PATH it sees ("nvtx <value>") and PASS.
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <cuda.h>
#include <nvtx3/nvToolsExt.h>

extern "C" void run_layer(void (*work)());

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
  CUcontext context = nullptr;
  CUfunction vec_add = nullptr, spin = nullptr, block_sum = nullptr;
  CUdeviceptr a = 0, b = 0, c = 0;
};
Workload w;

void vec_add() {
  int n = kElements;
  void* args[] = {&w.a, &w.b, &w.c, &n};
  check(cuLaunchKernel(w.vec_add, kElements / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "vecAdd");
}

void spin() {
  unsigned long long ns = 1000;
  void* args[] = {&ns};
  check(cuLaunchKernel(w.spin, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), "spin");
}

void block_sum() {
  int n = kElements;
  void* args[] = {&w.a, &w.c, &n};
  check(cuLaunchKernel(w.block_sum, 4, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "blockSum");
}

void ranges() {
  float host[kElements] = {};
  nvtxNameOsThreadA(static_cast<uint32_t>(gettid()), "main");
  nvtxNameCategoryA(1, "cat-one");
  check(cuMemcpyHtoD(w.a, host, sizeof host), "cuMemcpyHtoD");
  nvtxRangePushA("ProfilerStep#1");
  vec_add();
  nvtxRangePushA("forward");
  spin();
  run_layer(block_sum);
  nvtxRangePop();
  vec_add();
  nvtxRangePop();
  const nvtxRangeId_t async = nvtxRangeStartA("async");
  std::thread worker([async] {
    check(cuCtxSetCurrent(w.context), "cuCtxSetCurrent");
    nvtxNameOsThreadA(static_cast<uint32_t>(gettid()), "worker");
    nvtxRangePushA("worker");
    nvtxRangePushA("inner");
    vec_add();
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangeEnd(async);
  });
  worker.join();
  nvtxRangePushW(L"wide-\u00fc");
  spin();
  nvtxRangePop();
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.category = 1;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xff00ff00;
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a.payload.ullValue = 7;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "colored";
  nvtxRangePushEx(&a);
  check(cuMemsetD8(w.c, 0, sizeof host), "cuMemsetD8");
  nvtxRangePop();
  nvtxMarkA("done");
}

void iterations() {
  for (int i = 0; i < 4; ++i) {
    nvtxRangePushA("iter");
    vec_add();
    nvtxRangePop();
    nvtxRangePushA("other");
    spin();
    nvtxRangePop();
  }
}

void hostile() {
  nvtxRangePushA(nullptr);
  nvtxRangePop();
  nvtxRangePushA("");
  nvtxRangePop();
  std::string huge(1 << 20, 'x');
  nvtxRangePushA(huge.c_str());
  nvtxRangePop();
  nvtxMarkA(nullptr);
  nvtxRangePushW(nullptr);
  nvtxRangePop();
  nvtxRangePushEx(nullptr);
  nvtxRangePop();
  nvtxRangePop();  // without a push
  const nvtxRangeId_t twice = nvtxRangeStartA("twice");
  nvtxRangeEnd(twice);
  nvtxRangeEnd(twice);
  nvtxRangeStartA("never ended");
  char name[32];
  for (int i = 0; i < 10000; ++i) {
    std::snprintf(name, sizeof name, "name %d", i);
    nvtxRangePushA(name);
    nvtxRangePop();
  }
  nvtxDomainHandle_t doomed = nvtxDomainCreateA("doomed");
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "left open";
  nvtxDomainRangePushEx(doomed, &a);
  nvtxDomainDestroy(doomed);
  nvtxRangePushA("bad \xff\xfe utf8, \"quoted\"\x01\n");
  vec_add();
  nvtxRangePop();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  check(cuInit(0), "cuInit");
  CUdevice dev = 0;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&w.context, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(w.context), "cuCtxSetCurrent");
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, kModuleImage), "cuModuleLoadData");
  check(cuModuleGetFunction(&w.vec_add, module, "_Z6vecAddPKfS0_Pfi"), "vecAdd");
  check(cuModuleGetFunction(&w.spin, module, "_Z4spiny"), "spin");
  check(cuModuleGetFunction(&w.block_sum, module, "_Z8blockSumPKfPfi"), "blockSum");
  for (CUdeviceptr* p : {&w.a, &w.b, &w.c}) check(cuMemAlloc(p, kElements * sizeof(float)), "cuMemAlloc");
  if (scenario == "ranges") {
    ranges();
  } else if (scenario == "iterations") {
    iterations();
  } else if (scenario == "hostile") {
    hostile();
  } else {
    std::printf("FAIL: unknown scenario '%s'\n", scenario.c_str());
    return 1;
  }
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  const char* injection = std::getenv("NVTX_INJECTION64_PATH");
  std::printf("nvtx %s\n", injection ? injection : "(unset)");
  std::printf("PASS\n");
  return 0;
}
