// The simulated CUPTI's activity and callback API (test equipment, like the simulated
// driver it watches through ../sim_activity.hpp). It follows cupti_activity.h and
// cupti_callbacks.h for what it implements, and what CUPTI 13 did on an H200
// (docs/validation/2026-11-26-h200.md) where the headers leave room:
// - kinds CONCURRENT_KERNEL (CUpti_ActivityKernel10), MEMCPY (CUpti_ActivityMemcpy6)
//   and MEMSET (CUpti_ActivityMemset4);
// - each call that submits work gets a correlation id; its work's records carry it (a
//   graph launch's: one record per kernel, copy and memset node, with graph ids);
// - the subscriber's callback for the driver API functions cuptiEnableCallback turned
//   on, on the calling thread, with the call's correlation id:
//   API_ENTER then API_EXIT, both as the call submits its work (calls that submit none
//   make no callback here);
// - timestamps are CLOCK_REALTIME ns: the simulated device's start and end of the work;
// - records go into buffers the client lends; a full buffer is handed back from a
//   thread of its own, cuptiActivityFlushAll hands back the rest on the caller's.
// What it does not do: external correlation and API records (on the H200, CUPTI wrote
// no external correlation record for driver calls made inside a CUDA runtime call, nor
// any API record without the DRIVER kind: the shim does not use them); records are
// written once their work is complete (CUPTI can hold incomplete ones), so a default
// flush delivers what a forced one would; device, queued/submitted times and the many
// other fields the simulation cannot know are 0.
// SIMCUPTI_DROP_KERNELS=1 makes it drop kernel records, as CUPTI does when it runs out
// of buffer space.
#include <cupti.h>
#include <dlfcn.h>
#include <time.h>

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "../sim_activity.hpp"

namespace {

std::uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

constexpr std::size_t align8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

std::size_t record_size(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    default: return 0;
  }
}

struct Buffer {
  std::uint8_t* data = nullptr;
  std::size_t size = 0;
  std::size_t used = 0;
};

struct State {
  std::mutex mutex;
  bool subscribed = false;
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  std::set<CUpti_ActivityKind> enabled;
  CUpti_CallbackFunc callback = nullptr;
  void* callback_data = nullptr;
  std::set<CUpti_CallbackId> driver_callbacks;
  Buffer work;  // kernel, copy and memset records
  std::deque<Buffer> full;
  std::condition_variable full_ready;
  bool delivery_started = false;
  // A full buffer being handed back by the delivery thread: a flush waits for it, as
  // cuptiActivityFlushAll returns only once what it flushes has been delivered.
  bool delivering = false;
  std::condition_variable delivered;
  std::uint32_t last_correlation = 0;
  // The simulated device's clock is CLOCK_MONOTONIC; CUPTI's is CLOCK_REALTIME.
  std::int64_t realtime_offset = static_cast<std::int64_t>(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC));
  const bool drop_kernels = [] {
    const char* v = std::getenv("SIMCUPTI_DROP_KERNELS");
    return v && std::strcmp(v, "1") == 0;
  }();
};

// Leaked on purpose: the driver's workers may report work during exit.
State& state() {
  static State* s = new State;
  return *s;
}

void deliver(const Buffer& b) {
  if (State& s = state(); s.complete) s.complete(nullptr, 0, b.data, b.size, b.used);
}

void delivery_thread() {
  State& s = state();
  for (;;) {
    Buffer b;
    {
      std::unique_lock lock(s.mutex);
      s.full_ready.wait(lock, [&] { return !s.full.empty(); });
      b = s.full.front();
      s.full.pop_front();
      s.delivering = true;
    }
    deliver(b);
    {
      std::lock_guard lock(s.mutex);
      s.delivering = false;
    }
    s.delivered.notify_all();
  }
}

// Under the mutex. A record that does not fit a fresh buffer is dropped, as CUPTI does.
template <typename R>
void append(State& s, Buffer& b, const R& record) {
  const std::size_t size = align8(sizeof(R));
  if (b.data && b.used + size > b.size) {
    s.full.push_back(b);
    s.full_ready.notify_one();
    b = {};
  }
  if (!b.data) {
    if (!s.request) return;
    std::size_t max_records = 0;
    s.request(&b.data, &b.size, &max_records);
    if (!b.data || b.size < size) {
      b = {};
      return;
    }
  }
  std::memcpy(b.data + b.used, &record, sizeof record);
  b.used += size;
}

