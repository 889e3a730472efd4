#pragma once
// The protobuf wire format, as much of it as the Perfetto trace needs: varints, tags,
// 64-bit doubles, bytes and nested messages, appended to a caller's buffer. Written
// here rather than with libprotobuf: the trace is a handful of messages written in one
// order, libprotobuf would be a run-time dependency of every profiled process that
// exports, and its generated classes build each message before serializing it.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace computeprof::traces::proto {

enum class WireType : std::uint8_t { varint = 0, fixed64 = 1, length = 2 };

// The bytes a varint of `value` takes (1 to 10).
constexpr std::size_t varint_size(std::uint64_t value) {
  return value == 0 ? 1 : (static_cast<std::size_t>(std::bit_width(value)) + 6) / 7;
}

inline void put_varint(std::string& out, std::uint64_t value) {
  char bytes[10];
  std::size_t n = 0;
  while (value >= 0x80) {
    bytes[n++] = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  bytes[n++] = static_cast<char>(value);
  out.append(bytes, n);
}

inline void put_tag(std::string& out, std::uint32_t field, WireType type) {
  put_varint(out, (static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(type));
}

inline void put_uint(std::string& out, std::uint32_t field, std::uint64_t value) {
  put_tag(out, field, WireType::varint);
  put_varint(out, value);
}

// int32 and int64 fields: a negative value is its two's complement, ten bytes.
inline void put_int(std::string& out, std::uint32_t field, std::int64_t value) {
  put_uint(out, field, static_cast<std::uint64_t>(value));
}

inline void put_double(std::string& out, std::uint32_t field, double value) {
  put_tag(out, field, WireType::fixed64);
  const auto bits = std::bit_cast<std::uint64_t>(value);
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(bits >> (8 * i));
  out.append(bytes, 8);
}

inline void put_bytes(std::string& out, std::uint32_t field, std::string_view bytes) {
  put_tag(out, field, WireType::length);
  put_varint(out, bytes.size());
  out.append(bytes);
}

// A nested message: its tag and one byte of length are written at begin(); end()
// writes the length there, moving the body up where the length needs more than one
// byte (messages here are mostly shorter than 128 bytes: no room is reserved and
// wasted).
class NestedMessage {
 public:
  NestedMessage(std::string& out, std::uint32_t field) : out_(out) {
    put_tag(out_, field, WireType::length);
    at_ = out_.size();
    out_.push_back('\0');
  }
  NestedMessage(const NestedMessage&) = delete;
  NestedMessage& operator=(const NestedMessage&) = delete;
  ~NestedMessage() { end(); }

  void end() {
    if (ended_) return;
    ended_ = true;
    const std::size_t length = out_.size() - at_ - 1;
    const std::size_t size = varint_size(length);
    if (size > 1) out_.insert(at_ + 1, size - 1, '\0');
    std::uint64_t value = length;
    for (std::size_t i = 0; i < size; ++i) {
      out_[at_ + i] = static_cast<char>((value & 0x7f) | (i + 1 < size ? 0x80 : 0));
      value >>= 7;
    }
  }

 private:
  std::string& out_;
  std::size_t at_ = 0;
  bool ended_ = false;
};

}  // namespace computeprof::traces::proto
