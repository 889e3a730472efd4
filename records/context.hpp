#pragma once
// What a record knows of its context: its number, device, kind and origin of time, and
// its device's properties. The shim's table of contexts fills it; the outputs read it.
#include <cstdint>
#include <string>

#include "config/environment.hpp"

namespace computeprof::records {

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

struct ContextInfo {
  int number = 0;  // from 1, in the order contexts were first seen; reset in a forked child
  int device = 0;
  std::string device_name;
  config::Api api = config::Api::cuda;
  ContextOrigin origin;
  DeviceProperties device_properties;
};

}  // namespace computeprof::records