bool on(const State& s, CUpti_ActivityKind kind) { return s.enabled.count(kind) != 0; }

// The subscriber's callback of the call, outside the mutex (it may call back into CUPTI).
void call_back(CUpti_CallbackFunc callback, void* user_data, CUpti_CallbackId cbid, std::uint32_t correlation) {
  CUpti_CallbackData data{};
  data.correlationId = correlation;
  for (CUpti_ApiCallbackSite site : {CUPTI_API_ENTER, CUPTI_API_EXIT}) {
    data.callbackSite = site;
    callback(user_data, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &data);
  }
}

std::uint32_t call_made(int cbid) {
  State& s = state();
  const auto id = static_cast<CUpti_CallbackId>(cbid);
  CUpti_CallbackFunc callback = nullptr;
  void* callback_data = nullptr;
  std::uint32_t correlation = 0;
  {
    std::lock_guard lock(s.mutex);
    correlation = ++s.last_correlation;
    if (s.callback && s.driver_callbacks.count(id)) {
      callback = s.callback;
      callback_data = s.callback_data;
    }
  }
  if (callback) call_back(callback, callback_data, id, correlation);
  return correlation;
}

bool is_host(sim::WorkMemory m) { return m == sim::WorkMemory::pageable || m == sim::WorkMemory::pinned; }

std::uint8_t copy_kind(sim::WorkMemory src, sim::WorkMemory dst) {
  using M = sim::WorkMemory;
  if (is_host(src)) {
    return is_host(dst) ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOH
                        : dst == M::array ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOA : CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  }
  if (src == M::array) {
    return is_host(dst) ? CUPTI_ACTIVITY_MEMCPY_KIND_ATOH
                        : dst == M::array ? CUPTI_ACTIVITY_MEMCPY_KIND_ATOA : CUPTI_ACTIVITY_MEMCPY_KIND_ATOD;
  }
  return is_host(dst) ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOH
                      : dst == M::array ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOA : CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
}

template <typename R>
void fill_common(R& r, const State& s, const sim::WorkRecord& w) {
  r.start = static_cast<std::uint64_t>(static_cast<std::int64_t>(w.start_ns) + s.realtime_offset);
  r.end = static_cast<std::uint64_t>(static_cast<std::int64_t>(w.end_ns) + s.realtime_offset);
  r.contextId = w.context_id;
  r.streamId = w.stream_id;
  r.correlationId = w.correlation;
  r.graphId = w.graph_id;
  r.graphNodeId = w.graph_node_id;
}

void work_done(const sim::WorkRecord& w) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  switch (w.kind) {
    case sim::WorkKind::kernel: {
      if (!on(s, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) || s.drop_kernels) return;
      CUpti_ActivityKernel10 k{};
      k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
      fill_common(k, s, w);
      k.name = w.name;
      k.gridX = static_cast<std::int32_t>(w.grid[0]);
      k.gridY = static_cast<std::int32_t>(w.grid[1]);
      k.gridZ = static_cast<std::int32_t>(w.grid[2]);
      k.blockX = static_cast<std::int32_t>(w.block[0]);
      k.blockY = static_cast<std::int32_t>(w.block[1]);
      k.blockZ = static_cast<std::int32_t>(w.block[2]);
      k.staticSharedMemory = static_cast<std::int32_t>(w.static_smem);
      k.dynamicSharedMemory = static_cast<std::int32_t>(w.dynamic_smem);
      k.registersPerThread = static_cast<std::uint16_t>(w.registers);
      append(s, s.work, k);
      return;
    }
    case sim::WorkKind::memcpy: {
      if (!on(s, CUPTI_ACTIVITY_KIND_MEMCPY)) return;
      CUpti_ActivityMemcpy6 c{};
      c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
      fill_common(c, s, w);
      c.copyKind = copy_kind(w.source, w.destination);
      c.srcKind = static_cast<std::uint8_t>(w.source);
      c.dstKind = static_cast<std::uint8_t>(w.destination);
      c.bytes = w.bytes;
      append(s, s.work, c);
      return;
    }
    case sim::WorkKind::memset: {
      if (!on(s, CUPTI_ACTIVITY_KIND_MEMSET)) return;
      CUpti_ActivityMemset4 m{};
      m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
      fill_common(m, s, w);
      m.bytes = w.bytes;
      m.value = w.value;
      m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
      append(s, s.work, m);
      return;
    }
    case sim::WorkKind::graph: return;  // its nodes report themselves
  }
}

