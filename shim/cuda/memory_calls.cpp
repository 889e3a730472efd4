#include "shim/cuda/memory_calls.hpp"

#include <array>
#include <atomic>

#include "shim/cuda/current_context.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/call_stacks.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/operation_ids.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {
namespace {

using records::MemoryKind;

constexpr std::size_t kDevices = 64;

// When cuMemGetInfo is worth a call: after an allocation that makes the device's
// device-resident bytes allocated since the last reading add up to 1/64 of the memory
// used at that reading (the first allocation of a device reads it too). So readings
// are few whatever the program does (one per 1/64 of the device's use allocated), and
// one is near every peak reached by allocating more than that; two atomics per
// allocation, nothing per free. The writer's ledger holds the exact picture.
struct DriverReadings {
  std::array<std::atomic<std::uint64_t>, kDevices> allocated_since{};
  std::array<std::atomic<std::uint64_t>, kDevices> threshold{};
};

DriverReadings& readings() {
  static DriverReadings* r = new DriverReadings;  // leaked: used until exit
  return *r;
}

bool reading_due(std::uint32_t device, MemoryKind kind, std::uint64_t bytes) {
  if (device >= kDevices || !records::counts_toward_device(kind)) return false;
  DriverReadings& r = readings();
  const std::uint64_t since = r.allocated_since[device].fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (since < r.threshold[device].load(std::memory_order_relaxed)) return false;
  r.allocated_since[device].store(0, std::memory_order_relaxed);
  return true;
}

void read_driver(std::uint32_t device, std::uint64_t used) {
  if (device < kDevices) readings().threshold[device].store(used / 64, std::memory_order_relaxed);
}

// The current context's number and device (0s when there is none); `device` >= 0
// overrides the device.
void describe_context(const DriverCalls& d, records::MemoryEvent& e, int device) {
  if (const ProfiledContext* p = current_profiled_context(d)) {
    e.context_id = static_cast<std::uint32_t>(p->number);
    if (device < 0) device = p->device;
  }
  e.device = device < 0 ? 0 : static_cast<std::uint32_t>(device);
}

}  // namespace

MemoryCall::MemoryCall(std::string_view api, records::MemoryOperation operation) {
  event_.api = api;
  event_.operation = operation;
  event_.correlation_id = next_operation_id();
  event_.thread_id = this_thread_id();
  event_.stack_id = capture_call_stack(process_profile().cuda.operations.callstack_depth);
  event_.start_ns = wall_ns();
  if (operation == records::MemoryOperation::free) event_.sequence = next_memory_sequence();
}

void MemoryCall::stream_ordered(CUstream stream, CUmemoryPool pool) {
  stream_ordered_ = true;
  stream_ = stream;
  pool_ = pool;
}

namespace {

void describe_stream_ordered(const DriverCalls& d, records::MemoryEvent& e, CUstream stream, CUmemoryPool pool) {
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
    if (reading_due(event_.device, kind, bytes) && d->mem_get_info &&
        d->mem_get_info(&free_bytes, &total) == CUDA_SUCCESS && total >= free_bytes) {
      event_.device_used = total - free_bytes;
      read_driver(event_.device, event_.device_used);
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
  if (stream_ordered_) {
    if (const DriverCalls* d = driver_calls()) {
      describe_context(*d, event_, -1);
      describe_stream_ordered(*d, event_, stream_, pool_);
    }
  }
  submit_memory_event(event_);
}

}  // namespace computeprof::shim
