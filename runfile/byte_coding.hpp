#pragma once
// The run file's numbers: unsigned LEB128 varints, signed ones zigzag-coded first, and
// fixed little-endian words. Writing appends to a growing byte buffer; reading checks
// every length against the end of what it reads and never reads past it.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace computeprof::runfile {

constexpr std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
constexpr std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}
// b - a as a signed difference (wrapping: any two values code and decode exactly).
constexpr std::uint64_t delta(std::uint64_t a, std::uint64_t b) { return zigzag(static_cast<std::int64_t>(b - a)); }
constexpr std::uint64_t undelta(std::uint64_t a, std::uint64_t coded) {
  return a + static_cast<std::uint64_t>(unzigzag(coded));
}

// Appends to a byte buffer (a std::string, whose capacity is kept between chunks).
class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(out) {}

  void varint(std::uint64_t v) {
    char bytes[10];
    std::size_t n = 0;
    while (v >= 0x80) {
      bytes[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    bytes[n++] = static_cast<char>(v);
    out_.append(bytes, n);
  }
  void signed_varint(std::int64_t v) { varint(zigzag(v)); }
  void byte(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) {
    char bytes[4];
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>(v >> (8 * i));
    out_.append(bytes, 4);
  }
  void u64(std::uint64_t v) {
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(v >> (8 * i));
    out_.append(bytes, 8);
  }
  // Its length, then its bytes.
  void text(std::string_view s) {
    varint(s.size());
    out_.append(s);
  }
  void bytes(std::string_view s) { out_.append(s); }
  std::size_t size() const { return out_.size(); }
  std::string& buffer() { return out_; }

 private:
  std::string& out_;
};

void put_u32(char* at, std::uint32_t v);
void put_u64(char* at, std::uint64_t v);
std::uint32_t get_u32(const char* at);
std::uint64_t get_u64(const char* at);

// Reads what ByteWriter wrote from [begin, end). The first read that would pass `end`,
// or a varint longer than 10 bytes, makes it failed: later reads give 0 and empty texts,
// and the caller reports where (failed_at).
class ByteReader {
 public:
  ByteReader(const char* begin, const char* end) : at_(begin), begin_(begin), end_(end) {}

  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (at_ == end_) return fail();
      const auto b = static_cast<std::uint8_t>(*at_++);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
    return fail();
  }
  std::int64_t signed_varint() { return unzigzag(varint()); }
  std::uint8_t byte() {
    if (at_ == end_) return static_cast<std::uint8_t>(fail());
    return static_cast<std::uint8_t>(*at_++);
  }
  std::uint32_t u32() {
    if (end_ - at_ < 4) return static_cast<std::uint32_t>(fail());
    const std::uint32_t v = get_u32(at_);
    at_ += 4;
    return v;
  }
  std::uint64_t u64() {
    if (end_ - at_ < 8) return fail();
    const std::uint64_t v = get_u64(at_);
    at_ += 8;
    return v;
  }
  std::string_view text() {
    const std::uint64_t n = varint();
    return bytes(n);
  }
  std::string_view bytes(std::uint64_t n) {
    if (failed_ || static_cast<std::uint64_t>(end_ - at_) < n) {
      fail();
      return {};
    }
    std::string_view s(at_, static_cast<std::size_t>(n));
    at_ += n;
    return s;
  }
  // A varint that must fit `limit` (an id, a count): larger is a failure.
  std::uint64_t bounded(std::uint64_t limit) {
    const std::uint64_t v = varint();
    if (v > limit) return fail();
    return v;
  }
  bool failed() const { return failed_; }
  bool at_end() const { return at_ == end_; }
  const char* position() const { return at_; }
  std::size_t offset() const { return static_cast<std::size_t>(at_ - begin_); }
  // Where the failing read began, from `begin`.
  std::size_t failed_at() const { return failed_at_; }

 private:
  std::uint64_t fail() {
    if (!failed_) {
      failed_ = true;
      failed_at_ = offset();
      at_ = end_;
    }
    return 0;
  }
  const char* at_;
  const char* begin_;
  const char* end_;
  bool failed_ = false;
  std::size_t failed_at_ = 0;
};

}  // namespace computeprof::runfile
