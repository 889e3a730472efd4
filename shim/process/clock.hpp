#pragma once
// The two clocks of a log: monotonic for durations and the `timestamp` column,
// the wall clock for GPU timestamps (docs/format.md, "Values": 16 hex digits of nanoseconds).
#include <time.h>

#include <cstdint>

namespace computeprof::shim {

inline std::uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::uint64_t wall_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace computeprof::shim
