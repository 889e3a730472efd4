#include "tools/profiled_run.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "config/report.hpp"
#include "tools/child_process.hpp"
#include "tools/config_text.hpp"
#include "tools/launch_config.hpp"
#include "tools/launch_environment.hpp"
#include "tools/launch_error.hpp"
#include "tools/log_index.hpp"
#include "tools/shim_library.hpp"
#include "tools/temporary_file.hpp"
#include "tools/text_file.hpp"

namespace computeprof::tools {
namespace {


// The --config file's text, read where the launcher needs it: to extend a copy of it
// (then a file it cannot read stops the run) or to compare it with --csv (then the shim
// reports such a file, as without --csv).
std::optional<std::string> read_user_config(const RunOptions& options, bool extended) {
  if (!options.config_path || (!extended && !options.csv)) return std::nullopt;
  std::optional<std::string> text = read_text_file(*options.config_path);
  if (!text && extended) {
    throw LaunchError(fmt::format("cannot read config file '{}': {}", *options.config_path, std::strerror(errno)));
  }
  return text;
}

}  // namespace

int run_profiled(const RunOptions& options) {
  LaunchSettings settings;
  settings.shim_path = find_shim().native();
  settings.csv = options.csv;
  settings.log_path = options.log_path;
  settings.config_path = options.config_path;

  const TemporaryFile log_index("computeprof-logs-");
  settings.log_index_path = log_index.path();

  // The shim reads one config file: --counters and the config options extend a copy of
  // the --config file.
  std::vector<std::string> added_lines = options.counters;
  added_lines.insert(added_lines.end(), options.config_lines.begin(), options.config_lines.end());
  const std::optional<std::string> user_config = read_user_config(options, !added_lines.empty());
  std::optional<TemporaryFile> launch_config;
  if (!added_lines.empty()) {
    launch_config.emplace("computeprof-config-");
    launch_config->write(launch_config_text(user_config.value_or(""), added_lines));
    settings.config_path = launch_config->path();
    // The shim's warnings name the user's file (its lines come first, numbered as there).
    settings.config_name = options.config_path.value_or("computeprof's options");
  }
  if (options.csv && user_config &&
      parse_config_text(*user_config, *options.config_path).config.log_format == config::LogFormat::kvp) {
    config::warn(fmt::format("--csv: the config file '{}' says profilelogformat KVP, which wins",
                             config::escape_for_warning(*options.config_path)));
  }

  const ChildOutcome outcome = run_child(options.command, build_launch_environment(current_environment(), settings));
  if (outcome.exec_error != 0) return report_exec_failure(options.command.front(), outcome.exec_error);
  for (const std::string& line : log_report_lines(log_index.read(), outcome.signal)) config::warn(line);
  return outcome.exit_code;
}

}  // namespace computeprof::tools
