#include "tools/trace_bytes.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace computeprof::tools {
namespace {

constexpr std::size_t kInputChunk = 1 << 16;

class FileBytes final : public ByteSource {
 public:
  explicit FileBytes(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw TraceBytesError(std::strerror(errno));
  }
  ~FileBytes() override { ::close(fd_); }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  std::size_t read(char* out, std::size_t size) override {
    for (;;) {
      const ssize_t n = ::read(fd_, out, size);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) throw TraceBytesError(std::strerror(errno));
    }
  }

 private:
  int fd_;
};

class MemoryBytes final : public ByteSource {
 public:
  explicit MemoryBytes(std::string_view bytes) : bytes_(bytes) {}
  std::size_t read(char* out, std::size_t size) override {
    const std::size_t n = std::min(size, bytes_.size());
    std::memcpy(out, bytes_.data(), n);
    bytes_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view bytes_;
};

}  // namespace

std::unique_ptr<ByteSource> file_bytes(const std::string& path) { return std::make_unique<FileBytes>(path); }
std::unique_ptr<ByteSource> memory_bytes(std::string_view bytes) { return std::make_unique<MemoryBytes>(bytes); }

struct TraceBytes::Inflater {
  z_stream stream{};
  bool in_member = false;  // between a member's first byte and its end
  std::uint64_t member_start = 0;  // in the raw file
  Inflater() {
    // 16 + MAX_WBITS: gzip's header and trailer, checked.
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw TraceBytesError("zlib cannot start inflating");
  }
  ~Inflater() { inflateEnd(&stream); }
};

TraceBytes::TraceBytes(std::unique_ptr<ByteSource> raw) : raw_(std::move(raw)) {}
TraceBytes::~TraceBytes() = default;

std::size_t TraceBytes::fill_input() {
  input_.resize(kInputChunk);
  const std::size_t n = raw_->read(input_.data(), input_.size());
  input_.resize(n);
  input_at_ = 0;
  raw_offset_ += n;
  return n;
}

std::size_t TraceBytes::read(char* out, std::size_t size) {
  if (!started_) {
    started_ = true;
    // The two magic bytes may arrive in separate reads of a pipe-like source.
    while (input_.size() < 2) {
      std::string first = std::move(input_);
      if (fill_input() == 0) {
        input_ = std::move(first);
        break;
      }
      input_.insert(0, first);
    }
    if (input_.size() >= 2 && static_cast<unsigned char>(input_[0]) == 0x1f &&
        static_cast<unsigned char>(input_[1]) == 0x8b) {
      inflater_ = std::make_unique<Inflater>();
    }
  }
  if (!inflater_) {
    if (input_at_ < input_.size()) {
      const std::size_t n = std::min(size, input_.size() - input_at_);
      std::memcpy(out, input_.data() + input_at_, n);
      input_at_ += n;
      return n;
    }
    return raw_->read(out, size);
  }
  z_stream& z = inflater_->stream;
  std::size_t produced = 0;
  while (produced == 0) {
    if (input_at_ == input_.size() && fill_input() == 0) {
      if (inflater_->in_member) {
        throw TraceBytesError(fmt::format("the gzip data ends inside a member (byte {})", raw_offset_));
      }
      return 0;
    }
    z.next_in = reinterpret_cast<Bytef*>(input_.data() + input_at_);
    z.avail_in = static_cast<uInt>(input_.size() - input_at_);
    z.next_out = reinterpret_cast<Bytef*>(out);
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
    if (!inflater_->in_member) {
      inflater_->in_member = true;
      inflater_->member_start = raw_offset_ - (input_.size() - input_at_);
    }
    const int rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t consumed = input_.size() - input_at_ - z.avail_in;
    input_at_ += consumed;
    produced = static_cast<std::size_t>(reinterpret_cast<char*>(z.next_out) - out);
    if (rc == Z_STREAM_END) {
      // The next member, if any, starts afresh.
      inflater_->in_member = false;
      if (inflateReset(&z) != Z_OK) throw TraceBytesError("zlib cannot inflate the next member");
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw TraceBytesError(fmt::format("not valid gzip data in the member from byte {}: {}",
                                        inflater_->member_start, z.msg != nullptr ? z.msg : "zlib error"));
    }
  }
  return produced;
}

}  // namespace computeprof::tools
