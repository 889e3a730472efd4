// An application that reaches the CUDA driver in one chosen way and performs a known
// set of operations, for the end-to-end tests of the shim.
//
//   driver_client <reach> <scenario> [--show-origins]
//   reach:    linked | linked-procaddress | dlsym | procaddress | procaddress-ptds | runtime
//   scenario: basic | legacy-order | bracket | reject | capture | library | module-loads | exit-thread | no-cleanup | fork |
//             overlap | waited-spin | destroy | busy-exit | outrun | ten-copies | launch-then-lookup | long-name |
//             end-<how> | handler-<when>-<signal>-<end> | spins-<ns> | launches-<n> | ...
//
// `runtime` reaches the driver exactly as libcudart 13 does: dlopen("libcuda.so.1"),
// dlsym(h, "cuGetProcAddress_v2"), asks that for "cuGetProcAddress" at 11030 and 12000,
// and gets every entry point through the 12000 pointer; launches at (4000, 0) and
// (7000, 2). `linked` (the driver_client_linked build) takes the addresses of the
// symbols it links against; `linked-procaddress` (the same build) gets every entry point
// through the cuGetProcAddress_v2 it links against. Stdout is deterministic; the last
// line is PASS or FAIL.
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <cuda.h>
#include <cudaProfilerTypedefs.h>
#include <cudaTypedefs.h>

#undef cuGetProcAddress

