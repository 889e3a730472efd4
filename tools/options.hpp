#pragma once
// Every option of the computeprof command, in one table (the FLAG lines of
// config/options.def): the parser hands it to getopt_long (tools/option_scanner), the
// help lists it (tools/usage), and the man page and the bash completion are written from
// it (tools/option_docs), so that no option is accepted without being listed, or listed
// without being accepted.
#include <span>
#include <string_view>

namespace computeprof::tools {

struct Option {
  // What giving the option does (tools/command_line). Every config option does the same:
  // it adds the line of the config file it stands for.
  enum class Effect { csv, log_path, config_path, counters, query_counters, chip, version, help, config_line };
  enum class Value { none, required, optional_after_equals };
  Effect effect;
  const char* long_name;         // "output" for --output; NUL-terminated for getopt_long
  char short_name;               // 'o' for -o; '\0' for none
  Value value;
  std::string_view value_name;   // "PATH" in the help; empty when there is no value
  std::string_view help;         // the help's text; one line for a config option
  std::string_view config_name;  // the config file line of a config option ("kernels")
};

// The command's own options first, then the config options, in the help's order.
std::span<const Option> options();

}  // namespace computeprof::tools
