#include "tools/text_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace computeprof::tools {

std::optional<std::string> read_text_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  const bool read = read_until_size(fd, text, std::string::npos);
  const int error = errno;
  ::close(fd);
  errno = error;
  if (!read) return std::nullopt;
  return text;
}

bool read_until_size(int fd, std::string& text, std::size_t size) {
  char buffer[8192];
  while (text.size() < size) {
    const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, size - text.size()));
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return true;
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace computeprof::tools
