#include "tools/usage.hpp"

#include <string_view>

#include "config/counters.hpp"
#include "tools/command_line.hpp"

namespace computeprof::tools {
namespace {

constexpr std::string_view kUsage = R"(Usage: computeprof [options] [--] application [arguments...]
       computeprof --query-counters [--chip NAME] [--config FILE]
                   [--counters a,b]
       computeprof stats FILE...
       computeprof --version | --help

Runs the application with libcomputeprof.so preloaded and COMPUTE_PROFILE=1:
every kernel launch and memory copy it makes is a record in the classic
COMPUTE_PROFILE log.

Options:
  --csv               comma-separated log (COMPUTE_PROFILE_CSV=1)
  -o, --output PATH   log path (COMPUTE_PROFILE_LOG); %d device, %p process id,
                      %h host name, %q{NAME} environment variable NAME, %% a %
  --config FILE       options and counters to use (COMPUTE_PROFILE_CONFIG)
  --counters a,b,...  counters to collect, in addition to those of --config
  --query-counters    list each counter, its metric on today's GPUs and whether
                      the chip has it; with --config or --counters, also the
                      passes those counters need (CUPTI, no GPU needed)
  --chip NAME         the chip --query-counters asks about (default GH100)
  --version           print the version
  -h, --help          print this help

@CONFIG_OPTIONS@
stats FILE...: nvprof's summary table of GPU activities from logs (key-value or
CSV, several added together) and databases written with --export sqlite.

Environment:
  COMPUTEPROF_LIBRARY  the libcomputeprof.so to preload; by default, relative to
                       computeprof: the install's library directory, then
                       ../shim (the build tree)
  COMPUTEPROF_CUPTI_LIBRARY
                       the libcupti.so.13 to use; by default the loader's
                       search, then the CUDA toolkit computeprof was built with

Exit status: the application's, or 128 + the number of the signal that ended it;
2 for a usage error, 126 or 127 when the application cannot be run.
--query-counters: 0, 1 when CUPTI cannot be loaded, 2 for a chip CUPTI does not
know or an unreadable config file.

Counters:
)";

constexpr std::size_t kLineWidth = 80;
constexpr std::string_view kIndent = "  ";

// "Config options:" and a line each: the flag, its value, what it asks for.
std::string config_options_text() {
  std::string text = "Config options (each is a line of the config file, added to --config's):\n";
  for (const ConfigOption& option : config_options()) {
    std::string flag = std::string(kIndent).append(option.flag);
    if (!option.value_name.empty()) {
      if (option.value == ConfigOption::Value::required) flag.push_back(' ');
      flag.append(option.value_name);
    }
    constexpr std::size_t kHelpColumn = 22;
    if (flag.size() + 2 > kHelpColumn) {
      text.append(flag).push_back('\n');
      flag.clear();
    }
    flag.resize(kHelpColumn, ' ');
    text.append(flag).append(option.help).push_back('\n');
  }
  return text;
}

}  // namespace

std::string usage_text() {
  std::string text(kUsage);
  text.replace(text.find("@CONFIG_OPTIONS@\n"), std::string_view("@CONFIG_OPTIONS@\n").size(), config_options_text());
  std::string line(kIndent);
  for (const config::LegacyCounter& counter : config::legacy_counters()) {
    if (line.size() > kIndent.size() && line.size() + 1 + counter.name.size() > kLineWidth) {
      text.append(line).push_back('\n');
      line = kIndent;
    }
    if (line.size() > kIndent.size()) line.push_back(' ');
    line.append(counter.name);
  }
  text.append(line).push_back('\n');
  return text;
}

}  // namespace computeprof::tools
