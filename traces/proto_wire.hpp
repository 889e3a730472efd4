#pragma once
// The protobuf wire format, as much of it as the Perfetto trace needs: varints, tags,
// 64-bit doubles, bytes and nested messages, appended to a caller's buffer. Written
// here rather than with libprotobuf: the trace is a handful of messages written in one
// order, libprotobuf would be a run-time dependency of every profiled process that
// exports, and its generated classes build each message before serializing it.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace computeprof::traces::proto {

enum class WireType : std::uint8_t { varint = 0, fixed64 = 1, length = 2 };

// The bytes a varint of `value` takes (1 to 10).
constexpr std::size_t varint_size(std::uint64_t value) {
  return value == 0 ? 1 : (static_cast<std::size_t>(std::bit_width(value)) + 6) / 7;
}

// Writes `value` as a varint at `p`; returns the end.
inline char* write_varint(char* p, std::uint64_t value) {
  while (value >= 0x80) {
    *p++ = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  *p++ = static_cast<char>(value);
  return p;
}

inline char* write_tag(char* p, std::uint32_t field, WireType type) {
  return write_varint(p, (static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(type));
}

// Each field is one append of its tag and value, made on the stack: an append costs
// more than the bytes it copies.
inline void put_varint(std::string& out, std::uint64_t value) {
  char bytes[10];
  out.append(bytes, static_cast<std::size_t>(write_varint(bytes, value) - bytes));
}

inline void put_tag(std::string& out, std::uint32_t field, WireType type) {
  char bytes[10];
  out.append(bytes, static_cast<std::size_t>(write_tag(bytes, field, type) - bytes));
}

inline void put_uint(std::string& out, std::uint32_t field, std::uint64_t value) {
  char bytes[20];
  char* p = write_varint(write_tag(bytes, field, WireType::varint), value);
  out.append(bytes, static_cast<std::size_t>(p - bytes));
}

// int32 and int64 fields: a negative value is its two's complement, ten bytes.
inline void put_int(std::string& out, std::uint32_t field, std::int64_t value) {
  put_uint(out, field, static_cast<std::uint64_t>(value));
}

inline void put_double(std::string& out, std::uint32_t field, double value) {
  char bytes[18];
  char* p = write_tag(bytes, field, WireType::fixed64);
  const auto bits = std::bit_cast<std::uint64_t>(value);
  for (int i = 0; i < 8; ++i) *p++ = static_cast<char>(bits >> (8 * i));
  out.append(bytes, static_cast<std::size_t>(p - bytes));
}

inline void put_bytes(std::string& out, std::uint32_t field, std::string_view bytes) {
  char head[20];
  char* p = write_varint(write_tag(head, field, WireType::length), bytes.size());
  out.append(head, static_cast<std::size_t>(p - head));
  out.append(bytes);
}

// A nested message: its tag and one byte of length are written at begin(); end()
// writes the length there, moving the body up where the length needs more than one
// byte (messages here are mostly shorter than 128 bytes: no room is reserved and
// wasted).
class NestedMessage {
 public:
  NestedMessage(std::string& out, std::uint32_t field) : out_(out) {
    char head[11];
    char* p = write_tag(head, field, WireType::length);
    *p++ = '\0';
    out_.append(head, static_cast<std::size_t>(p - head));
    at_ = out_.size() - 1;
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

// Fields written through a pointer into room the caller made (a string resized by a
// bound of what is written, then cut back to end()): the hot path's packets, one
// resize each rather than an append a field. Nested messages as NestedMessage writes
// them.
class FieldWriter {
 public:
  explicit FieldWriter(char* at) : p_(at) {}

  void uint(std::uint32_t field, std::uint64_t value) { p_ = write_varint(write_tag(p_, field, WireType::varint), value); }
  void signed_int(std::uint32_t field, std::int64_t value) { uint(field, static_cast<std::uint64_t>(value)); }
  void real(std::uint32_t field, double value) {
    p_ = write_tag(p_, field, WireType::fixed64);
    const auto bits = std::bit_cast<std::uint64_t>(value);
    for (int i = 0; i < 8; ++i) *p_++ = static_cast<char>(bits >> (8 * i));
  }
  void bytes(std::uint32_t field, std::string_view text) {
    p_ = write_varint(write_tag(p_, field, WireType::length), text.size());
    std::memcpy(p_, text.data(), text.size());
    p_ += text.size();
  }
  // A nested message's start: where its length goes.
  char* begin(std::uint32_t field) {
    p_ = write_tag(p_, field, WireType::length);
    return p_++;
  }
  void end(char* length_at) {
    const auto length = static_cast<std::size_t>(p_ - length_at - 1);
    const std::size_t size = varint_size(length);
    if (size > 1) {
      std::memmove(length_at + size, length_at + 1, length);
      p_ += size - 1;
    }
    write_varint(length_at, length);
  }
  char* end() const { return p_; }

 private:
  char* p_;
};

}  // namespace computeprof::traces::proto