namespace {

// Kernels the simulated driver implements, by their mangled names.
constexpr char kModuleImage[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry _Z4spiny(.param .u64 _Z4spiny_param_0) { ret; }\n"
    ".visible .entry _Z6vecAddPKfS0_Pfi(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u32 p3) { ret; }\n";

struct Driver {
  PFN_cuGetErrorName_v6000 get_error_name;
  PFN_cuInit_v2000 init;
  PFN_cuDeviceGet_v2000 device_get;
  PFN_cuDevicePrimaryCtxRetain_v7000 primary_retain;
  PFN_cuDevicePrimaryCtxRelease_v11000 primary_release;
  PFN_cuCtxSetCurrent_v4000 ctx_set_current;
  PFN_cuCtxCreate_v3020 ctx_create;
  PFN_cuCtxDestroy_v4000 ctx_destroy;
  PFN_cuCtxSynchronize_v2000 ctx_synchronize;
  PFN_cuModuleLoadData_v2000 module_load_data;
  PFN_cuModuleGetFunction_v2000 module_get_function;
  PFN_cuLibraryLoadData_v12000 library_load_data;
  PFN_cuLibraryGetKernel_v12000 library_get_kernel;
  PFN_cuModuleUnload_v2000 module_unload;
  PFN_cuLibraryUnload_v12000 library_unload;
  PFN_cuMemAlloc_v3020 mem_alloc;
  PFN_cuMemFree_v3020 mem_free;
  PFN_cuMemAllocHost_v3020 mem_alloc_host;
  PFN_cuMemFreeHost_v2000 mem_free_host;
  PFN_cuStreamCreate_v2000 stream_create;
  PFN_cuStreamDestroy_v4000 stream_destroy;
  PFN_cuStreamSynchronize_v2000 stream_synchronize;
  PFN_cuStreamGetId_v12000 stream_get_id;
  PFN_cuStreamBeginCapture_v10010 begin_capture;
  PFN_cuStreamEndCapture_v10000 end_capture;
  PFN_cuGraphInstantiateWithFlags_v11040 graph_instantiate;
  PFN_cuGraphLaunch_v10000 graph_launch;
  PFN_cuMemcpyHtoD_v3020 memcpy_htod;
  PFN_cuMemcpyDtoHAsync_v3020 memcpy_dtoh_async;
  PFN_cuMemcpy_v4000 memcpy_unified;
  PFN_cuMemsetD8_v3020 memset_d8;
  PFN_cuMemsetD8Async_v3020 memset_d8_async;
  PFN_cuLaunchKernel_v4000 launch;
  PFN_cuLaunchKernel_v7000_ptsz launch_ptsz;
  PFN_cuProfilerStart_v4000 profiler_start;
  PFN_cuProfilerStop_v4000 profiler_stop;
  PFN_cuEventCreate_v2000 event_create;
  PFN_cuEventDestroy_v4000 event_destroy;
  PFN_cuEventRecord_v2000 event_record;
  PFN_cuEventSynchronize_v2000 event_synchronize;
  PFN_cuStreamWaitEvent_v3020 stream_wait_event;
};

struct Lookup {
  void** slot;
  const char* exported;  // exact symbol (linked, dlsym)
  const char* base;      // cuGetProcAddress name
  int version;
  bool per_thread;  // asked with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
};

#define SLOT(member) reinterpret_cast<void**>(&d.member)
std::vector<Lookup> lookups(Driver& d) {
  return {
      {SLOT(get_error_name), "cuGetErrorName", "cuGetErrorName", 6000, false},
      {SLOT(init), "cuInit", "cuInit", 2000, false},
      {SLOT(device_get), "cuDeviceGet", "cuDeviceGet", 2000, false},
      {SLOT(primary_retain), "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain", 7000, false},
      {SLOT(primary_release), "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", 11000, false},
      {SLOT(ctx_set_current), "cuCtxSetCurrent", "cuCtxSetCurrent", 4000, false},
      {SLOT(ctx_create), "cuCtxCreate_v2", "cuCtxCreate", 3020, false},
      {SLOT(ctx_destroy), "cuCtxDestroy_v2", "cuCtxDestroy", 4000, false},
      {SLOT(ctx_synchronize), "cuCtxSynchronize", "cuCtxSynchronize", 2000, false},
      {SLOT(module_load_data), "cuModuleLoadData", "cuModuleLoadData", 2000, false},
      {SLOT(module_get_function), "cuModuleGetFunction", "cuModuleGetFunction", 2000, false},
      {SLOT(library_load_data), "cuLibraryLoadData", "cuLibraryLoadData", 12000, false},
      {SLOT(library_get_kernel), "cuLibraryGetKernel", "cuLibraryGetKernel", 12000, false},
      {SLOT(mem_alloc), "cuMemAlloc_v2", "cuMemAlloc", 3020, false},
      {SLOT(mem_free), "cuMemFree_v2", "cuMemFree", 3020, false},
      {SLOT(mem_alloc_host), "cuMemAllocHost_v2", "cuMemAllocHost", 3020, false},
      {SLOT(mem_free_host), "cuMemFreeHost", "cuMemFreeHost", 2000, false},
      {SLOT(stream_create), "cuStreamCreate", "cuStreamCreate", 2000, false},
      {SLOT(stream_destroy), "cuStreamDestroy_v2", "cuStreamDestroy", 4000, false},
      {SLOT(stream_synchronize), "cuStreamSynchronize", "cuStreamSynchronize", 2000, false},
      {SLOT(stream_get_id), "cuStreamGetId", "cuStreamGetId", 12000, false},
      {SLOT(begin_capture), "cuStreamBeginCapture_v2", "cuStreamBeginCapture", 10010, false},
      {SLOT(end_capture), "cuStreamEndCapture", "cuStreamEndCapture", 10000, false},
      {SLOT(graph_instantiate), "cuGraphInstantiateWithFlags", "cuGraphInstantiateWithFlags", 11040, false},
      {SLOT(graph_launch), "cuGraphLaunch", "cuGraphLaunch", 10000, false},
      {SLOT(memcpy_htod), "cuMemcpyHtoD_v2", "cuMemcpyHtoD", 3020, false},
      {SLOT(memcpy_dtoh_async), "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync", 3020, false},
      {SLOT(memcpy_unified), "cuMemcpy", "cuMemcpy", 4000, false},
      {SLOT(memset_d8), "cuMemsetD8_v2", "cuMemsetD8", 3020, false},
      {SLOT(memset_d8_async), "cuMemsetD8Async", "cuMemsetD8Async", 3020, false},
      {SLOT(launch), "cuLaunchKernel", "cuLaunchKernel", 4000, false},
      {SLOT(launch_ptsz), "cuLaunchKernel_ptsz", "cuLaunchKernel", 7000, true},
      {SLOT(profiler_start), "cuProfilerStart", "cuProfilerStart", 4000, false},
      {SLOT(profiler_stop), "cuProfilerStop", "cuProfilerStop", 4000, false},
      {SLOT(event_create), "cuEventCreate", "cuEventCreate", 2000, false},
      {SLOT(event_destroy), "cuEventDestroy_v2", "cuEventDestroy", 4000, false},
      {SLOT(event_record), "cuEventRecord", "cuEventRecord", 2000, false},
      {SLOT(event_synchronize), "cuEventSynchronize", "cuEventSynchronize", 2000, false},
      {SLOT(stream_wait_event), "cuStreamWaitEvent", "cuStreamWaitEvent", 3020, false},
      {SLOT(module_unload), "cuModuleUnload", "cuModuleUnload", 2000, false},
      {SLOT(library_unload), "cuLibraryUnload", "cuLibraryUnload", 12000, false},
  };
}
#undef SLOT

[[noreturn]] void fail(const std::string& what) {
  std::printf("FAIL: %s\n", what.c_str());
  std::fflush(stdout);
  std::_Exit(1);
}

const char* origin(void* fn) {
  Dl_info info{};
  if (!fn || !dladdr(fn, &info) || !info.dli_fname) return "none";
  return std::strstr(info.dli_fname, "libcomputeprof") ? "shim" : "driver";
}

#ifdef CLIENT_LINKED
// cuda.h declares the per-thread variants only for per-thread builds.
extern "C" std::remove_pointer_t<PFN_cuLaunchKernel_v7000_ptsz> cuLaunchKernel_ptsz;
// cuda.h 13 declares only the newest cuCtxCreate; the 3020 one is what older drivers have.
extern "C" std::remove_pointer_t<PFN_cuCtxCreate_v3020> cuCtxCreate_v2;

void resolve_linked(Driver& d) {
  void* addresses[] = {
      reinterpret_cast<void*>(&cuGetErrorName), reinterpret_cast<void*>(&cuInit),
      reinterpret_cast<void*>(&cuDeviceGet), reinterpret_cast<void*>(&cuDevicePrimaryCtxRetain),
      reinterpret_cast<void*>(&cuDevicePrimaryCtxRelease_v2), reinterpret_cast<void*>(&cuCtxSetCurrent),
      reinterpret_cast<void*>(&cuCtxCreate_v2), reinterpret_cast<void*>(&cuCtxDestroy_v2),
      reinterpret_cast<void*>(static_cast<CUresult (*)()>(&cuCtxSynchronize)),
      reinterpret_cast<void*>(&cuModuleLoadData), reinterpret_cast<void*>(&cuModuleGetFunction),
      reinterpret_cast<void*>(&cuLibraryLoadData), reinterpret_cast<void*>(&cuLibraryGetKernel),
      reinterpret_cast<void*>(&cuMemAlloc_v2), reinterpret_cast<void*>(&cuMemFree_v2),
      reinterpret_cast<void*>(&cuMemAllocHost_v2), reinterpret_cast<void*>(&cuMemFreeHost),
      reinterpret_cast<void*>(&cuStreamCreate), reinterpret_cast<void*>(&cuStreamDestroy_v2),
      reinterpret_cast<void*>(&cuStreamSynchronize), reinterpret_cast<void*>(&cuStreamGetId),
      reinterpret_cast<void*>(&cuStreamBeginCapture_v2), reinterpret_cast<void*>(&cuStreamEndCapture),
      reinterpret_cast<void*>(&cuGraphInstantiateWithFlags), reinterpret_cast<void*>(&cuGraphLaunch),
      reinterpret_cast<void*>(&cuMemcpyHtoD_v2), reinterpret_cast<void*>(&cuMemcpyDtoHAsync_v2),
      reinterpret_cast<void*>(&cuMemcpy), reinterpret_cast<void*>(&cuMemsetD8_v2),
      reinterpret_cast<void*>(&cuMemsetD8Async),
      reinterpret_cast<void*>(&cuLaunchKernel), reinterpret_cast<void*>(&cuLaunchKernel_ptsz),
      reinterpret_cast<void*>(&cuProfilerStart), reinterpret_cast<void*>(&cuProfilerStop),
      reinterpret_cast<void*>(&cuEventCreate), reinterpret_cast<void*>(&cuEventDestroy_v2),
      reinterpret_cast<void*>(&cuEventRecord), reinterpret_cast<void*>(&cuEventSynchronize),
      reinterpret_cast<void*>(&cuStreamWaitEvent), reinterpret_cast<void*>(&cuModuleUnload),
      reinterpret_cast<void*>(&cuLibraryUnload),
  };
  auto table = lookups(d);
  for (std::size_t i = 0; i < table.size(); ++i) *table[i].slot = addresses[i];
}
#endif

void* open_driver() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) fail(std::string("dlopen libcuda.so.1: ") + dlerror());
  return h;
}

