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
  // Exact: a float's 24 significant bits times 1e6 (2^6 x 15625, 14 bits) fit in a
  // double's 53.
  const double ns = static_cast<double>(ms) * 1e6;
  if (!(std::fabs(ns) < 0x1p62)) return std::isnan(ns) ? 0 : ns < 0 ? std::numeric_limits<std::int64_t>::min()
                                                                      : std::numeric_limits<std::int64_t>::max();
  // Adding the half is exact too, or gives ns itself: below 2^52 the sum's bits, from
  // the half's up, fit in 53; from 2^52 on, ns (38 significant bits) is an even
  // integer, and the tie rounds to it. Truncating then rounds halves away from zero.
  return static_cast<std::int64_t>(ns + std::copysign(0.5, ns));
}

// An event pair's gputime: ms_to_ns, a negative or NaN time read as 0. The double is
// tested against both ends at once, not rounded first and clamped after: half the
// instructions, at every timed operation.
inline std::uint64_t elapsed_ns(float ms) {
  const double ns = static_cast<double>(ms) * 1e6;
  if (!(ns > 0)) return 0;  // NaN too
  if (!(ns < 0x1p62)) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(ns + 0.5));
}

}  // namespace computeprof::shim
