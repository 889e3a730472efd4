#include "logfmt/log_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <utility>

#include "config/report.hpp"

namespace computeprof::logfmt {
namespace {
constexpr std::size_t kFlushThreshold = 64 * 1024;
}

LogFile::LogFile(LogFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      write_failed_(other.write_failed_),
      path_(std::move(other.path_)),
      buffer_(std::move(other.buffer_)) {}

LogFile& LogFile::operator=(LogFile&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    write_failed_ = other.write_failed_;
    path_ = std::move(other.path_);
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

LogFile::~LogFile() { close(); }

bool LogFile::open(const std::string& path) {
  close();
  path_ = path;
  write_failed_ = false;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    int err = errno;  // before anything that allocates
    config::warn(fmt::format("cannot open log '{}': {}; this context is not logged", config::escape_for_warning(path),
                             std::strerror(err)));
    return false;
  }
  return true;
}

void LogFile::append(std::string_view text) {
  if (fd_ < 0) return;
  buffer_.append(text);
  if (buffer_.size() >= kFlushThreshold) flush();
}

void LogFile::flush() {
  if (fd_ < 0 || buffer_.empty()) return;
  write_all(buffer_);
  buffer_.clear();
}

void LogFile::write_all(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;  // before anything that allocates
      if (!write_failed_) {
        config::warn(fmt::format("cannot write log '{}': {}; records are lost", config::escape_for_warning(path_),
                                 n < 0 ? std::strerror(err) : "no progress"));
      }
      write_failed_ = true;
      return;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void LogFile::close() {
  if (fd_ < 0) return;
  flush();
  ::close(fd_);
  fd_ = -1;
}

void LogFile::abandon() {
  buffer_.clear();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace computeprof::logfmt
