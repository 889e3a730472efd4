#pragma once
// Every context the process has recorded in, CUDA and OpenCL alike, numbered from 1 in
// the order they were first seen (docs/format.md, "Header"). What records know of
// their context: its number, device and origin of time. ProfiledContexts live as long
// as the process: records still on their way may point at one after its context is gone.
#include <cstdint>
#include <functional>
#include <string>

#include "config/environment.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {

struct ContextOrigin {
  std::uint64_t monotonic_ns = 0;  // `timestamp` counts from here
  std::uint64_t wall_ns = 0;       // the same instant on the wall clock: TIMESTAMPFACTOR

  // The monotonic time of a wall-clock instant (GPU times are on the wall clock; the
  // record pipeline orders by the monotonic one).
  std::uint64_t monotonic_at(std::uint64_t wall) const {
    return wall >= wall_ns ? monotonic_ns + (wall - wall_ns) : monotonic_ns;
  }
};

// What the driver says of a CUDA context's device (nvprof's DEVICE rows); zero where it
// did not say, and for OpenCL contexts.
struct DeviceProperties {
  std::int64_t global_memory_bytes = 0;
  std::int64_t constant_memory_bytes = 0;
  std::int64_t l2_cache_bytes = 0;
  std::int64_t warp_size = 0;
  std::int64_t clock_khz = 0;
  std::int64_t memory_clock_khz = 0;
  std::int64_t memory_bus_bits = 0;
  std::int64_t copy_engines = 0;
  std::int64_t multiprocessors = 0;
  std::int64_t max_threads_per_multiprocessor = 0;
  std::int64_t max_blocks_per_multiprocessor = 0;
  std::int64_t max_shared_per_multiprocessor = 0;
  std::int64_t max_registers_per_multiprocessor = 0;
  std::int64_t max_registers_per_block = 0;
  std::int64_t max_shared_per_block = 0;
  std::int64_t max_threads_per_block = 0;
  std::int64_t max_block[3] = {};
  std::int64_t max_grid[3] = {};
  std::int64_t compute_major = 0;
  std::int64_t compute_minor = 0;
  std::int64_t ecc_enabled = 0;
  unsigned char uuid[16] = {};
};

struct ProfiledContext {
  int number = 0;  // from 1, in the order contexts were first seen; reset in a forked child
  int device = 0;
  std::string device_name;
  config::Api api = config::Api::cuda;
  ContextOrigin origin;
  const ApiProfile* profile = nullptr;  // the settings of its kind of context
  DeviceProperties device_properties;
};

struct ContextKey {
  config::Api api;
  std::uint64_t id;  // the driver's unique id of the context (CUDA), its handle (OpenCL)
  friend auto operator<=>(const ContextKey&, const ContextKey&) = default;
};

struct ContextDescription {
  int device = 0;
  std::string device_name;
  DeviceProperties device_properties;
};

// The context of `key`, created from `describe()` the first time it is asked for.
// `describe` runs without the registry's lock held (it may call the driver).
const ProfiledContext* find_or_create_context(const ContextKey& key,
                                              const std::function<ContextDescription()>& describe);

// The origin of the first context the process recorded in (of this process: a forked
// child's first own); no operation of the process started before it. Zero before the
// first context.
ContextOrigin first_context_origin();

// The context of `key` if it is known; forgets it, so that a context reusing the id
// (never for CUDA ids, possible for OpenCL handles) is a new one.
const ProfiledContext* take_context(const ContextKey& key);

}  // namespace computeprof::shim
