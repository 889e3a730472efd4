#include "runfile/byte_coding.hpp"

namespace computeprof::runfile {

void put_u32(char* at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<char>(v >> (8 * i));
}

void put_u64(char* at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) at[i] = static_cast<char>(v >> (8 * i));
}

std::uint32_t get_u32(const char* at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{static_cast<std::uint8_t>(at[i])} << (8 * i);
  return v;
}

std::uint64_t get_u64(const char* at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<std::uint8_t>(at[i])} << (8 * i);
  return v;
}

}  // namespace computeprof::runfile
