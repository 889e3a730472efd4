#include "tools/temporary_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "tools/launch_error.hpp"
#include "tools/text_file.hpp"

namespace computeprof::tools {
namespace {

std::string temporary_directory() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
}

}  // namespace

TemporaryFile::TemporaryFile(std::string_view prefix) {
  const std::string directory = temporary_directory();
  std::string name = fmt::format("{}/{}XXXXXX", directory, prefix);
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) {
    throw LaunchError(fmt::format("cannot create a temporary file in '{}': {}", directory, std::strerror(errno)));
  }
  ::close(fd);
  path_ = std::move(name);
}

TemporaryFile::~TemporaryFile() { ::unlink(path_.c_str()); }

void TemporaryFile::write(std::string_view text) const {
  const int fd = ::open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  const bool written = fd >= 0 && write_all(fd, text);
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (!written) throw LaunchError(fmt::format("cannot write '{}': {}", path_, std::strerror(error)));
}

std::string TemporaryFile::read() const { return read_text_file(path_).value_or(std::string()); }

}  // namespace computeprof::tools
