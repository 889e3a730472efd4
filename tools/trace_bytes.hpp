// The bytes of a trace file as its reader sees them: a plain file passes through, a gzip
// file (any number of members, RFC 1952, as `export json.gz` writes it) is inflated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace computeprof::tools {

// A file that cannot be read or decompressed: the message names what went wrong, the
// caller adds the file's name.
class TraceBytesError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where raw bytes come from: a file, or memory (the fuzz target).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to `size` bytes into `out`; 0 at the end. Throws TraceBytesError.
  virtual std::size_t read(char* out, std::size_t size) = 0;
};

std::unique_ptr<ByteSource> file_bytes(const std::string& path);
std::unique_ptr<ByteSource> memory_bytes(std::string_view bytes);

// The text of a trace: `raw` as it is, or inflated when it starts with gzip's magic
// bytes. A gzip file ends after a whole member; anything else after a member must be
// another member.
class TraceBytes {
 public:
  explicit TraceBytes(std::unique_ptr<ByteSource> raw);
  ~TraceBytes();
  TraceBytes(const TraceBytes&) = delete;
  TraceBytes& operator=(const TraceBytes&) = delete;

  // Up to `size` bytes of text; 0 at the end. Throws TraceBytesError.
  std::size_t read(char* out, std::size_t size);

 private:
  struct Inflater;
  std::size_t fill_input();

  std::unique_ptr<ByteSource> raw_;
  std::unique_ptr<Inflater> inflater_;  // null for a plain file
  std::string input_;
  std::size_t input_at_ = 0;
  std::uint64_t raw_offset_ = 0;  // of input_'s end in the raw file
  bool started_ = false;
};

}  // namespace computeprof::tools