void resolve_dlsym(Driver& d) {
  void* h = open_driver();
  for (auto& l : lookups(d)) *l.slot = dlsym(h, l.exported);
}

void resolve_procaddress(Driver& d, PFN_cuGetProcAddress_v12000 gpa, bool all_per_thread) {
  for (auto& l : lookups(d)) {
    CUdriverProcAddressQueryResult status{};
    const bool per_thread = l.per_thread || all_per_thread;
    // Per-thread variants appeared in CUDA 7.0: asked for at an older version, the
    // driver rightly gives the legacy one.
    const int version = all_per_thread && l.version < 7000 ? 7000 : l.version;
    const CUresult r = gpa(l.base, l.slot, version, per_thread ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0,
                           &status);
    if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS) *l.slot = nullptr;
  }
}

void resolve(Driver& d, std::string_view reach, bool show_origins) {
  if (reach == "linked") {
#ifdef CLIENT_LINKED
    resolve_linked(d);
#else
    fail("this build does not link the driver; use driver_client_linked");
#endif
  } else if (reach == "dlsym") {
    resolve_dlsym(d);
  } else if (reach == "linked-procaddress") {
#ifdef CLIENT_LINKED
    resolve_procaddress(d, &cuGetProcAddress_v2, false);
#else
    fail("this build does not link the driver; use driver_client_linked");
#endif
  } else if (reach == "procaddress" || reach == "procaddress-ptds") {
    auto gpa = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(open_driver(), "cuGetProcAddress_v2"));
    if (!gpa) fail("dlsym cuGetProcAddress_v2");
    resolve_procaddress(d, gpa, reach == "procaddress-ptds");
  } else if (reach == "runtime") {
    auto probe = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(open_driver(), "cuGetProcAddress_v2"));
    if (!probe) fail("dlsym cuGetProcAddress_v2");
    void* v11030 = nullptr;
    void* v12000 = nullptr;
    CUdriverProcAddressQueryResult status{};
    if (probe("cuGetProcAddress", &v11030, 11030, 0, &status) != CUDA_SUCCESS || !v11030) fail("cuGetProcAddress@11030");
    if (probe("cuGetProcAddress", &v12000, 12000, 0, &status) != CUDA_SUCCESS || !v12000) fail("cuGetProcAddress@12000");
    if (show_origins) {
      std::printf("origin cuGetProcAddress@11030 %s\n", origin(v11030));
      std::printf("origin cuGetProcAddress@12000 %s\n", origin(v12000));
    }
    resolve_procaddress(d, reinterpret_cast<PFN_cuGetProcAddress_v12000>(v12000), false);
    // A 32-bit legacy variant must come back untouched (never a _v2 wrapper).
    void* legacy = nullptr;
    reinterpret_cast<PFN_cuGetProcAddress_v12000>(v12000)("cuMemcpyHtoD", &legacy, 2000, 0, &status);
    if (show_origins) std::printf("origin cuMemcpyHtoD@2000 %s\n", origin(legacy));
  } else {
    fail("unknown reach path");
  }
  for (auto& l : lookups(d)) {
    if (!*l.slot) fail(std::string("no entry point for ") + l.exported);
    if (show_origins) std::printf("origin %s %s\n", l.exported, origin(*l.slot));
  }
}

Driver g;

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = "?";
  if (g.get_error_name) g.get_error_name(r, &name);
  fail(std::string(what) + " returned " + name);
}

struct Session {
  CUcontext ctx = nullptr;
  CUfunction spin = nullptr;
  CUfunction vec_add = nullptr;
};

Session open_session() {
  Session s;
  check(g.init(0), "cuInit");
  CUdevice dev = 0;
  check(g.device_get(&dev, 0), "cuDeviceGet");
  check(g.primary_retain(&s.ctx, dev), "cuDevicePrimaryCtxRetain");
  check(g.ctx_set_current(s.ctx), "cuCtxSetCurrent");
  CUmodule module = nullptr;
  check(g.module_load_data(&module, kModuleImage), "cuModuleLoadData");
  check(g.module_get_function(&s.spin, module, "_Z4spiny"), "cuModuleGetFunction spin");
  check(g.module_get_function(&s.vec_add, module, "_Z6vecAddPKfS0_Pfi"), "cuModuleGetFunction vecAdd");
  return s;
}

void spin(const Session& s, unsigned long long ns, CUstream stream = nullptr) {
  void* args[] = {&ns};
  check(g.launch(s.spin, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr), "cuLaunchKernel spin");
}

