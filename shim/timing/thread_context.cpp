#include "shim/timing/thread_context.hpp"

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstring>

#include "config/report.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/process/context_registry.hpp"
#include "shim/process/lifecycle.hpp"

namespace computeprof::shim {
namespace {

// Bumped whenever a context may have gone: a thread's cached events may be dead.
std::atomic<std::uint64_t> g_generation{1};

constexpr std::size_t kThreadContexts = 8;
thread_local std::array<ThreadContext, kThreadContexts> t_contexts;
thread_local std::size_t t_next_victim = 0;

// Runs `fn` with `context` current on this thread.
template <typename Fn>
bool with_context(const DriverCalls& d, CUcontext context, Fn&& fn) {
  CUcontext current = nullptr;
  d.ctx_get_current(&current);
  if (current == context) return fn();
  if (!d.ctx_push || !d.ctx_pop || d.ctx_push(context) != CUDA_SUCCESS) return false;
  const bool ok = fn();
  CUcontext popped = nullptr;
  d.ctx_pop(&popped);
  return ok;
}

DeviceProperties device_properties(const DriverCalls& d, CUdevice device) {
  DeviceProperties p;
  const auto attribute = [&](CUdevice_attribute a) -> std::int64_t {
    int value = 0;
    return d.device_get_attribute && d.device_get_attribute(&value, a, device) == CUDA_SUCCESS ? value : 0;
  };
  std::size_t bytes = 0;
  if (d.device_total_mem && d.device_total_mem(&bytes, device) == CUDA_SUCCESS) {
    p.global_memory_bytes = static_cast<std::int64_t>(bytes);
  }
  p.constant_memory_bytes = attribute(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
  p.l2_cache_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  p.warp_size = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  p.clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  p.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  p.memory_bus_bits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  p.copy_engines = attribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  p.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p.max_threads_per_multiprocessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  p.max_blocks_per_multiprocessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  p.max_shared_per_multiprocessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  p.max_registers_per_multiprocessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  p.max_registers_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  p.max_shared_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  p.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  p.max_block[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  p.max_block[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  p.max_block[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  p.max_grid[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  p.max_grid[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  p.max_grid[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  p.compute_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p.compute_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p.ecc_enabled = attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
  CUuuid uuid{};
  if (d.device_get_uuid && d.device_get_uuid(&uuid, device) == CUDA_SUCCESS) {
    std::memcpy(p.uuid, uuid.bytes, sizeof p.uuid);
  }
  return p;
}

ContextDescription describe(const DriverCalls& d, CUcontext context) {
  ContextDescription desc;
  with_context(d, context, [&] {
    CUdevice device = 0;
    if (d.ctx_get_device(&device) != CUDA_SUCCESS) return false;
    desc.device = device;
    char name[256] = {};
    if (d.device_get_name && d.device_get_name(name, sizeof name - 1, device) == CUDA_SUCCESS) desc.device_name = name;
    desc.device_properties = device_properties(d, device);
    return true;
  });
  return desc;
}

bool fill(ThreadContext& tc, const DriverCalls& d, CUcontext context, std::uint64_t id, std::uint64_t generation) {
  const ProfiledContext* profiled = find_or_create_context({config::Api::cuda, id}, [&] { return describe(d, context); });
  CUevent start = nullptr, end = nullptr;
  if (!create_event_pair(context, start, end)) {
    config::warn_once("cannot create timing events; operations in such contexts are not recorded");
    return false;
  }
  tc = ThreadContext{context, id, generation, profiled, start, end};
  return true;
}

// A forked child that goes on using a context (some drivers allow it) looks it up
// afresh: the parent's view of it, its log included, is not the child's.
void forget_in_forked_children() {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, [] {
    add_lifecycle_handlers(LifecycleStage::contexts, {nullptr, nullptr, nullptr, forget_thread_contexts});
  });
}

}  // namespace

bool create_event_pair(CUcontext context, CUevent& start, CUevent& end) {
  const DriverCalls& d = *driver_calls();
  return with_context(d, context, [&] {
    return d.event_create(&start, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
           d.event_create(&end, CU_EVENT_DEFAULT) == CUDA_SUCCESS;
  });
}

namespace {
// A context this thread has not timed operations in lately, or one whose generation is
// older: out of line, so that the common case does not pay for its frame.
[[gnu::noinline]] ThreadContext* new_thread_context(CUcontext context, std::uint64_t generation) {
  forget_in_forked_children();
  const DriverCalls* d = driver_calls();
  if (!d || !d->can_time() || !context) return nullptr;
  unsigned long long id = 0;
  if (d->ctx_get_id(context, &id) != CUDA_SUCCESS) return nullptr;
  // Same context, older generation (another context went): its events are still good.
  // Its track is looked up again: after a fork it is the parent's.
  for (auto& tc : t_contexts) {
    if (tc.context == context && tc.context_id == id) {
      tc.generation = generation;
      tc.track = nullptr;
      return &tc;
    }
  }
  // Prefer an empty or stale slot; otherwise replace round-robin (the replaced events
  // stay with their context, which frees them when it goes).
  ThreadContext* slot = nullptr;
  for (auto& tc : t_contexts) {
    if (!tc.context || tc.generation != generation) {
      slot = &tc;
      break;
    }
  }
  if (!slot) slot = &t_contexts[t_next_victim++ % kThreadContexts];
  return fill(*slot, *d, context, id, generation) ? slot : nullptr;
}
}  // namespace

ThreadContext* thread_context(CUcontext context) {
  const std::uint64_t generation = g_generation.load(std::memory_order_acquire);
  for (auto& tc : t_contexts) {
    if (context && tc.context == context && tc.generation == generation) return &tc;
  }
  return new_thread_context(context, generation);
}

const ProfiledContext* profiled_context(CUcontext context) {
  forget_in_forked_children();
  const DriverCalls* d = driver_calls();
  unsigned long long id = 0;
  if (!d || !context || !d->ctx_get_id || !d->ctx_get_device || d->ctx_get_id(context, &id) != CUDA_SUCCESS) {
    return nullptr;
  }
  return find_or_create_context({config::Api::cuda, id}, [&] { return describe(*d, context); });
}

void forget_thread_track(const EventTrack* track) {
  for (auto& tc : t_contexts) {
    if (tc.track == track) tc.track = nullptr;
  }
}

void forget_thread_contexts() { g_generation.fetch_add(1, std::memory_order_acq_rel); }

std::uint64_t thread_contexts_generation() { return g_generation.load(std::memory_order_acquire); }

}  // namespace computeprof::shim
