#pragma once
// A log file: created (truncated) with mode 0644 minus umask, written through a buffer.
// Failures are one warning each; the caller goes on either way.
#include <string>
#include <string_view>

namespace computeprof::logfmt {

class LogFile {
 public:
  LogFile() = default;
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;
  LogFile(LogFile&& other) noexcept;
  LogFile& operator=(LogFile&& other) noexcept;
  ~LogFile();

  // Opens `path`; on failure warns with the path and the reason and returns false.
  bool open(const std::string& path);
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

  // Buffers text; writes through once the buffer is large.
  void append(std::string_view text);
  // Writes everything buffered.
  void flush();
  // Writes everything buffered, then `tail` after it without counting it as written:
  // the next write replaces the tail (a JSON file stays valid after every flush).
  void flush_with_tail(std::string_view tail);
  void close();

  // Drops the descriptor and the buffer without writing (a forked child must not
  // write its parent's buffered records a second time).
  void abandon();

 private:
  void write_all(std::string_view text);

  int fd_ = -1;
  bool write_failed_ = false;
  std::string path_;
  std::string buffer_;
};

}  // namespace computeprof::logfmt
