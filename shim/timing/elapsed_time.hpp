#pragma once
// The driver gives the time between two events as float milliseconds; records keep
// nanoseconds.
#include <cmath>
#include <cstdint>
#include <limits>

namespace computeprof::shim {

// Rounded to the nearest nanosecond, halves away from zero (as std::llround), without
// llround's call: it is made once or twice per operation. Saturates where a float holds
// more than int64 nanoseconds (no event pair is that far apart).
inline std::int64_t ms_to_ns(float ms) {
  const double ns = static_cast<double>(ms) * 1e6;
  const double magnitude = std::fabs(ns);
  if (!(magnitude < 0x1p62)) return std::isnan(ns) ? 0 : ns < 0 ? std::numeric_limits<std::int64_t>::min()
                                                                : std::numeric_limits<std::int64_t>::max();
  auto whole = static_cast<std::int64_t>(magnitude);
  // Exact: magnitude and whole differ by less than 1 and are below 2^62.
  if (magnitude - static_cast<double>(whole) >= 0.5) ++whole;
  return ns < 0 ? -whole : whole;
}

}  // namespace computeprof::shim
