// A second CUDA interposer, of the kind GPU-sharing shims (HAMi-core's libvgpu.so) and
// other tools preload beside computeprof: it wraps cuLaunchKernel, the device
// allocation calls and cuGetProcAddress(_v2), finds the next layer with
// dlsym(RTLD_NEXT) (or, where the driver was opened RTLD_LOCAL and nothing comes after,
// on the loaded libcuda's own handle), and counts the calls it sees. Built three times:
// counting_layer; counting_layer_dlsym (COUNTING_LAYER_DLSYM_HOOK) that also exports
// dlsym as HAMi-core does: a lookup on any handle of a name it wraps gets its wrapper,
// RTLD_NEXT is resolved from the layer itself, everything else goes to the next dlsym;
// and counting_layer_wrapping (COUNTING_LAYER_WRAPS_ANSWERS, with the dlsym hook), below.
//
// cuGetProcAddress hands out its wrapper where the next layer's answer is the next
// definition of exactly the variant it wraps (the default-stream cuLaunchKernel, the
// _v2 allocations, either lookup function), so it never replaces a variant it does not
// wrap. COUNTING_LAYER_WRAPS_ANSWERS: as HAMi-core and vGPU meters do, it wraps whatever
// the next layer answers instead: a default-stream cuLaunchKernel or a lookup function
// is kept (the first answer, as such layers keep it) and handed out as a pointer wrapper
// of its own, a function other than its export, which counts and calls what was kept.
// At exit it writes its counts to COUNTING_LAYER_FILE, one "name count" line each.
// COUNTING_LAYER_NEXT and COUNTING_LAYER_LAUNCH (below) make it find its next layer, or
// make its launches, in ways that lead back into a layer before it.
#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {

using Dlsym = void* (*)(void*, const char*);

// glibc's dlsym, or the next one after this layer: either resolves RTLD_NEXT from its
// caller, this library.
Dlsym glibc_dlsym() {
  static const auto fn = reinterpret_cast<Dlsym>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"));
  return fn;
}

// The calls of its exports, and (COUNTING_LAYER_WRAPS_ANSWERS) of its pointer wrappers,
// apart: each path must reach the function the layer handed out on it.
enum Counted { kLaunch, kAlloc, kFree, kProcAddress, kLaunchAnswer, kProcAddressAnswer, kCountedKinds };
constexpr const char* kCountedNames[kCountedKinds] = {"cuLaunchKernel",         "cuMemAlloc_v2",
                                                      "cuMemFree_v2",           "cuGetProcAddress",
                                                      "cuLaunchKernel(answer)", "cuGetProcAddress(answer)"};
std::atomic<long> g_counts[kCountedKinds];

void write_counts() {
  const char* path = std::getenv("COUNTING_LAYER_FILE");
  if (!path) return;
  if (FILE* f = std::fopen(path, "w")) {
    for (int i = 0; i < kCountedKinds; ++i) std::fprintf(f, "%s %ld\n", kCountedNames[i], g_counts[i].load());
    std::fclose(f);
  }
}

__attribute__((constructor)) void register_counts() { std::atexit(write_counts); }

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

// The next definition of `symbol` after this layer. COUNTING_LAYER_NEXT=driver-handle:
// as many simple interposers find it, the process's dlsym on the loaded libcuda's handle
// (computeprof's dlsym, where computeprof comes first).
void* next_function(const char* symbol) {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (env_is("COUNTING_LAYER_NEXT", "driver-handle")) return driver ? dlsym(driver, symbol) : nullptr;
  if (void* fn = glibc_dlsym()(RTLD_NEXT, symbol)) return fn;
  return driver ? glibc_dlsym()(driver, symbol) : nullptr;
}

template <typename Fn>
Fn next(const char* symbol) {
  return reinterpret_cast<Fn>(next_function(symbol));
}

using Result = int;  // CUresult, without cuda.h
using Launch = Result (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                          void**);
using Alloc = Result (*)(unsigned long long*, std::size_t);
using Free = Result (*)(unsigned long long);
using ProcAddress = Result (*)(const char*, void**, int, unsigned long long);
using ProcAddressV2 = Result (*)(const char*, void**, int, unsigned long long, int*);
constexpr Result kNotFound = 500;  // CUDA_ERROR_NOT_FOUND

