#include "runfile/checksum.hpp"

#include <cstring>

namespace computeprof::runfile {

namespace {

constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;

std::uint64_t mix(std::uint64_t h, std::uint64_t word) {
  h ^= word;
  h *= kMultiplier;
  return h ^ (h >> 29);
}

}  // namespace

std::uint64_t payload_checksum(std::string_view payload) {
  std::uint64_t h = 0x243F6A8885A308D3ULL ^ payload.size();
  const char* p = payload.data();
  std::size_t n = payload.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    h = mix(h, word);
  }
  std::uint64_t tail = 0;
  if (n != 0) std::memcpy(&tail, p, n);
  h = mix(h, tail ^ (std::uint64_t{n} << 56));
  return mix(h, h >> 32);
}

}  // namespace computeprof::runfile
