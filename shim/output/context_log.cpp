#include "shim/output/context_log.hpp"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>

#include "logfmt/header.hpp"
#include "logfmt/log_path.hpp"
#include "logfmt/record_writer.hpp"
#include "shim/output/log_paths.hpp"

namespace computeprof::shim {

ContextLog::ContextLog(int number, int device, std::string device_name, const ApiProfile& profile,
                       ContextOrigin origin)
    : number_(number), device_(device), device_name_(std::move(device_name)), profile_(profile), origin_(origin) {}

bool ContextLog::open_file() {
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  logfmt::PathTemplateValues values;
  values.device = device_;
  values.pid = static_cast<long>(getpid());
  values.hostname = host;
  const std::string path = log_paths().claim(logfmt::expand_log_path(profile_.settings.log_template, values), number_);
  if (!file_.open(path)) return false;
  note_log_path(path);

  logfmt::HeaderInfo info;
  info.device = device_;
  info.device_name = device_name_;
  info.context = number_;
  info.format = profile_.settings.format;
  info.timestamp_factor = origin_.wall_ns;
  info.counters_dropped = profile_.settings.config.counters_dropped;
  std::string header;
  logfmt::write_header(header, info, profile_.layout);
  file_.append(header);
  return true;
}

void ContextLog::write(const logfmt::Record& record) {
  if (state_ == FileState::unopened) state_ = open_file() ? FileState::open : FileState::failed;
  if (state_ != FileState::open) return;
  line_.clear();
  logfmt::write_record(line_, record, profile_.layout, profile_.settings.format);
  file_.append(line_);
}

void ContextLog::flush() {
  if (state_ == FileState::open) file_.flush();
}

void ContextLog::close() {
  if (state_ == FileState::open) file_.close();
  state_ = FileState::closed;
}

void ContextLog::abandon() {
  file_.abandon();
  state_ = FileState::closed;
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
