#pragma once
// The computeprof command line, parsed without side effects:
//   computeprof [--csv] [-o PATH] [--config FILE] [--counters a,b,...] [config options] [--] app args...
//   computeprof --query-counters [--chip NAME] [--config FILE] [--counters a,b,...]
//   computeprof stats FILE...
//   computeprof --version | --help
// The config options (--export, --kernels, ...) are the config file's lines as flags.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace computeprof::tools {

// What to run and how to profile it.
struct RunOptions {
  bool csv = false;                         // --csv
  std::optional<std::string> log_path;      // -o
  std::optional<std::string> config_path;   // --config
  std::vector<std::string> counters;        // --counters, legacy names in the order given
  std::vector<std::string> command;         // the application and its arguments, never empty
  std::vector<std::string> config_lines;    // config options as config file lines, in the order given

  bool operator==(const RunOptions&) const = default;
};

// Which legacy counters a chip has, and the passes some of them need.
struct QueryOptions {
  std::string chip = "GH100";               // --chip
  std::optional<std::string> config_path;   // --config
  std::vector<std::string> counters;        // --counters

  bool operator==(const QueryOptions&) const = default;
};

struct CommandLine {
  enum class Action { run, query_counters, stats, help, version };
  Action action = Action::run;
  RunOptions run;                       // only meaningful for Action::run
  QueryOptions query;                   // only meaningful for Action::query_counters
  std::vector<std::string> stats_files; // only meaningful for Action::stats, never empty

  bool operator==(const CommandLine&) const = default;
};

// A command line that cannot be run; the message has no "computeprof: " prefix.
struct UsageError {
  std::string message;

  bool operator==(const UsageError&) const = default;
};

// An option that stands for one line of the config file: `--kernels vecAdd` is the line
// `kernels vecAdd`. The help lists them from this table.
struct ConfigOption {
  enum class Value { none, required, optional_after_equals };
  std::string_view flag;         // "--kernels"
  std::string_view config_name;  // "kernels"
  Value value;
  std::string_view value_name;   // "SPEC" in the help; empty when there is no value
  std::string_view help;         // one line
};
std::span<const ConfigOption> config_options();

// `args` are the arguments after the program name.
std::variant<CommandLine, UsageError> parse_command_line(std::span<const std::string_view> args);

}  // namespace computeprof::tools
