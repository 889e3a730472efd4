// The floor of timing launches with CUPTI, as the shim does it: the least a preloaded
// CUPTI client can do. At load it subscribes a callback for the launch calls (which
// notes each call's correlation id in a thread-local, as the shim must to tie records
// to calls), turns on the shim's activity kinds and hands CUPTI buffers, whose records
// it walks; it writes nothing and matches nothing. What the shim costs over this is
// its own. With MINIMAL_CUPTI_FLUSH_MS=N (the bench's minimal-cupti-flushing) a thread
// also asks CUPTI for its complete buffers every N ms, as the shim's collector does
// while anything is awaited: what that flush alone costs the launching thread.
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <cupti.h>

namespace {

struct Cupti {
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
};

Cupti g_cupti;
constexpr std::size_t kBufferBytes = 2 << 20;  // the shim's size
constexpr std::size_t kAlignment = 8;
std::mutex g_spare_mutex;  // CUPTI requests and completes buffers on threads of its own
std::vector<std::uint8_t*> g_spare;
thread_local std::uint32_t t_correlation = 0;

void CUPTIAPI note_correlation(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  t_correlation = static_cast<const CUpti_CallbackData*>(data)->correlationId;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  {
    const std::lock_guard lock(g_spare_mutex);
    if (!g_spare.empty()) {
      *buffer = g_spare.back();
      g_spare.pop_back();
    } else {
      *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kAlignment, kBufferBytes));
    }
  }
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  if (!buffer) return;
  CUpti_Activity* record = nullptr;
  while (g_cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
  }
  const std::lock_guard lock(g_spare_mutex);
  g_spare.push_back(buffer);
}

template <typename F>
bool find(void* library, F& function, const char* name) {
  function = reinterpret_cast<F>(dlsym(library, name));
  return function != nullptr;
}

// Where the shim would find CUPTI: the bench's COMPUTEPROF_CUPTI_LIBRARY (the simulated
// one), else the installed one, else the toolkit's.
void* open_cupti() {
  if (const char* path = std::getenv("COMPUTEPROF_CUPTI_LIBRARY")) return dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (void* library = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL)) return library;
  return dlopen(TOOLKIT_CUPTI_PATH, RTLD_NOW | RTLD_LOCAL);
}

__attribute__((constructor)) void start_tracing() {
  // Only in a CUDA program (the bench's child links libcuda): the preload also reaches
  // valgrind's launcher, which is left alone.
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) return;
  void* library = open_cupti();
  Cupti& c = g_cupti;
  if (!library || !find(library, c.subscribe, "cuptiSubscribe") ||
      !find(library, c.enable_callback, "cuptiEnableCallback") ||
      !find(library, c.register_callbacks, "cuptiActivityRegisterCallbacks") ||
      !find(library, c.enable, "cuptiActivityEnable") || !find(library, c.next_record, "cuptiActivityGetNextRecord") ||
      !find(library, c.flush_all, "cuptiActivityFlushAll")) {
    std::abort();  // a floor that measured nothing would mislead: the bench reports the failure
  }
  CUpti_SubscriberHandle subscriber = nullptr;
  bool ok = c.subscribe(&subscriber, note_correlation, nullptr) == CUPTI_SUCCESS &&
            c.register_callbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS;
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET}) {
    ok = ok && c.enable(kind) == CUPTI_SUCCESS;
  }
  for (CUpti_CallbackId cbid : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz}) {
    ok = ok && c.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid) == CUPTI_SUCCESS;
  }
  if (!ok) std::abort();
  if (const char* ms = std::getenv("MINIMAL_CUPTI_FLUSH_MS")) {
    const auto interval = std::chrono::milliseconds(std::atoi(ms));
    std::thread([interval] {
      for (;;) {
        std::this_thread::sleep_for(interval);
        g_cupti.flush_all(0);
      }
    }).detach();
  }
}

// Every record delivered, as a profiler must before the process ends.
__attribute__((destructor)) void stop_tracing() {
  if (g_cupti.flush_all) g_cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

}  // namespace
