#include "formats/decimal_text.hpp"

#include <charconv>

namespace computeprof::formats::decimal_detail {
namespace {

// Of a value of five digits and more that fits 32 bits: a comparison per digit.
int long_digits(std::uint32_t value) {
  int digits = 5;
  for (std::uint32_t bound = 100000; digits < 10 && value >= bound; bound *= 10) ++digits;
  return digits;
}

// Writes the digits of `value` to the left of `end`, two per division.
template <typename Unsigned>
void put_digits_before(char* end, Unsigned value) {
  for (; value >= 100; value /= 100) {
    end -= 2;
    std::memcpy(end, &kDigitPairs[2 * static_cast<unsigned>(value % 100)], 2);
  }
  if (value >= 10) {
    std::memcpy(end - 2, &kDigitPairs[2 * static_cast<unsigned>(value)], 2);
  } else {
    end[-1] = static_cast<char>('0' + value);
  }
}

}  // namespace

// Into room counted first, from the right, in 32 bits (a division by 100 is then one
// multiplication); a value beyond 32 bits as its leading digits and its last eight.
char* put_long_integer(char* p, std::uint64_t value) {
  if (value > UINT32_MAX) {
    const std::uint64_t leading = value / 100'000'000;
    p = put_integer(p, leading);
    std::uint32_t last = static_cast<std::uint32_t>(value - leading * 100'000'000);
    for (int at = 6; at >= 0; at -= 2, last /= 100) std::memcpy(p + at, &kDigitPairs[2 * (last % 100)], 2);
    return p + 8;
  }
  char* const end = p + long_digits(static_cast<std::uint32_t>(value));
  put_digits_before(end, static_cast<std::uint32_t>(value));
  return end;
}

char* put_fixed3_slow(char* p, float value) {
  return std::to_chars(p, p + kMaxFixed3Text, static_cast<double>(value), std::chars_format::fixed, 3).ptr;
}

}  // namespace computeprof::formats::decimal_detail
