// Event pairs' float milliseconds to nanoseconds: exactly std::llround's answer, without
// its call.
#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "shim/timing/elapsed_time.hpp"

using computeprof::shim::elapsed_ns;
using computeprof::shim::ms_to_ns;

namespace {
std::int64_t by_llround(float ms) { return std::llround(static_cast<double>(ms) * 1e6); }
}  // namespace

TEST_CASE("ms_to_ns rounds as llround does, halves away from zero") {
  CHECK(ms_to_ns(0.0f) == 0);
  CHECK(ms_to_ns(-0.0f) == 0);
  CHECK(ms_to_ns(0.007424f) == 7424);
  CHECK(ms_to_ns(1.5e-6f) == 2);     // 1.5 ns (as the float holds it)
  CHECK(ms_to_ns(2.5e-6f) == by_llround(2.5e-6f));
  CHECK(ms_to_ns(-0.000'5f) == -500);
  CHECK(ms_to_ns(3600'000.0f) == 3'600'000'000'000);
}

TEST_CASE("ms_to_ns equals llround on every 97th float from 1e-9 ms to 1e9 ms, both signs") {
  std::uint32_t bits = 0;
  const float low = 1e-9f;
  std::memcpy(&bits, &low, sizeof bits);
  int compared = 0;
  for (;; bits += 97) {
    float ms;
    std::memcpy(&ms, &bits, sizeof ms);
    if (ms > 1e9f) break;
    REQUIRE(ms_to_ns(ms) == by_llround(ms));
    REQUIRE(ms_to_ns(-ms) == by_llround(-ms));
    ++compared;
  }
  CHECK(compared > 5'000'000);
}

TEST_CASE("ms_to_ns saturates beyond int64 nanoseconds and reads NaN as 0") {
  CHECK(ms_to_ns(1e20f) == std::numeric_limits<std::int64_t>::max());
  CHECK(ms_to_ns(-1e20f) == std::numeric_limits<std::int64_t>::min());
  CHECK(ms_to_ns(std::numeric_limits<float>::infinity()) == std::numeric_limits<std::int64_t>::max());
  CHECK(ms_to_ns(std::numeric_limits<float>::quiet_NaN()) == 0);
}

TEST_CASE("ms_to_ns equals llround on every 97th float from 1e9 ms up to where it saturates, both signs") {
  // Nanoseconds from 2^50 to 2^62: where a double's half-nanosecond steps run out.
  std::uint32_t bits = 0;
  const float low = 1e9f;
  std::memcpy(&bits, &low, sizeof bits);
  int compared = 0;
  for (;; bits += 97) {
    float ms;
    std::memcpy(&ms, &bits, sizeof ms);
    if (!(static_cast<double>(ms) * 1e6 < 0x1p62)) break;
    REQUIRE(ms_to_ns(ms) == by_llround(ms));
    REQUIRE(ms_to_ns(-ms) == by_llround(-ms));
    ++compared;
  }
  CHECK(compared > 10'000);
}

TEST_CASE("elapsed_ns is ms_to_ns with a negative or NaN time read as 0") {
  auto clamped = [](float ms) { return static_cast<std::uint64_t>(std::max<std::int64_t>(ms_to_ns(ms), 0)); };
  for (float ms : {0.0f, -0.0f, 0.007424f, 1.5e-6f, 2.5e-6f, 4.9e-7f, 5e-7f, -0.000'5f, 3600'000.0f, 1e20f, -1e20f,
                   std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                   std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min()}) {
    CHECK(elapsed_ns(ms) == clamped(ms));
  }
  int compared = 0;
  for (std::uint64_t b = 0; b <= 0xffffffffu; b += 4099) {
    const auto bits = static_cast<std::uint32_t>(b);
    float ms;
    std::memcpy(&ms, &bits, sizeof ms);
    REQUIRE(elapsed_ns(ms) == clamped(ms));
    ++compared;
  }
  CHECK(compared > 1'000'000);
}
