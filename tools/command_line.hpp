#pragma once
// The computeprof command line, parsed without reading or running anything:
//   computeprof [--csv] [-o PATH] [--config FILE] [--counters a,b,...] [config options] [--] app args...
//   computeprof --query-counters [--chip NAME] [--config FILE] [--counters a,b,...]
//   computeprof stats [--ranks | --compare] [options] FILE... (tools/stats_command_line.hpp)
//   computeprof stacks FILE.stacks
//   computeprof --version | --help
// The config options (--export, --kernels, ...) are the config file's lines as flags.
// Every option is a row of the table in tools/options.cpp.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tools/stats.hpp"
#include "tools/usage_error.hpp"

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
  enum class Action { run, query_counters, stats, stacks, help, version };
  Action action = Action::run;
  RunOptions run;                       // only meaningful for Action::run
  QueryOptions query;                   // only meaningful for Action::query_counters
  StatsOptions stats;                   // only meaningful for Action::stats
  std::string stacks_file;              // only meaningful for Action::stacks

  bool operator==(const CommandLine&) const = default;
};

// `args` are the arguments after the program name. Not thread-safe: getopt_long's state
// is global.
std::variant<CommandLine, UsageError> parse_command_line(std::span<const std::string_view> args);

}  // namespace computeprof::tools
