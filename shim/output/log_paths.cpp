#include "shim/output/log_paths.hpp"

#include <time.h>

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "config/report.hpp"
#include "logfmt/export_path.hpp"
#include "shim/process/context_registry.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {

logfmt::LogPathRegistry& log_paths() {
  // Leaked on purpose: used from exit handlers, after static destructors could have run.
  static auto* paths = new logfmt::LogPathRegistry;
  return *paths;
}

std::string output_path(std::string_view path_template, int device) {
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  logfmt::PathTemplateValues values;
  values.device = device;
  values.pid = static_cast<long>(getpid());
  values.hostname = host;
  return logfmt::expand_log_path(path_template, values);
}

std::string claim_output_path(std::string_view path_template, int device, int claimant) {
  return log_paths().claim(output_path(path_template, device), claimant);
}

std::string claim_export_path(std::string_view log_template, std::string_view extension) {
  return claim_output_path(logfmt::export_path_template(log_template, extension), 0, 0);
}

bool open_output_file(logfmt::LogFile& file, const std::string& path) {
  logfmt::OpenResult result = file.open(path);
  if (result.status == logfmt::OpenStatus::held) {
    const std::string own = logfmt::insert_process_suffix(path, static_cast<long>(getpid()));
    config::warn(fmt::format("'{}' is being written by another process; this one writes '{}'",
                             config::escape_for_warning(path), config::escape_for_warning(own)));
    result = file.open(own);
    if (result.status == logfmt::OpenStatus::held) {
      result.why = fmt::format("'{}' is being written by another process too; nothing is written there",
                               config::escape_for_warning(own));
      config::warn(result.why);
    }
  }
  // What was said of a path that could not be opened is also the launcher's to repeat,
  // as the reason no log was written.
  if (result) {
    note_log_path(file.path());
  } else {
    note_unopened_log(result.why);
  }
  return static_cast<bool>(result);
}

namespace {

// Appends `line` and a newline to COMPUTEPROF_LOG_INDEX's file, when it is set.
void append_to_log_index(std::string line) {
  const char* index = std::getenv("COMPUTEPROF_LOG_INDEX");
  if (!index || !*index) return;
  line += '\n';
  // Never through a symbolic link, and never made: the launcher creates the index.
  const int fd = ::open(index, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return;
  // One write with O_APPEND: lines from several processes never interleave.
  [[maybe_unused]] auto n = ::write(fd, line.data(), line.size());
  ::close(fd);
}

}  // namespace

void note_log_path(const std::string& path) {
  std::string line;
  if (!path.starts_with('/')) {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) line = std::string(cwd) + "/";
  }
  append_to_log_index(line + path);
}

void note_unopened_log(std::string_view why) { append_to_log_index("!" + std::string(why)); }

bool launcher_lists_outputs() {
  const char* index = std::getenv("COMPUTEPROF_LOG_INDEX");
  return index != nullptr && *index != '\0';
}

}  // namespace computeprof::shim

namespace computeprof::shim {

std::uint64_t export_base_wall_ns() {
  const ProcessProfile& profile = process_profile();
  if (profile.cuda.settings.enabled && profile.cuda.settings.config.memtrace) return profile_loaded_wall_ns();
  return first_context_origin().wall_ns;
}

exports::ExportClocks export_base_clocks() {
  const std::uint64_t wall = export_base_wall_ns();
  // The two clocks read back to back now; the base is that far back on both.
  timespec m{}, w{};
  clock_gettime(CLOCK_MONOTONIC, &m);
  clock_gettime(CLOCK_REALTIME, &w);
  const auto ns = [](const timespec& t) {
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
  };
  const std::uint64_t ago = ns(w) > wall ? ns(w) - wall : 0;
  return {wall, ns(m) > ago ? ns(m) - ago : 0};
}

}  // namespace computeprof::shim
