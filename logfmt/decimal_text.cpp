#include "logfmt/decimal_text.hpp"

#include <charconv>

namespace computeprof::logfmt::decimal_detail {
namespace {

// Exactly four digits, leading zeros too: 0 to 9999.
void put_four_digits(char* p, std::uint32_t value) {
  const std::uint32_t high = value / 100;
  std::memcpy(p, &kDigitPairs[2 * high], 2);
  std::memcpy(p + 2, &kDigitPairs[2 * (value - high * 100)], 2);
}

}  // namespace

// The leading digits as a shorter value (put_integer's inline path below 10^8), then
// the last four or eight in pairs: a division by a constant each, in 32 bits below
// 2^32 (one multiplication).
char* put_long_integer(char* p, std::uint64_t value) {
  if (value < 100'000'000) {
    const auto v = static_cast<std::uint32_t>(value);
    const std::uint32_t leading = v / 10'000;
    p = put_integer(p, leading);
    put_four_digits(p, v - leading * 10'000);
    return p + 4;
  }
  const std::uint64_t leading = value / 100'000'000;
  const auto last = static_cast<std::uint32_t>(value - leading * 100'000'000);
  p = put_integer(p, leading);
  const std::uint32_t high = last / 10'000;
  put_four_digits(p, high);
  put_four_digits(p + 4, last - high * 10'000);
  return p + 8;
}

char* put_fixed3_slow(char* p, float value) {
  return std::to_chars(p, p + kMaxFixed3Text, static_cast<double>(value), std::chars_format::fixed, 3).ptr;
}

}  // namespace computeprof::logfmt::decimal_detail
