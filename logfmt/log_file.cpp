#include "logfmt/log_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <utility>

#include "config/report.hpp"

namespace computeprof::logfmt {
namespace {

// Why open(2) refused a log path, in the words the other refusals use.
std::string open_failure(int err) {
  switch (err) {
    case ELOOP: return "is a symbolic link, not followed";
    case EISDIR: return "is a directory";
    case ENXIO: return "not a regular file";  // a FIFO without a reader, a socket
    default: return std::strerror(err);
  }
}

// Why an opened file is no file to log to; empty when it is one. A second hard link
// could be a file elsewhere that whoever chose the path wants emptied.
std::string refusal(const struct stat& st) {
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (st.st_nlink > 1) return fmt::format("has {} hard links", st.st_nlink);
  return {};
}

}  // namespace

LogFile::~LogFile() { close(); }

OpenResult LogFile::open(const std::string& path) {
  close();
  path_ = path;
  write_failed_ = false;
  auto fail = [&](int fd, std::string_view why) {
    if (fd >= 0) ::close(fd);
    OpenResult failed{OpenStatus::failed, fmt::format("cannot open log '{}': {}; this context is not logged",
                                                       config::escape_for_warning(path), why)};
    config::warn(failed.why);
    return failed;
  };
  // No O_TRUNC: a file is emptied only once its lock says no one else writes it.
  // O_NONBLOCK: opening a FIFO must fail (ENXIO) rather than wait for a reader.
  // O_NOCTTY: a terminal must not become the process's controlling terminal.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0644);
  if (fd < 0) return fail(fd, open_failure(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(fd, std::strerror(errno));
  if (std::string why = refusal(st); !why.empty()) return fail(fd, why);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    // The caller says what it does instead (another name), in one line.
    ::close(fd);
    return OpenResult{OpenStatus::held, {}};
  }
  // Any other flock failure is a file system without locks: log unlocked rather than not at all.
  if (::ftruncate(fd, 0) != 0) return fail(fd, std::strerror(errno));
  // Writes to a regular file ignore O_NONBLOCK on local file systems, not on all others.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  fd_ = fd;
  return OpenResult{OpenStatus::opened, {}};
}

void LogFile::append(std::string_view text) {
  char* room = room_for(text.size());
  if (room == nullptr) return;
  std::memcpy(room, text.data(), text.size());
  commit(room + text.size());
}

char* LogFile::grow_room(std::size_t bound) {
  if (fd_ < 0) return nullptr;
  // The buffer only grows (zero-filled once), so that a record costs no fill.
  buffer_.resize(used_ + bound);
  return buffer_.data() + used_;
}

void LogFile::flush() {
  if (fd_ < 0 || used_ == 0) return;
  write_all({buffer_.data(), used_});
  used_ = 0;
}

void LogFile::write(std::string_view text) {
  flush();
  if (fd_ >= 0 && !text.empty()) write_all(text);
}

void LogFile::flush_with_tail(std::string_view tail) {
  flush();
  if (fd_ < 0 || write_failed_) return;
  const off_t at = ::lseek(fd_, 0, SEEK_CUR);
  std::size_t done = 0;
  while (at >= 0 && done < tail.size()) {
    const ssize_t n = ::pwrite(fd_, tail.data() + done, tail.size() - done, at + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
}

void LogFile::rewrite(std::string_view text) {
  if (fd_ < 0 || write_failed_) return;
  used_ = 0;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd_, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      config::warn(fmt::format("cannot write '{}': {}", config::escape_for_warning(path_),
                               n < 0 ? std::strerror(err) : "no progress"));
      write_failed_ = true;
      return;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::ftruncate(fd_, static_cast<off_t>(text.size())) != 0) {
    config::warn(fmt::format("cannot write '{}': {}", config::escape_for_warning(path_), std::strerror(errno)));
    write_failed_ = true;
  }
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
  used_ = 0;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace computeprof::logfmt
