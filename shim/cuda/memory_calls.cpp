#include "shim/cuda/memory_calls.hpp"

#include <array>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "shim/intercept/driver_calls.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/operation_ids.hpp"
#include "shim/timing/thread_context.hpp"

namespace computeprof::shim {
namespace {

using logfmt::MemoryKind;

constexpr std::size_t kDevices = 64;
constexpr std::size_t kShards = 16;

// Each device's device-resident bytes as the wrappers see them, only to decide when
// cuMemGetInfo is worth a call: when a device's use passes its last sampled high by
// more than 1/64 (a bounded number of samples, one within 1.6 % of the peak). The
// writer's ledger holds the exact picture.
struct DeviceHighs {
  std::array<std::atomic<std::uint64_t>, kDevices> in_use{};
  std::array<std::atomic<std::uint64_t>, kDevices> sampled_high{};
  // Address -> (bytes, device) of live device-resident allocations: frees do not say
  // their size. Sharded by address: threads allocating at once rarely share a lock.
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::uint32_t>> live;
  };
  std::array<Shard, kShards> shards;

  static std::uint64_t key(MemoryKind kind, std::uint64_t address) {
    // Handles (arrays, physical memory) apart from addresses.
    return address ^ (static_cast<std::uint64_t>(kind == MemoryKind::array) << 63) ^
           (static_cast<std::uint64_t>(kind == MemoryKind::physical) << 62);
  }
  Shard& shard(std::uint64_t k) { return shards[(k >> 8 ^ k >> 20) % kShards]; }
};

DeviceHighs& highs() {
  static DeviceHighs* h = new DeviceHighs;  // leaked: used until exit
  return *h;
}

// The new use of the device after an allocation; true when cuMemGetInfo should be read.
bool raise_use(std::uint32_t device, MemoryKind kind, std::uint64_t address, std::uint64_t bytes) {
  if (device >= kDevices || !logfmt::counts_toward_device(kind)) return false;
  DeviceHighs& h = highs();
  const std::uint64_t k = DeviceHighs::key(kind, address);
  {
    auto& shard = h.shard(k);
    std::lock_guard lock(shard.mutex);
    shard.live[k] = {bytes, device};
  }
  const std::uint64_t now = h.in_use[device].fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::uint64_t high = h.sampled_high[device].load(std::memory_order_relaxed);
  while (now > high + high / 64) {
    if (h.sampled_high[device].compare_exchange_weak(high, now, std::memory_order_relaxed)) return true;
  }
  return false;
}

void lower_use(MemoryKind space, std::uint64_t address) {
  if (space == MemoryKind::mapping) return;
  DeviceHighs& h = highs();
  const std::uint64_t k = DeviceHighs::key(space, address);
  auto& shard = h.shard(k);
  std::pair<std::uint64_t, std::uint32_t> entry;
  {
    std::lock_guard lock(shard.mutex);
    auto it = shard.live.find(k);
    if (it == shard.live.end()) return;
    entry = it->second;
    shard.live.erase(it);
  }
  h.in_use[entry.second].fetch_sub(entry.first, std::memory_order_relaxed);
}

// The thread's last context, its number in the logs and its device: looked up again
// only when the context changed or a context went (the handle may come back as another).
struct CurrentContext {
  CUcontext context = nullptr;
  std::uint64_t generation = 0;
  const ProfiledContext* profiled = nullptr;
};
thread_local CurrentContext t_current;

// The current context's number and device (0s when there is none); `device` >= 0
// overrides the device.
void describe_context(const DriverCalls& d, logfmt::MemoryEvent& e, int device) {
  CUcontext context = nullptr;
  if (d.ctx_get_current && d.ctx_get_current(&context) == CUDA_SUCCESS && context) {
    const std::uint64_t generation = thread_contexts_generation();
    if (context != t_current.context || generation != t_current.generation) {
      t_current = {context, generation, profiled_context(context)};
    }
    if (const ProfiledContext* p = t_current.profiled) {
      e.context_id = static_cast<std::uint32_t>(p->number);
      if (device < 0) device = p->device;
    }
  }
  e.device = device < 0 ? 0 : static_cast<std::uint32_t>(device);
}

}  // namespace

MemoryCall::MemoryCall(std::string_view api, logfmt::MemoryOperation operation) {
  event_.api = api;
  event_.operation = operation;
  event_.correlation_id = next_operation_id();
  event_.thread_id = this_thread_id();
  event_.start_ns = wall_ns();
  if (operation == logfmt::MemoryOperation::free) event_.sequence = next_memory_sequence();
}

void MemoryCall::stream_ordered(CUstream stream, CUmemoryPool pool) {
  stream_ordered_ = true;
  stream_ = stream;
  pool_ = pool;
}

namespace {

void describe_stream_ordered(const DriverCalls& d, logfmt::MemoryEvent& e, CUstream stream, CUmemoryPool pool) {
  unsigned long long stream_id = 0;
  if (d.stream_get_id && d.stream_get_id(stream, &stream_id) == CUDA_SUCCESS) e.stream_id = stream_id;
  if (!pool && d.device_get_mem_pool) {
    // cuMemAllocAsync: the current pool of the stream's device.
    CUdevice device = static_cast<CUdevice>(e.device);
    if (d.device_get_mem_pool(&pool, device) != CUDA_SUCCESS) pool = nullptr;
  }
  if (!pool || !d.mem_pool_get_attribute) return;
  e.pool = reinterpret_cast<std::uintptr_t>(pool);
  cuuint64_t value = 0;
  if (d.mem_pool_get_attribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &value) == CUDA_SUCCESS) {
    e.pool_reserved = value;
  }
  if (d.mem_pool_get_attribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &value) == CUDA_SUCCESS) e.pool_used = value;
}

}  // namespace

void MemoryCall::allocated(MemoryKind kind, std::uint64_t address, std::uint64_t bytes, int device) {
  event_.wall_ns = wall_ns();
  event_.kind = kind;
  event_.address = address;
  event_.bytes = bytes;
  if (const DriverCalls* d = driver_calls()) {
    describe_context(*d, event_, device);
    if (stream_ordered_) describe_stream_ordered(*d, event_, stream_, pool_);
    std::size_t free_bytes = 0, total = 0;
    if (raise_use(event_.device, kind, address, bytes) && d->mem_get_info &&
        d->mem_get_info(&free_bytes, &total) == CUDA_SUCCESS && total >= free_bytes) {
      event_.device_used = total - free_bytes;
    }
  }
  event_.sequence = next_memory_sequence();
  submit_memory_event(event_);
}

void MemoryCall::freed(MemoryKind space, std::uint64_t address, CUresult result) {
  event_.wall_ns = wall_ns();
  event_.kind = space;
  event_.address = address;
  if (result != CUDA_SUCCESS) {
    submit_memory_event(event_, true);
    return;
  }
  lower_use(space, address);
  if (stream_ordered_) {
    if (const DriverCalls* d = driver_calls()) {
      describe_context(*d, event_, -1);
      describe_stream_ordered(*d, event_, stream_, pool_);
    }
  }
  submit_memory_event(event_);
}

}  // namespace computeprof::shim
