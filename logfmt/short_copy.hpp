#pragma once
// Short texts copied in place through a raw pointer into room the caller made, without
// a call to memcpy where their length is not known at compile time (a record's
// method, a trace event's names).
#include <array>
#include <cstring>
#include <string_view>

namespace computeprof::logfmt {

// `text`'s bytes as two copies of its first and last 8 or 16, overlapping: no call for a
// text of 8 to 32 bytes (every copy's method, many kernels', the entry points' names);
// memcpy for the others.
inline char* put_short(char* p, std::string_view text) {
  const char* const s = text.data();
  const std::size_t n = text.size();
  if (n - 8 <= 8) {
    std::array<char, 8> first, last;
    std::memcpy(first.data(), s, 8);
    std::memcpy(last.data(), s + n - 8, 8);
    std::memcpy(p, first.data(), 8);
    std::memcpy(p + n - 8, last.data(), 8);
  } else if (n - 16 <= 16) {
    std::array<char, 16> first, last;
    std::memcpy(first.data(), s, 16);
    std::memcpy(last.data(), s + n - 16, 16);
    std::memcpy(p, first.data(), 16);
    std::memcpy(p + n - 16, last.data(), 16);
  } else {
    std::memcpy(p, s, n);
  }
  return p + n;
}

}  // namespace computeprof::logfmt
