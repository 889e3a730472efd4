#include "tools/nvprof_run.hpp"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "config/report.hpp"
#include "logfmt/log_path.hpp"
#include "tools/child_process.hpp"
#include "tools/launch_environment.hpp"
#include "tools/launch_error.hpp"
#include "tools/nvvp_reader.hpp"
#include "tools/shim_library.hpp"
#include "tools/temporary_file.hpp"

namespace computeprof::tools {
namespace {


// A private directory for the run's logs and databases, removed with everything in it.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/computeprof-nvprof-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      throw LaunchError(fmt::format("cannot create a directory in '{}': {}", tmp && *tmp ? tmp : "/tmp",
                                    std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The config lines nvprof's options stand for.
std::string config_text(const NvprofOptions& o) {
  std::string text = "export nvprof\n";
  // Counters are counted on serialized kernels (nvprof serialized them too).
  if (o.concurrent_kernels && o.counters.empty()) text += "conckerneltrace\n";
  if (!o.profile_from_start) text += "enableonstart 0\n";
  for (const std::string& spec : o.kernels) text += "kernels " + spec + "\n";
  for (const std::string& counter : o.counters) text += counter + "\n";
  return text;
}

std::string expand(const std::string& path_template, long pid) {
  char host[HOST_NAME_MAX + 1] = {};
  ::gethostname(host, sizeof host - 1);
  logfmt::PathTemplateValues values;
  values.pid = pid;
  values.hostname = host;
  return logfmt::expand_log_path(path_template, values);
}

std::string joined(const std::vector<std::string>& command) {
  std::string out;
  for (const std::string& word : command) out += (out.empty() ? "" : " ") + word;
  return out;
}

// Where nvprof's lines go: stderr, or --log-file once the application's pid is known.
class Output {
 public:
  explicit Output(const NvprofOptions& o) : options_(o) {}
  ~Output() {
    if (file_) std::fclose(file_);
  }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  void open(long pid) {
    if (!options_.log_file) return;
    const std::string path = expand(*options_.log_file, pid);
    file_ = std::fopen(path.c_str(), "we");
    if (!file_) config::warn(fmt::format("cannot write '{}': {}; nvprof's output goes to stderr",
                                         config::escape_for_warning(path), std::strerror(errno)));
  }
  void write(const std::string& text) {
    std::FILE* to = file_ ? file_ : stderr;
    std::fwrite(text.data(), 1, text.size(), to);
    std::fflush(to);
  }

 private:
  const NvprofOptions& options_;
  std::FILE* file_ = nullptr;
};

// The process's outputs from its database.
void report(const NvprofOptions& o, long pid, const NvvpContents& c, Output& out) {
  const std::string prefix = fmt::format("=={}== ", pid);
  const reports::NvprofReportStyle style{o.unit, o.csv};
  if (o.gpu_trace) out.write(reports::format_nvprof_gpu_trace(c.gpu, c.origin_ns, style, prefix));
  if (o.api_trace) out.write(reports::format_nvprof_api_trace(c.api, c.gpu, c.origin_ns, style, prefix));
  // The summary, unless a trace or -o was asked for without it (as nvprof).
  const bool asked = o.gpu_summary || o.api_summary;
  if (asked || (!o.gpu_trace && !o.api_trace && !o.export_profile)) {
    out.write(reports::format_nvprof_summary(c.gpu, c.api, o.gpu_summary || !asked, o.api_summary || !asked, style,
                                             prefix));
  }
}

// Moves the database to -o's path. Returns the line to print.
std::string keep_database(const NvprofOptions& o, long pid, const std::string& from) {
  const std::string prefix = fmt::format("=={}== ", pid);
  const std::string to = expand(*o.export_profile, pid);
  std::error_code error;
  if (std::filesystem::exists(to, error) && !o.force_overwrite) {
    return fmt::format("{}Error: '{}' exists; -f overwrites it\n", prefix, to);
  }
  std::filesystem::rename(from, to, error);
  if (error) {
    // Another file system: copied instead.
    error.clear();
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, error);
  }
  if (error) return fmt::format("{}Error: cannot write '{}': {}\n", prefix, to, error.message());
  return fmt::format("{}Generated result file: {}\n", prefix, std::filesystem::absolute(to, error).string());
}

}  // namespace

int run_nvprof(const NvprofOptions& o) {
  const TemporaryDirectory directory;
  LaunchSettings settings;
  settings.shim_path = find_shim().native();
  const TemporaryFile log_index("computeprof-logs-");
  settings.log_index_path = log_index.path();
  // A log per process and device (the databases are per process: nvprof_<pid>.nvvp).
  settings.log_path = directory.path() + "/nvprof_%p_%d.log";
  TemporaryFile config("computeprof-config-");
  config.write(config_text(o));
  settings.config_path = config.path();
  settings.config_name = "computeprof nvprof's options";

  Output out(o);
  long main_pid = 0;
  const ChildOutcome outcome =
      run_child(o.command, build_launch_environment(current_environment(), settings), [&](pid_t pid) {
        main_pid = pid;
        out.open(pid);
        if (!o.quiet) {
          out.write(fmt::format("=={0}== NVPROF is profiling process {0}, command: {1}\n", pid, joined(o.command)));
        }
      });
  if (outcome.exec_error != 0) return report_exec_failure(o.command.front(), outcome.exec_error);
  if (!o.quiet) out.write(fmt::format("=={}== Profiling application: {}\n", main_pid, joined(o.command)));
  // One database per process: nvprof_<pid>.nvvp. The application's first, then its
  // children's (--profile-child-processes), by pid.
  std::map<long, std::string> databases;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory.path(), error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("nvprof_") || !name.ends_with(".nvvp")) continue;
    const long pid = std::strtol(name.c_str() + 7, nullptr, 10);
    if (pid == main_pid || o.child_processes) databases.emplace(pid, entry.path().string());
  }
  if (databases.find(main_pid) == databases.end()) {
    if (!o.quiet) out.write(fmt::format("=={}== Warning: No profile data collected.\n", main_pid));
  }
  for (const auto& [pid, path] : databases) {
    NvvpContents contents;
    if (const std::string why = read_nvvp(path, contents); !why.empty()) {
      config::warn(fmt::format("cannot read the database of process {}: {}", pid, why));
      continue;
    }
    if (!o.quiet) report(o, pid, contents, out);
    if (o.export_profile) {
      const std::string line = keep_database(o, pid, path);
      if (!o.quiet || line.find("Error") != std::string::npos) out.write(line);
    }
  }
  return outcome.exit_code;
}

}  // namespace computeprof::tools