// Operations, as the tests count them:
//   kernels: _Z6vecAddPKfS0_Pfi grid (40,1,1) block (256,1,1); _Z4spiny 30 ms grid 1 block 32
//            on a created stream; _Z4spiny 20 ms through cuLaunchKernel_ptsz on stream 0
//   copies:  2 x memcpyHtoD 40960 bytes pageable; memcpyDtoHasync 40960 bytes page-locked;
//            memcpyDtoD 40960 bytes (cuMemcpy on unified addresses); memset 40960 bytes
int scenario_basic() {
  Session s = open_session();
  constexpr int n = 10240;
  constexpr size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
  }
  CUdeviceptr da, db, dc, dd;
  check(g.mem_alloc(&da, bytes), "cuMemAlloc");
  check(g.mem_alloc(&db, bytes), "cuMemAlloc");
  check(g.mem_alloc(&dc, bytes), "cuMemAlloc");
  check(g.mem_alloc(&dd, bytes), "cuMemAlloc");
  void* pinned = nullptr;
  check(g.mem_alloc_host(&pinned, bytes), "cuMemAllocHost");
  CUstream stream;
  check(g.stream_create(&stream, 0), "cuStreamCreate");
  unsigned long long id = 0;
  check(g.stream_get_id(stream, &id), "cuStreamGetId");
  std::printf("stream created %llu\n", id);
  check(g.stream_get_id(CU_STREAM_PER_THREAD, &id), "cuStreamGetId per-thread");
  std::printf("stream per-thread %llu\n", id);

  check(g.memcpy_htod(da, a.data(), bytes), "cuMemcpyHtoD a");
  check(g.memcpy_htod(db, b.data(), bytes), "cuMemcpyHtoD b");
  int count = n;
  void* args[] = {&da, &db, &dc, &count};
  check(g.launch(s.vec_add, n / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel vecAdd");
  // vecAdd's result is read on `stream` below. Stream 0 orders that read only where it
  // is the legacy stream: with the per-thread default stream (procaddress-ptds) this
  // program waits for it itself, as a CUDA program must.
  check(g.stream_synchronize(nullptr), "cuStreamSynchronize 0");
  spin(s, 30'000'000, stream);
  check(g.memcpy_dtoh_async(pinned, dc, bytes, stream), "cuMemcpyDtoHAsync");
  check(g.stream_synchronize(stream), "cuStreamSynchronize");
  check(g.memcpy_unified(dd, dc, bytes), "cuMemcpy");
  check(g.memset_d8(da, 0, bytes), "cuMemsetD8");
  unsigned long long ns = 20'000'000;
  void* spin_args[] = {&ns};
  check(g.launch_ptsz(s.spin, 1, 1, 1, 32, 1, 1, 0, nullptr, spin_args, nullptr), "cuLaunchKernel_ptsz");
  check(g.ctx_synchronize(), "cuCtxSynchronize");

  const auto* c = static_cast<const float*>(pinned);
  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) fail("vecAdd result");
  }
  std::printf("vecAdd %d elements ok\n", n);
  check(g.stream_destroy(stream), "cuStreamDestroy");
  for (CUdeviceptr p : {da, db, dc, dd}) check(g.mem_free(p), "cuMemFree");
  check(g.mem_free_host(pinned), "cuMemFreeHost");
  CUdevice dev = 0;
  check(g.device_get(&dev, 0), "cuDeviceGet");
  check(g.primary_release(dev), "cuDevicePrimaryCtxRelease");
  return 0;
}