const sim::ActivityHooks kHooks{call_made, work_done};

// The simulated driver must be in the process: this CUPTI watches nothing else.
bool watch_simulated_driver() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!driver) return false;
  auto* install = reinterpret_cast<decltype(&simcuda_set_activity_hooks)>(dlsym(driver, "simcuda_set_activity_hooks"));
  dlclose(driver);
  if (!install) return false;
  install(&kHooks);
  return true;
}

}  // namespace

extern "C" {

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  if (!str) return CUPTI_ERROR_INVALID_PARAMETER;
  switch (result) {
    case CUPTI_SUCCESS: *str = "CUPTI_SUCCESS"; break;
    case CUPTI_ERROR_INVALID_PARAMETER: *str = "CUPTI_ERROR_INVALID_PARAMETER"; break;
    case CUPTI_ERROR_INVALID_KIND: *str = "CUPTI_ERROR_INVALID_KIND"; break;
    case CUPTI_ERROR_NOT_INITIALIZED: *str = "CUPTI_ERROR_NOT_INITIALIZED"; break;
    case CUPTI_ERROR_MAX_LIMIT_REACHED: *str = "CUPTI_ERROR_MAX_LIMIT_REACHED"; break;
    case CUPTI_ERROR_QUEUE_EMPTY: *str = "CUPTI_ERROR_QUEUE_EMPTY"; break;
    case CUPTI_ERROR_NOT_SUPPORTED: *str = "CUPTI_ERROR_NOT_SUPPORTED"; break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: *str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"; break;
    default: return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* user_data) {
  if (!subscriber) return CUPTI_ERROR_INVALID_PARAMETER;
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.subscribed) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  s.subscribed = true;
  s.callback = callback;
  s.callback_data = user_data;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&s);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  State& s = state();
  if (subscriber != reinterpret_cast<CUpti_SubscriberHandle>(&s)) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard lock(s.mutex);
  s.subscribed = false;
  s.callback = nullptr;
  s.driver_callbacks.clear();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                                         CUpti_CallbackId cbid) {
  State& s = state();
  if (subscriber != reinterpret_cast<CUpti_SubscriberHandle>(&s)) return CUPTI_ERROR_INVALID_PARAMETER;
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return CUPTI_ERROR_NOT_SUPPORTED;
  std::lock_guard lock(s.mutex);
  if (enable) {
    s.driver_callbacks.insert(cbid);
  } else {
    s.driver_callbacks.erase(cbid);
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                    CUpti_BuffersCallbackCompleteFunc complete) {
  if (!request || !complete) return CUPTI_ERROR_INVALID_PARAMETER;
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.request = request;
  s.complete = complete;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  if (record_size(kind) == 0) return CUPTI_ERROR_NOT_SUPPORTED;
  if (!watch_simulated_driver()) return CUPTI_ERROR_NOT_INITIALIZED;
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.enabled.insert(kind);
  if (!s.delivery_started) {
    s.delivery_started = true;
    std::thread(delivery_thread).detach();
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  if (record_size(kind) == 0) return CUPTI_ERROR_NOT_SUPPORTED;
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.enabled.erase(kind);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  if (!buffer || !record) return CUPTI_ERROR_INVALID_PARAMETER;
  std::uint8_t* next = buffer;
  if (*record) {
    const std::size_t size = record_size((*record)->kind);
    if (size == 0) return CUPTI_ERROR_INVALID_KIND;
    next = reinterpret_cast<std::uint8_t*>(*record) + align8(size);
  }
  if (next >= buffer + valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  auto* candidate = reinterpret_cast<CUpti_Activity*>(next);
  const std::size_t size = record_size(candidate->kind);
  if (size == 0 || next + size > buffer + valid_size) return CUPTI_ERROR_INVALID_KIND;
  *record = candidate;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t) {
  std::vector<Buffer> ready;
  {
    State& s = state();
    std::unique_lock lock(s.mutex);
    s.delivered.wait(lock, [&] { return !s.delivering; });
    ready.assign(s.full.begin(), s.full.end());
    s.full.clear();
    if (s.work.used > 0) ready.push_back(std::exchange(s.work, {}));
  }
  for (const Buffer& b : ready) deliver(b);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  if (!timestamp) return CUPTI_ERROR_INVALID_PARAMETER;
  *timestamp = clock_ns(CLOCK_REALTIME);
  return CUPTI_SUCCESS;
}

}  // extern "C"
