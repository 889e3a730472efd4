#pragma once
// `computeprof nvprof [nvprof options] app args` (and the launcher run as `nvprof`): the
// options nvprof users type (docs/format.md, "computeprof nvprof"), parsed without
// running anything. An option nvprof had and computeprof does not is an error naming it.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "reports/nvprof_report.hpp"
#include "tools/usage_error.hpp"

namespace computeprof::tools {

struct NvprofOptions {
  std::optional<std::string> export_profile;  // -o/--export-profile: %p %h %q{ENV}
  std::optional<std::string> log_file;        // --log-file: nvprof's output there, not stderr
  bool csv = false;
  bool gpu_trace = false;    // --print-gpu-trace
  bool api_trace = false;    // --print-api-trace
  bool gpu_summary = false;  // --print-gpu-summary
  bool api_summary = false;  // --print-api-summary
  bool quiet = false;
  bool child_processes = false;     // --profile-child-processes
  bool force_overwrite = false;     // -f
  bool profile_from_start = true;   // --profile-from-start off
  bool concurrent_kernels = true;   // --concurrent-kernels off
  std::vector<std::string> kernels;   // --kernels SPEC, each a config line's value
  std::vector<std::string> counters;  // --events, --metrics: legacy counter names
  reports::NvprofTimeUnit unit = reports::NvprofTimeUnit::automatic;  // -u
  std::vector<std::string> command;   // the application and its arguments, never empty

  bool operator==(const NvprofOptions&) const = default;
};

// `args` are the arguments after "nvprof" (or after the program name, run as nvprof).
std::variant<NvprofOptions, UsageError> parse_nvprof_command_line(std::span<const std::string_view> args);

}  // namespace computeprof::tools