void* own_function(const char* symbol);

#ifdef COUNTING_LAYER_WRAPS_ANSWERS
// The answers kept, and the pointer wrappers that call them.
std::atomic<Launch> g_answered_launch{nullptr};
std::atomic<ProcAddress> g_answered_proc_address{nullptr};
std::atomic<ProcAddressV2> g_answered_proc_address_v2{nullptr};

template <typename Fn>
void keep_first(std::atomic<Fn>& answer, void* fn) {
  Fn none = nullptr;
  answer.compare_exchange_strong(none, reinterpret_cast<Fn>(fn));
}

Result launch_answer(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                     unsigned smem, void* stream, void** params, void** extra) {
  g_counts[kLaunchAnswer].fetch_add(1);
  return g_answered_launch.load()(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra);
}

void substitute(const char* symbol, void** pfn, int version, unsigned long long flags);

Result proc_address_answer(const char* symbol, void** pfn, int version, unsigned long long flags) {
  g_counts[kProcAddressAnswer].fetch_add(1);
  const Result r = g_answered_proc_address.load()(symbol, pfn, version, flags);
  if (r == 0) substitute(symbol, pfn, version, flags);
  return r;
}

Result proc_address_v2_answer(const char* symbol, void** pfn, int version, unsigned long long flags, int* status) {
  g_counts[kProcAddressAnswer].fetch_add(1);
  const Result r = g_answered_proc_address_v2.load()(symbol, pfn, version, flags, status);
  if (r == 0) substitute(symbol, pfn, version, flags);
  return r;
}

constexpr unsigned long long kPerThreadFlag = 1 << 1;  // CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM

// Whatever the next layer answered for the default-stream launch or a lookup function,
// kept and handed out as a pointer wrapper ("cuGetProcAddress" is answered with the
// _v2 function from CUDA 12.0 on).
void substitute(const char* symbol, void** pfn, int version, unsigned long long flags) {
  if (!symbol || !pfn || !*pfn) return;
  if (std::strcmp(symbol, "cuLaunchKernel") == 0 && !(flags & kPerThreadFlag)) {
    keep_first(g_answered_launch, *pfn);
    *pfn = reinterpret_cast<void*>(&launch_answer);
  } else if (std::strcmp(symbol, "cuGetProcAddress") == 0 && version >= 12000) {
    keep_first(g_answered_proc_address_v2, *pfn);
    *pfn = reinterpret_cast<void*>(&proc_address_v2_answer);
  } else if (std::strcmp(symbol, "cuGetProcAddress") == 0) {
    keep_first(g_answered_proc_address, *pfn);
    *pfn = reinterpret_cast<void*>(&proc_address_answer);
  }
}
#else
// The wrapper for the variant the next layer answered with, if it is one of those wrapped.
void substitute(const char* symbol, void** pfn, int, unsigned long long) {
  if (!symbol || !pfn || !*pfn) return;
  for (const char* wrapped : {"cuLaunchKernel", "cuMemAlloc_v2", "cuMemFree_v2", "cuGetProcAddress",
                              "cuGetProcAddress_v2"}) {
    const std::size_t base = std::strcspn(wrapped, "_");
    if (std::strncmp(symbol, wrapped, base) != 0 || symbol[base] != '\0') continue;
    if (*pfn == next_function(wrapped)) *pfn = own_function(wrapped);
  }
}
#endif

}  // namespace

#define COUNTING_EXPORT extern "C" __attribute__((visibility("default")))

// cuLaunchKernelEx's config, as cuda.h lays it out.
struct LaunchConfig {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
  void* stream;
  void* attributes;
  unsigned attribute_count;
};
using LaunchEx = Result (*)(const LaunchConfig*, void*, void**, void**);

