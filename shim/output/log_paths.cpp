#include "shim/output/log_paths.hpp"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>

namespace computeprof::shim {

logfmt::LogPathRegistry& log_paths() {
  // Leaked on purpose: used from exit handlers, after static destructors could have run.
  static auto* paths = new logfmt::LogPathRegistry;
  return *paths;
}

std::string claim_output_path(std::string_view path_template, int device, int claimant) {
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  logfmt::PathTemplateValues values;
  values.device = device;
  values.pid = static_cast<long>(getpid());
  values.hostname = host;
  return log_paths().claim(logfmt::expand_log_path(path_template, values), claimant);
}

void note_log_path(const std::string& path) {
  const char* index = std::getenv("COMPUTEPROF_LOG_INDEX");
  if (!index || !*index) return;
  std::string line;
  if (!path.starts_with('/')) {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) line = std::string(cwd) + "/";
  }
  line += path;
  line += '\n';
  const int fd = ::open(index, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  // One write with O_APPEND: lines from several processes never interleave.
  [[maybe_unused]] auto n = ::write(fd, line.data(), line.size());
  ::close(fd);
}

}  // namespace computeprof::shim
