// Numbers as decimal text written in place: exact strings at every digit count's edges,
// and the same text as std::to_chars.
#include "catch.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>

#include "logfmt/decimal_text.hpp"

using namespace computeprof::logfmt;

namespace {
std::string integer(std::uint64_t value) {
  std::array<char, kMaxIntegerText + 8> room;
  room.fill('#');
  char* end = put_integer(room.data(), value);
  CHECK(static_cast<std::size_t>(end - room.data()) <= kMaxIntegerText);
  CHECK(*end == '#');  // nothing written past the end it returns
  return std::string(room.data(), end);
}

std::string micros(std::uint64_t ns) {
  std::array<char, kMaxMicrosText + 8> room;
  room.fill('#');
  char* end = put_micros(room.data(), ns);
  CHECK(static_cast<std::size_t>(end - room.data()) <= kMaxMicrosText);
  CHECK(*end == '#');
  return std::string(room.data(), end);
}

std::string fixed3(float value) {
  std::array<char, kMaxFixed3Text + 8> room;
  room.fill('#');
  char* end = put_fixed3(room.data(), value);
  CHECK(static_cast<std::size_t>(end - room.data()) <= kMaxFixed3Text);
  CHECK(*end == '#');
  return std::string(room.data(), end);
}

std::string to_chars_text(std::uint64_t value) {
  std::array<char, 32> room;
  return std::string(room.data(), std::to_chars(room.data(), room.data() + room.size(), value).ptr);
}

std::string to_chars_text(float value) {
  std::array<char, 64> room;
  return std::string(room.data(), std::to_chars(room.data(), room.data() + room.size(), static_cast<double>(value),
                                                std::chars_format::fixed, 3)
                                      .ptr);
}
}  // namespace

TEST_CASE("integers: every digit count's edges, up to 2^64 - 1", "[decimal]") {
  CHECK(integer(0) == "0");
  CHECK(integer(9) == "9");
  CHECK(integer(10) == "10");
  CHECK(integer(99) == "99");
  CHECK(integer(100) == "100");
  CHECK(integer(999) == "999");
  CHECK(integer(1000) == "1000");
  CHECK(integer(9999) == "9999");
  CHECK(integer(10000) == "10000");
  CHECK(integer(4294967295) == "4294967295");
  CHECK(integer(4294967296) == "4294967296");
  CHECK(integer(1099511627777) == "1099511627777");
  CHECK(integer(~std::uint64_t{0}) == "18446744073709551615");
  // Each power of ten, one less and one more: std::to_chars's text.
  std::uint64_t power = 1;
  for (int digits = 1; digits <= 19; ++digits, power *= 10) {
    for (std::uint64_t v : {power - 1, power, power + 1, power * 5 + 3}) CHECK(integer(v) == to_chars_text(v));
  }
}

TEST_CASE("nanoseconds as microseconds with three decimals, exactly", "[decimal]") {
  CHECK(micros(0) == "0.000");
  CHECK(micros(1) == "0.001");
  CHECK(micros(999) == "0.999");
  CHECK(micros(1000) == "1.000");
  CHECK(micros(1001) == "1.001");
  CHECK(micros(1234567) == "1234.567");
  CHECK(micros(10'000'000) == "10000.000");
  CHECK(micros(1'795'888'268'025'965'926) == "1795888268025965.926");
  CHECK(micros(~std::uint64_t{0}) == "18446744073709551.615");
}

TEST_CASE("three decimals as printf's %.3f: rounded to nearest, ties to even", "[decimal]") {
  CHECK(fixed3(0.0F) == "0.000");
  CHECK(fixed3(0.5F) == "0.500");
  CHECK(fixed3(1.0F) == "1.000");
  CHECK(fixed3(0.0625F) == "0.062");  // a tie, exactly: to even
  CHECK(fixed3(0.9999F) == "1.000");
  CHECK(fixed3(2.5F) == "2.500");
  CHECK(fixed3(-0.25F) == "-0.250");
  CHECK(fixed3(3.0e38F) == to_chars_text(3.0e38F));
  // Every float from 0 up to 1 in steps of 2^-16, and every thousandth: std::to_chars's text.
  for (std::uint32_t i = 0; i <= (1u << 16); ++i) {
    const float v = static_cast<float>(i) / static_cast<float>(1u << 16);
    if (fixed3(v) != to_chars_text(v)) FAIL("differs at " << v);
  }
  for (int i = 0; i <= 1000; ++i) {
    const float v = static_cast<float>(i) / 1000.0F;
    CHECK(fixed3(v) == to_chars_text(v));
  }
}