// Work on a created stream waits for what stream 0 was given before, as CUDA orders a
// blocking stream after the legacy stream: a copy on the stream reads what vecAdd on
// stream 0 wrote after a 30 ms spin there. 2 HtoD, a spin, vecAdd, a DtoHasync.
int scenario_legacy_order() {
  Session s = open_session();
  constexpr int n = 10240;
  constexpr size_t bytes = n * sizeof(float);
  std::vector<float> a(n, 1.0f), b(n, 2.0f);
  CUdeviceptr da, db, dc;
  for (CUdeviceptr* p : {&da, &db, &dc}) check(g.mem_alloc(p, bytes), "cuMemAlloc");
  void* pinned = nullptr;
  check(g.mem_alloc_host(&pinned, bytes), "cuMemAllocHost");
  CUstream stream;
  check(g.stream_create(&stream, 0), "cuStreamCreate");
  check(g.memcpy_htod(da, a.data(), bytes), "cuMemcpyHtoD a");
  check(g.memcpy_htod(db, b.data(), bytes), "cuMemcpyHtoD b");
  spin(s, 30'000'000);
  int count = n;
  void* args[] = {&da, &db, &dc, &count};
  check(g.launch(s.vec_add, n / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel vecAdd");
  check(g.memcpy_dtoh_async(pinned, dc, bytes, stream), "cuMemcpyDtoHAsync");
  check(g.stream_synchronize(stream), "cuStreamSynchronize");
  const auto* c = static_cast<const float*>(pinned);
  for (int i = 0; i < n; ++i) {
    if (c[i] != 3.0f) fail("the copy on the created stream ran before vecAdd on stream 0");
  }
  check(g.stream_destroy(stream), "cuStreamDestroy");
  for (CUdeviceptr p : {da, db, dc}) check(g.mem_free(p), "cuMemFree");
  check(g.mem_free_host(pinned), "cuMemFreeHost");
  return 0;
}

// 1 spin before cuProfilerStart, 2 spins and 1 HtoD between start and stop, 1 after.
int scenario_bracket() {
  Session s = open_session();
  CUdeviceptr d;
  check(g.mem_alloc(&d, 4096), "cuMemAlloc");
  std::vector<char> host(4096, 1);
  spin(s, 100'000);
  check(g.profiler_start(), "cuProfilerStart");
  spin(s, 200'000);
  check(g.memcpy_htod(d, host.data(), host.size()), "cuMemcpyHtoD");
  spin(s, 300'000);
  check(g.profiler_stop(), "cuProfilerStop");
  spin(s, 400'000);
  return 0;
}

// 100 spins of 1 us and 100 copies.
void spin_and_copy_100(const Session& s) {
  CUdeviceptr d;
  check(g.mem_alloc(&d, 4096), "cuMemAlloc");
  std::vector<char> host(4096, 1);
  for (int i = 0; i < 100; ++i) {
    spin(s, 1'000);
    check(g.memcpy_htod(d, host.data(), host.size()), "cuMemcpyHtoD");
  }
}

void say_ending(std::string_view how) {
  std::printf("ending by %.*s\n", static_cast<int>(how.size()), how.data());
  std::fflush(stdout);
}

// A real segmentation fault. An unmapped page, not null: a real fault under UBSan too
// (it reports null stores itself and exits instead). The address is read from a
// volatile variable, so that the compiler sees no constant out-of-bounds store to warn
// about.
volatile std::uintptr_t g_unmapped_address = 64;
void segmentation_fault() {
  volatile int* nowhere = reinterpret_cast<volatile int*>(g_unmapped_address);
  *nowhere = 1;
}

// A real bus error: a page of a file mapped beyond the file's end.
void bus_error() {
  std::FILE* empty = std::tmpfile();
  if (!empty) fail("tmpfile");
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(empty), 0);
  if (page == MAP_FAILED) fail("mmap");
  *static_cast<volatile char*>(page) = 1;
}

// spin_and_copy_100, then the end `how` names, without exit handlers: _exit, _Exit,
// quick_exit, abort, a segmentation fault or a bus error, or SIGFPE, SIGILL, SIGINT,
// SIGTERM or SIGHUP raised with no handler of its own.
int scenario_abrupt_end(std::string_view how) {
  spin_and_copy_100(open_session());
  say_ending(how);
  if (how == "_exit") _exit(3);
  if (how == "_Exit") _Exit(4);
  if (how == "quick_exit") std::quick_exit(5);
  if (how == "abort") std::abort();
  if (how == "segv") segmentation_fault();
  if (how == "sigbus") bus_error();
  // Raised: a real one would be a division by zero, which UBSan reports itself and
  // which does not trap on every architecture; and ud2 exists on x86 only.
  if (how == "sigfpe") raise(SIGFPE);
  if (how == "sigill") raise(SIGILL);
  if (how == "sigint") raise(SIGINT);
  if (how == "sigterm") raise(SIGTERM);
  if (how == "sighup") raise(SIGHUP);
  fail("unknown way to end");
  return 1;
}

// What the program's own handler does after it printed the signal: exits with status
// 42, or sets the default disposition back and raises the signal again, or returns
// (after a fault, which then repeats) with the default disposition back.
enum class HandlerEnd { exit, reraise, return_to_fault };
HandlerEnd g_handler_end = HandlerEnd::exit;

void own_handler(int signal) {
  // write(2) only: the handler runs inside a signal.
  char line[] = "own handler: signal ..\n";
  line[20] = static_cast<char>('0' + signal / 10);
  line[21] = static_cast<char>('0' + signal % 10);
  [[maybe_unused]] const ssize_t n = write(STDOUT_FILENO, line, sizeof line - 1);
  if (g_handler_end == HandlerEnd::exit) _exit(42);
  ::signal(signal, SIG_DFL);
  if (g_handler_end == HandlerEnd::reraise) raise(signal);
}

void install_own_handler(int signal) {
  struct sigaction action {};
  action.sa_handler = own_handler;
  sigemptyset(&action.sa_mask);
  if (sigaction(signal, &action, nullptr) != 0) fail("sigaction");
}

// handler-<when>-<signal>-<end>: the program handles SIGSEGV or SIGTERM itself, with a
// handler installed `first` (before any CUDA call: the shim's handler, installed later,
// calls it) or `late` (after spin_and_copy_100: it replaces the shim's); then it makes a
// segmentation fault or raises SIGTERM. Says whose handler is in place before the end.
int scenario_own_handler(std::string_view spec) {
  const bool first = spec.starts_with("first-");
  const int signal = spec.find("-segv-") != std::string_view::npos ? SIGSEGV : SIGTERM;
  if (spec.ends_with("-reraise")) g_handler_end = HandlerEnd::reraise;
  if (spec.ends_with("-return")) g_handler_end = HandlerEnd::return_to_fault;
  if (first) install_own_handler(signal);
  spin_and_copy_100(open_session());
  if (!first) install_own_handler(signal);
  struct sigaction now {};
  sigaction(signal, nullptr, &now);
  std::printf("%s handler in place\n", now.sa_handler == own_handler ? "own" : "another");
  say_ending(spec);
  if (signal == SIGSEGV) segmentation_fault();
  else raise(signal);
  fail("the handler did not end the program");
  return 1;
}

// Launches until stopped from outside; prints how many launches have returned, each.
int scenario_launch_loop() {
  Session s = open_session();
  for (long i = 1;; ++i) {
    spin(s, 1'000);
    std::printf("returned %ld\n", i);
    std::fflush(stdout);
  }
}

// 300 spins of 1 us, each waited for: never more than one operation in flight.
int scenario_synced_launches() {
  Session s = open_session();
  for (int i = 0; i < 300; ++i) {
    spin(s, 1'000);
    check(g.ctx_synchronize(), "cuCtxSynchronize");
  }
  return 0;
}

// A spin and a copy, cuProfilerStop (a flush point), then killed: no exit handler runs.
int scenario_stop_then_kill() {
  Session s = open_session();
  CUdeviceptr d;
  check(g.mem_alloc(&d, 4096), "cuMemAlloc");
  std::vector<char> host(4096, 1);
  spin(s, 200'000);
  check(g.memcpy_htod(d, host.data(), host.size()), "cuMemcpyHtoD");
  check(g.profiler_stop(), "cuProfilerStop");
  std::fflush(stdout);
  raise(SIGKILL);
  return 0;
}

// A launch the driver refuses (2048 threads per block), then one good launch.
int scenario_reject() {
  Session s = open_session();
  unsigned long long ns = 1000;
  void* args[] = {&ns};
  const CUresult r = g.launch(s.spin, 1, 1, 1, 2048, 1, 1, 0, nullptr, args, nullptr);
  const char* name = "?";
  g.get_error_name(r, &name);
  std::printf("rejected launch returned %s\n", name);
  if (r != CUDA_ERROR_INVALID_VALUE) fail("the rejected launch's error changed");
  spin(s, 1000);
  return 0;
}

// A spin captured into a graph (not executed), then the graph launched once.
int scenario_capture() {
  Session s = open_session();
  CUstream stream;
  check(g.stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  check(g.begin_capture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
  spin(s, 1'000'000, stream);
  CUgraph graph = nullptr;
  check(g.end_capture(stream, &graph), "cuStreamEndCapture");
  std::printf("capture ok\n");
  CUgraphExec exec = nullptr;
  check(g.graph_instantiate(&exec, graph, 0), "cuGraphInstantiateWithFlags");
  check(g.graph_launch(exec, stream), "cuGraphLaunch");
  check(g.stream_synchronize(stream), "cuStreamSynchronize");
  return 0;
}

// A graph of a 4 KiB memset, a 2 ms spin and a copy of the 4 KiB to pinned memory,
// captured on a stream, then launched twice.
int scenario_graph_nodes() {
  Session s = open_session();
  constexpr std::size_t bytes = 4096;
  CUdeviceptr d = 0;
  check(g.mem_alloc(&d, bytes), "cuMemAlloc");
  void* pinned = nullptr;
  check(g.mem_alloc_host(&pinned, bytes), "cuMemAllocHost");
  CUstream stream;
  check(g.stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  check(g.begin_capture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
  check(g.memset_d8_async(d, 7, bytes, stream), "cuMemsetD8Async");
  spin(s, 2'000'000, stream);
  check(g.memcpy_dtoh_async(pinned, d, bytes, stream), "cuMemcpyDtoHAsync");
  CUgraph graph = nullptr;
  check(g.end_capture(stream, &graph), "cuStreamEndCapture");
  CUgraphExec exec = nullptr;
  check(g.graph_instantiate(&exec, graph, 0), "cuGraphInstantiateWithFlags");
  for (int i = 0; i < 2; ++i) check(g.graph_launch(exec, stream), "cuGraphLaunch");
  check(g.stream_synchronize(stream), "cuStreamSynchronize");
  if (static_cast<const unsigned char*>(pinned)[bytes - 1] != 7) fail("graph result");
  std::printf("graph ok\n");
  return 0;
}

// A CUkernel (library API) launched directly: 1 spin of 500 us.
int scenario_library() {
  open_session();
  CUlibrary library = nullptr;
  check(g.library_load_data(&library, kModuleImage, nullptr, nullptr, 0, nullptr, nullptr, 0), "cuLibraryLoadData");
  CUkernel kernel = nullptr;
  check(g.library_get_kernel(&kernel, library, "_Z4spiny"), "cuLibraryGetKernel");
  unsigned long long ns = 500'000;
  void* args[] = {&ns};
  check(g.launch(reinterpret_cast<CUfunction>(kernel), 2, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr),
        "cuLaunchKernel CUkernel");
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  return 0;
}

// Modules and libraries loaded and unloaded, as apitrace sees them: the session's module
// (cuModuleLoadData), a library loaded and unloaded, a second module loaded and unloaded.
int scenario_module_loads() {
  open_session();
  CUlibrary library = nullptr;
  check(g.library_load_data(&library, kModuleImage, nullptr, nullptr, 0, nullptr, nullptr, 0), "cuLibraryLoadData");
  check(g.library_unload(library), "cuLibraryUnload");
  CUmodule module = nullptr;
  check(g.module_load_data(&module, kModuleImage), "cuModuleLoadData");
  check(g.module_unload(module), "cuModuleUnload");
  return 0;
}

// 3 spins, then exit() from another thread while main is blocked.
int scenario_exit_thread() {
  Session s = open_session();
  for (int i = 0; i < 3; ++i) spin(s, 100'000);
  std::printf("PASS\n");
  std::fflush(stdout);
  std::thread([] { std::exit(0); }).join();
  return 0;
}

// 3 spins and return without releasing anything.
int scenario_no_cleanup() {
  Session s = open_session();
  for (int i = 0; i < 3; ++i) spin(s, 100'000);
  return 0;
}

// Subscribes to the CUPTI named by COMPUTEPROF_CUPTI_LIBRARY before any launch, as a
// program using CUPTI itself does; then 3 spins of 100 us.
int scenario_cupti_subscriber() {
  const char* path = std::getenv("COMPUTEPROF_CUPTI_LIBRARY");
  void* cupti = path ? dlopen(path, RTLD_NOW) : nullptr;
  if (!cupti) fail("no CUPTI to subscribe to");
  // cuptiSubscribe(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*), without CUPTI's headers.
  using Subscribe = int (*)(void**, void*, void*);
  auto subscribe = reinterpret_cast<Subscribe>(dlsym(cupti, "cuptiSubscribe"));
  void* subscriber = nullptr;
  if (!subscribe || subscribe(&subscriber, nullptr, nullptr) != 0) fail("cuptiSubscribe");
  Session s = open_session();
  for (int i = 0; i < 3; ++i) spin(s, 100'000);
  return 0;
}

// 1 spin, fork (the child only exits), 1 spin.
int scenario_fork() {
  Session s = open_session();
  spin(s, 100'000);
  const pid_t child = fork();
  if (child == 0) std::exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  spin(s, 100'000);
  return 0;
}

// A spin, then this client run again as a new program (fork and exec, its "basic"
// scenario) while this one's log is open, then another spin.
int scenario_exec_child(const char* self, const char* reach) {
  Session s = open_session();
  spin(s, 100'000);
  const pid_t child = fork();
  if (child == 0) {
    execl(self, self, reach, "basic", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("child %d exited %d\n", static_cast<int>(child), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  spin(s, 200'000);
  return 0;
}

// A 1 ms spin on stream A, then 200 ms spins on stream A and on stream B launched back
// to back (they run at the same time unless timing serializes them).
int scenario_overlap() {
  Session s = open_session();
  CUstream a, b;
  check(g.stream_create(&a, CU_STREAM_NON_BLOCKING), "cuStreamCreate a");
  check(g.stream_create(&b, CU_STREAM_NON_BLOCKING), "cuStreamCreate b");
  spin(s, 1'000'000, a);
  spin(s, 200'000'000, a);
  spin(s, 200'000'000, b);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  return 0;
}

// A 1 ms spin on stream 0, a 50 ms one there, then a 50 ms one on a created stream,
// which starts once the second ended (a blocking stream waits for the legacy stream's
// earlier work). The 1 ms spin is the thread's first operation, which conckerneltrace
// with event pairs waits for to anchor its GPU times: the next two it does not.
int scenario_waited_spin() {
  Session s = open_session();
  CUstream stream;
  check(g.stream_create(&stream, 0), "cuStreamCreate");
  spin(s, 1'000'000);
  spin(s, 50'000'000);
  spin(s, 50'000'000, stream);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  check(g.stream_destroy(stream), "cuStreamDestroy");
  return 0;
}

// A short spin on stream b overtakes a long one launched before it on stream a. The
// spins are long enough that a loaded host's gap between a start event and its launch
// (counted in an idle stream's first kernel under event timing) stays within 10 %.
// The host waits, as apitrace sees it: a 20 ms spin on stream a then
// cuStreamSynchronize on a; an event recorded on a after a 10 ms spin, stream b made to
// wait for it, then the event synchronized; a context synchronize with nothing left.
int scenario_host_waits() {
  Session s = open_session();
  CUstream a, b;
  check(g.stream_create(&a, CU_STREAM_NON_BLOCKING), "cuStreamCreate a");
  check(g.stream_create(&b, CU_STREAM_NON_BLOCKING), "cuStreamCreate b");
  unsigned long long a_id = 0, b_id = 0;
  check(g.stream_get_id(a, &a_id), "cuStreamGetId a");
  check(g.stream_get_id(b, &b_id), "cuStreamGetId b");
  std::printf("streams %llu %llu\n", a_id, b_id);
  spin(s, 20'000'000, a);
  check(g.stream_synchronize(a), "cuStreamSynchronize a");
  CUevent e;
  check(g.event_create(&e, 0), "cuEventCreate");
  spin(s, 10'000'000, a);
  check(g.event_record(e, a), "cuEventRecord");
  check(g.stream_wait_event(b, e, 0), "cuStreamWaitEvent");
  check(g.event_synchronize(e), "cuEventSynchronize");
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  check(g.event_destroy(e), "cuEventDestroy");
  check(g.stream_destroy(a), "cuStreamDestroy a");
  check(g.stream_destroy(b), "cuStreamDestroy b");
  return 0;
}

// Known waits between the GPU's operations, for the idle analysis: a 2 ms spin, then
// cuStreamSynchronize; a host-side sleep of 5 ms; a 1 ms spin, an event recorded after it
// and synchronized; a copy of 1 MiB from pageable memory. Two gaps: the first the
// synchronization's and the sleep's, the second the event's and the copy's.
int scenario_idle_waits() {
  Session s = open_session();
  CUstream a;
  check(g.stream_create(&a, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUevent e;
  check(g.event_create(&e, 0), "cuEventCreate");
  constexpr std::size_t bytes = 1 << 20;
  std::vector<char> pageable(bytes, 1);
  CUdeviceptr d = 0;
  check(g.mem_alloc(&d, bytes), "cuMemAlloc");
  spin(s, 2'000'000, a);
  check(g.stream_synchronize(a), "cuStreamSynchronize");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  spin(s, 1'000'000, a);
  check(g.event_record(e, a), "cuEventRecord");
  check(g.event_synchronize(e), "cuEventSynchronize");
  check(g.memcpy_htod(d, pageable.data(), bytes), "cuMemcpyHtoD");
  check(g.mem_free(d), "cuMemFree");
  check(g.event_destroy(e), "cuEventDestroy");
  check(g.stream_destroy(a), "cuStreamDestroy");
  return 0;
}

int scenario_overtake() {
  Session s = open_session();
  CUstream a, b;
  check(g.stream_create(&a, CU_STREAM_NON_BLOCKING), "cuStreamCreate a");
  check(g.stream_create(&b, CU_STREAM_NON_BLOCKING), "cuStreamCreate b");
  spin(s, 20'000'000, a);
  spin(s, 150'000'000, a);
  spin(s, 40'000'000, b);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  return 0;
}

// A created context: 3 spins of 50 ms on its NULL stream, destroyed at once (no
// synchronisation), then 1 spin of 100 us in the primary context.
int scenario_destroy() {
  Session s = open_session();
  CUdevice dev = 0;
  check(g.device_get(&dev, 0), "cuDeviceGet");
  CUcontext created = nullptr;
  check(g.ctx_create(&created, 0, dev), "cuCtxCreate");
  CUmodule module = nullptr;
  check(g.module_load_data(&module, kModuleImage), "cuModuleLoadData");
  CUfunction created_spin = nullptr;
  check(g.module_get_function(&created_spin, module, "_Z4spiny"), "cuModuleGetFunction spin");
  for (int i = 0; i < 3; ++i) {
    unsigned long long ns = 50'000'000;
    void* args[] = {&ns};
    check(g.launch(created_spin, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel spin");
  }
  check(g.ctx_destroy(created), "cuCtxDestroy");
  check(g.ctx_set_current(s.ctx), "cuCtxSetCurrent");
  spin(s, 100'000);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  return 0;
}

// A 500 ms spin, then 1,100 empty spins launched behind it on the same stream: prints
// how many of those returned before the first could have ended. A driver whose queue
// holds 1,024 operations a stream says 1023; one without a bound, 1100.
int scenario_outrun() {
  Session s = open_session();
  constexpr auto kFirst = std::chrono::milliseconds(500);
  const auto first_ends = std::chrono::steady_clock::now() + kFirst;
  spin(s, std::chrono::nanoseconds(kFirst).count());
  int returned_before = 0;
  for (int i = 0; i < 1100; ++i) {
    spin(s, 0);
    if (std::chrono::steady_clock::now() < first_ends) ++returned_before;
  }
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  std::printf("returned before the first spin ended: %d\n", returned_before);
  return 0;
}

// 10 copies: 5 cuMemcpyHtoD and 5 cuMemcpyDtoHAsync on stream 0, 4096 bytes each.
int scenario_ten_copies() {
  open_session();
  constexpr size_t bytes = 4096;
  std::vector<unsigned char> host(bytes, 7);
  CUdeviceptr device = 0;
  check(g.mem_alloc(&device, bytes), "cuMemAlloc");
  void* pinned = nullptr;
  check(g.mem_alloc_host(&pinned, bytes), "cuMemAllocHost");
  for (int i = 0; i < 5; ++i) {
    check(g.memcpy_htod(device, host.data(), bytes), "cuMemcpyHtoD");
    check(g.memcpy_dtoh_async(pinned, device, bytes, nullptr), "cuMemcpyDtoHAsync");
  }
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  if (static_cast<const unsigned char*>(pinned)[bytes - 1] != 7) fail("copied bytes");
  check(g.mem_free(device), "cuMemFree");
  check(g.mem_free_host(pinned), "cuMemFreeHost");
  std::printf("10 copies ok\n");
  return 0;
}

// A spin through the entry point `reach` gave, then one through cuLaunchKernel looked up
// with dlsym on libcuda's handle.
int scenario_launch_then_lookup() {
  Session s = open_session();
  spin(s, 0);
  auto launch = reinterpret_cast<PFN_cuLaunchKernel_v4000>(dlsym(open_driver(), "cuLaunchKernel"));
  if (!launch) fail("dlsym cuLaunchKernel");
  unsigned long long ns = 0;
  void* args[] = {&ns};
  check(launch(s.spin, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel looked up");
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  return 0;
}

// A kernel named by 60,000 'a's (a templated kernel's name runs to thousands of
// characters) launched 3 times, then one spin.
int scenario_long_name() {
  Session s = open_session();
  const std::string name(60'000, 'a');
  const std::string image = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry " + name + "() { ret; }\n";
  CUmodule module = nullptr;
  check(g.module_load_data(&module, image.c_str()), "cuModuleLoadData long name");
  CUfunction f = nullptr;
  check(g.module_get_function(&f, module, name.c_str()), "cuModuleGetFunction long name");
  for (int i = 0; i < 3; ++i) {
    check(g.launch(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr), "cuLaunchKernel long name");
  }
  spin(s, 0);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  return 0;
}

// 3 spins of 50 ms, and return while they still run (no synchronisation, no cleanup).
int scenario_busy_exit() {
  Session s = open_session();
  for (int i = 0; i < 3; ++i) spin(s, 50'000'000);
  return 0;
}

// Two spins, of N and 2N ns ("spins-N"): one rank of the stats tests' distributed job,
// whose GPU time is exact.
int scenario_spins(std::string_view n) {
  const unsigned long long ns = std::strtoull(std::string(n).c_str(), nullptr, 10);
  Session s = open_session();
  spin(s, ns);
  spin(s, 2 * ns);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  return 0;
}

// N spins of 0 ns ("launches-N") on stream 0, then synchronized: a kernel that costs
// the simulated GPU nothing (with SIMCUDA_LAUNCH_LATENCY_NS=0), for counts at scale.
int scenario_launches(std::string_view n) {
  const long launches = std::strtol(std::string(n).c_str(), nullptr, 10);
  if (launches <= 0) fail("launches-N needs a positive N");
  Session s = open_session();
  for (long i = 0; i < launches; ++i) spin(s, 0);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  std::printf("launched %ld\n", launches);
  return 0;
}

}  // namespace

// flightrecorder: 5 spins, 1.5 s without operations, then 3 spins.
int scenario_flight_window() {
  Session s = open_session();
  for (int i = 0; i < 5; ++i) spin(s, 1'000);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  for (int i = 0; i < 3; ++i) spin(s, 1'000);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  return 0;
}

bool path_exists(const char* path) {
  struct stat st{};
  return ::lstat(path, &st) == 0;
}

// Waits up to 10 s for `path` to go; whether it went.
bool gone_within_10s(const char* path) {
  for (int i = 0; i < 200 && path_exists(path); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return !path_exists(path);
}

// flightrecordertrigger at $FLIGHT_TRIGGER: 4 spins; a symbolic link there for 400 ms;
// the file (dump 1); 2 spins; the file again (dump 2).
int scenario_flight_trigger() {
  const char* trigger = std::getenv("FLIGHT_TRIGGER");
  if (!trigger) fail("FLIGHT_TRIGGER is not set");
  Session s = open_session();
  for (int i = 0; i < 4; ++i) spin(s, 1'000);
  check(g.ctx_synchronize(), "cuCtxSynchronize");
  if (::symlink("elsewhere", trigger) != 0) fail("symlink");
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  std::printf("symbolic link %s\n", path_exists(trigger) ? "left" : "removed");
  ::unlink(trigger);
  // Each later dump right after 2 more kernels: their records may still be on their way
  // (CUPTI's buffers, the collector's round) when the trigger is seen.
  for (int dump = 1; dump <= 4; ++dump) {
    if (dump > 1) {
      for (int i = 0; i < 2; ++i) spin(s, 1'000);
      check(g.ctx_synchronize(), "cuCtxSynchronize");
    }
    FILE* f = std::fopen(trigger, "w");
    if (!f) fail("cannot make the trigger file");
    std::fclose(f);
    std::printf("trigger %d %s\n", dump, gone_within_10s(trigger) ? "taken" : "left");
  }
  return 0;
}

long resident_kib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) fail("/proc/self/status");
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f)) {
    if (std::sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib;
}

// $FLIGHT_LAUNCHES (n) spins of 20 us on one stream, then 4n more: the resident memory
// after each part. The GPU's ends are at least 20 us apart however fast the launches.
int scenario_flight_memory() {
  const char* launches = std::getenv("FLIGHT_LAUNCHES");
  if (!launches) fail("FLIGHT_LAUNCHES is not set");
  const long n = std::atol(launches);
  Session s = open_session();
  for (long part = 1; part <= 2; ++part) {
    for (long i = 0; i < (part == 1 ? n : 4 * n); ++i) spin(s, 20'000);
    check(g.ctx_synchronize(), "cuCtxSynchronize");
    std::printf("resident after part %ld: %ld\n", part, resident_kib());
    std::fflush(stdout);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <reach> <scenario> [--show-origins]\n", argv[0]);
    return 2;
  }
  const std::string_view scenario = argv[2];
  resolve(g, argv[1], argc > 3 && std::string_view(argv[3]) == "--show-origins");
  int rc = 0;
  if (scenario == "basic") rc = scenario_basic();
  else if (scenario == "bracket") rc = scenario_bracket();
  else if (scenario == "legacy-order") rc = scenario_legacy_order();
  else if (scenario == "stop-then-kill") rc = scenario_stop_then_kill();
  else if (scenario.starts_with("end-")) rc = scenario_abrupt_end(scenario.substr(4));
  else if (scenario.starts_with("handler-")) rc = scenario_own_handler(scenario.substr(8));
  else if (scenario == "launch-loop") rc = scenario_launch_loop();
  else if (scenario.starts_with("spins-")) rc = scenario_spins(scenario.substr(6));
  else if (scenario.starts_with("launches-")) rc = scenario_launches(scenario.substr(9));
  else if (scenario == "synced-launches") rc = scenario_synced_launches();
  else if (scenario == "reject") rc = scenario_reject();
  else if (scenario == "capture") rc = scenario_capture();
  else if (scenario == "graph-nodes") rc = scenario_graph_nodes();
  else if (scenario == "cupti-subscriber") rc = scenario_cupti_subscriber();
  else if (scenario == "library") rc = scenario_library();
  else if (scenario == "module-loads") rc = scenario_module_loads();
  else if (scenario == "exit-thread") rc = scenario_exit_thread();
  else if (scenario == "no-cleanup") rc = scenario_no_cleanup();
  else if (scenario == "fork") rc = scenario_fork();
  else if (scenario == "exec-child") rc = scenario_exec_child(argv[0], argv[1]);
  else if (scenario == "overlap") rc = scenario_overlap();
  else if (scenario == "overtake") rc = scenario_overtake();
  else if (scenario == "host-waits") rc = scenario_host_waits();
  else if (scenario == "idle-waits") rc = scenario_idle_waits();
  else if (scenario == "waited-spin") rc = scenario_waited_spin();
  else if (scenario == "destroy") rc = scenario_destroy();
  else if (scenario == "busy-exit") rc = scenario_busy_exit();
  else if (scenario == "outrun") rc = scenario_outrun();
  else if (scenario == "ten-copies") rc = scenario_ten_copies();
  else if (scenario == "launch-then-lookup") rc = scenario_launch_then_lookup();
  else if (scenario == "long-name") rc = scenario_long_name();
  else if (scenario == "flight-window") rc = scenario_flight_window();
  else if (scenario == "flight-trigger") rc = scenario_flight_trigger();
  else if (scenario == "flight-memory") rc = scenario_flight_memory();
  else fail("unknown scenario");
  std::printf("PASS\n");
  return rc;
}
