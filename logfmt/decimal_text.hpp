#pragma once
// Numbers as decimal text, written in place through a raw pointer into room the caller
// made (the classic log's lines, the JSON trace's events): no allocation, no bounds
// check per digit, no floating point for times. The texts are std::to_chars's (and
// printf's): the same characters, in a fraction of the instructions.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace computeprof::logfmt {

// The most each writer below writes.
inline constexpr std::size_t kMaxIntegerText = 20;  // 18446744073709551615
inline constexpr std::size_t kMaxMicrosText = 21;   // 18446744073709551.615
inline constexpr std::size_t kMaxFixed3Text = 48;   // -340282346638528859811704183484516925440.000

namespace decimal_detail {

// "00" to "99", the pair of digits of each value below 100.
inline constexpr auto kDigitPairs = [] {
  std::array<char, 200> table{};
  for (unsigned i = 0; i < 100; ++i) {
    table[2 * i] = static_cast<char>('0' + i / 10);
    table[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return table;
}();

// ".000" to ".999": a time's or an occupancy's decimals in one 4-byte copy, not three
// divisions.
inline constexpr auto kDecimals = [] {
  std::array<std::array<char, 4>, 1000> table{};
  for (unsigned i = 0; i < 1000; ++i) {
    table[i] = {'.', static_cast<char>('0' + i / 100), static_cast<char>('0' + i / 10 % 10),
                static_cast<char>('0' + i % 10)};
  }
  return table;
}();

// 0 to 99.
inline char* put_below_100(char* p, unsigned value) {
  if (value < 10) {
    *p = static_cast<char>('0' + value);
    return p + 1;
  }
  std::memcpy(p, &kDigitPairs[2 * value], 2);
  return p + 2;
}

// Five digits and more (a copy's bytes, a long time, a correlation id). Out of line:
// put_integer's rare case.
char* put_long_integer(char* p, std::uint64_t value);

// Values put_fixed3 does not scale in integers (not 0 <= value < 1).
char* put_fixed3_slow(char* p, float value);

}  // namespace decimal_detail

// `value` in decimal, as std::to_chars writes it. Up to four digits (nearly every value:
// times in microseconds, a launch's sizes, stream and context ids) straight from the
// left. Inline: its call and frame cost about 8 instructions a value.
inline char* put_integer(char* p, std::uint64_t value) {
  using namespace decimal_detail;
  if (value < 100) return put_below_100(p, static_cast<unsigned>(value));
  if (value >= 10000) [[unlikely]] return put_long_integer(p, value);
  const auto v = static_cast<unsigned>(value);
  const unsigned hundreds = v / 100;
  p = put_below_100(p, hundreds);
  std::memcpy(p, &kDigitPairs[2 * (v - hundreds * 100)], 2);
  return p + 2;
}

// Nanoseconds as microseconds with three decimals, exactly: ns / 1000, '.', the three
// digits of ns % 1000.
inline char* put_micros(char* p, std::uint64_t ns) {
  p = put_integer(p, ns / 1000);
  std::memcpy(p, decimal_detail::kDecimals[ns % 1000].data(), 4);
  return p + 4;
}

// Three decimals, rounded as printf's %.3f rounds: to nearest, ties to even, from the
// float's exact binary value. Occupancies (0..1) are scaled in integers, exactly; other
// values go through std::to_chars (the same digits, slower). Inline: nearly every
// kernel's record has an occupancy.
inline char* put_fixed3(char* p, float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const int exponent = static_cast<int>(bits >> 23 & 0xff);
  if (bits >> 31 != 0 || exponent >= 127) return decimal_detail::put_fixed3_slow(p, value);  // not 0 <= value < 1
  std::uint64_t thousandths = 0;  // below 2^-40, value * 1000 < 2^-30 rounds to 0
  if (exponent > 86) {
    // value = mantissa * 2^-shift exactly, so value * 1000 = scaled * 2^-shift.
    const std::uint64_t scaled = ((bits & 0x7fffff) | 0x800000) * std::uint64_t{1000};  // < 2^34
    const int shift = 150 - exponent;                                                  // 24 to 63
    // Half less one rounds to nearest; the lowest kept bit breaks a tie towards even.
    thousandths = (scaled + (std::uint64_t{1} << (shift - 1)) - 1 + (scaled >> shift & 1)) >> shift;
  }
  const bool one = thousandths == 1000;  // from 0.9995
  p[0] = one ? '1' : '0';
  std::memcpy(p + 1, decimal_detail::kDecimals[one ? 0 : thousandths].data(), 4);
  return p + 5;
}

}  // namespace computeprof::logfmt