COUNTING_EXPORT Result cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                      unsigned bz, unsigned smem, void* stream, void** params, void** extra) {
  g_counts[kLaunch].fetch_add(1);
  // COUNTING_LAYER_LAUNCH=ex: made as the cuLaunchKernelEx the process resolves (a layer
  // that turns every launch into one kind, as remoting layers do): computeprof's, where
  // it is loaded, which is then entered again inside its own cuLaunchKernel.
  if (env_is("COUNTING_LAYER_LAUNCH", "ex")) {
    static const auto ex = reinterpret_cast<LaunchEx>(dlsym(RTLD_DEFAULT, "cuLaunchKernelEx"));
    const LaunchConfig config{{gx, gy, gz}, {bx, by, bz}, smem, stream, nullptr, 0};
    return ex ? ex(&config, f, params, extra) : kNotFound;
  }
  static const auto fn = next<Launch>("cuLaunchKernel");
  return fn ? fn(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra) : kNotFound;
}

COUNTING_EXPORT Result cuMemAlloc_v2(unsigned long long* dptr, std::size_t bytes) {
  g_counts[kAlloc].fetch_add(1);
  static const auto fn = next<Alloc>("cuMemAlloc_v2");
  return fn ? fn(dptr, bytes) : kNotFound;
}

COUNTING_EXPORT Result cuMemFree_v2(unsigned long long dptr) {
  g_counts[kFree].fetch_add(1);
  static const auto fn = next<Free>("cuMemFree_v2");
  return fn ? fn(dptr) : kNotFound;
}

COUNTING_EXPORT Result cuGetProcAddress(const char* symbol, void** pfn, int version, unsigned long long flags) {
  g_counts[kProcAddress].fetch_add(1);
  static const auto fn = next<ProcAddress>("cuGetProcAddress");
  if (!fn) return kNotFound;
  const Result r = fn(symbol, pfn, version, flags);
  if (r == 0) substitute(symbol, pfn, version, flags);
  return r;
}

COUNTING_EXPORT Result cuGetProcAddress_v2(const char* symbol, void** pfn, int version, unsigned long long flags,
                                           int* status) {
  g_counts[kProcAddress].fetch_add(1);
  static const auto fn = next<ProcAddressV2>("cuGetProcAddress_v2");
  if (!fn) return kNotFound;
  const Result r = fn(symbol, pfn, version, flags, status);
  if (r == 0) substitute(symbol, pfn, version, flags);
  return r;
}

namespace {

void* own_function(const char* symbol) {
  if (!symbol) return nullptr;
  if (std::strcmp(symbol, "cuLaunchKernel") == 0) return reinterpret_cast<void*>(&cuLaunchKernel);
  if (std::strcmp(symbol, "cuMemAlloc_v2") == 0) return reinterpret_cast<void*>(&cuMemAlloc_v2);
  if (std::strcmp(symbol, "cuMemFree_v2") == 0) return reinterpret_cast<void*>(&cuMemFree_v2);
  if (std::strcmp(symbol, "cuGetProcAddress") == 0) return reinterpret_cast<void*>(&cuGetProcAddress);
  if (std::strcmp(symbol, "cuGetProcAddress_v2") == 0) return reinterpret_cast<void*>(&cuGetProcAddress_v2);
  return nullptr;
}

}  // namespace

#ifdef COUNTING_LAYER_DLSYM_HOOK
COUNTING_EXPORT void* dlsym(void* handle, const char* name) {
  if (handle == RTLD_NEXT) {
    // Resolved from this layer, as HAMi-core's does (it checks the answer after the
    // call): never a tail call, which would let glibc see the caller's address.
    void* fn = glibc_dlsym()(RTLD_NEXT, name);
    __asm__ volatile("" : : "r"(fn) : "memory");
    return fn;
  }
  if (handle != RTLD_DEFAULT) {
    if (void* own = own_function(name)) return own;
  }
  // The next dlsym after this layer: computeprof's, where it comes later.
  static const auto next_dlsym = reinterpret_cast<Dlsym>(glibc_dlsym()(RTLD_NEXT, "dlsym"));
  return (next_dlsym ? next_dlsym : glibc_dlsym())(handle, name);
}
#endif
