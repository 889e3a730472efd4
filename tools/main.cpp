// computeprof: runs a CUDA or OpenCL application with libcomputeprof.so preloaded.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/report.hpp"
#include "tools/command_line.hpp"
#include "tools/export_command.hpp"
#include "tools/launch_error.hpp"
#include "tools/merge_command.hpp"
#include "tools/nvprof_command_line.hpp"
#include "tools/nvprof_run.hpp"
#include "tools/profiled_run.hpp"
#include "tools/report_command.hpp"
#include "tools/query_counters.hpp"
#include "tools/stacks_command.hpp"
#include "tools/stats.hpp"
#include "tools/usage.hpp"

namespace {

constexpr int kUsageErrorExit = 2;

// `computeprof nvprof ...`, or the launcher run under the name nvprof.
int run_as_nvprof(std::span<const std::string_view> args) {
  const auto parsed = computeprof::tools::parse_nvprof_command_line(args);
  if (const auto* error = std::get_if<computeprof::tools::UsageError>(&parsed)) {
    computeprof::config::warn(error->message);
    return kUsageErrorExit;
  }
  try {
    return computeprof::tools::run_nvprof(std::get<computeprof::tools::NvprofOptions>(parsed));
  } catch (const computeprof::tools::LaunchError& error) {
    computeprof::config::warn(error.what());
    return kUsageErrorExit;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using computeprof::tools::CommandLine;
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const std::string_view invoked_as = argc > 0 ? std::string_view(argv[0]) : std::string_view();
  if (invoked_as == "nvprof" || invoked_as.ends_with("/nvprof")) return run_as_nvprof(args);
  if (!args.empty() && args.front() == "nvprof") return run_as_nvprof(std::span(args).subspan(1));
  if (!args.empty() && args.front() == "merge") {
    const auto merge = computeprof::tools::parse_merge_command_line(std::span(args).subspan(1));
    if (const auto* error = std::get_if<computeprof::tools::UsageError>(&merge)) {
      computeprof::config::warn(error->message);
      return kUsageErrorExit;
    }
    return computeprof::tools::merge_traces(std::get<computeprof::tools::MergeOptions>(merge), stdout);
  }
  if (!args.empty() && args.front() == "export") {
    const auto parsed_export = computeprof::tools::parse_export_command_line(std::span(args).subspan(1));
    if (const auto* error = std::get_if<computeprof::tools::UsageError>(&parsed_export)) {
      computeprof::config::warn(error->message);
      return kUsageErrorExit;
    }
    return computeprof::tools::export_runs(std::get<computeprof::tools::ExportOptions>(parsed_export), stdout);
  }
  if (!args.empty() && args.front() == "report") {
    const auto report = computeprof::tools::parse_report_command_line(std::span(args).subspan(1));
    if (const auto* error = std::get_if<computeprof::tools::UsageError>(&report)) {
      computeprof::config::warn(error->message);
      return kUsageErrorExit;
    }
    return computeprof::tools::write_report(std::get<computeprof::tools::ReportOptions>(report));
  }
  const auto parsed = computeprof::tools::parse_command_line(args);
  if (const auto* error = std::get_if<computeprof::tools::UsageError>(&parsed)) {
    computeprof::config::warn(error->message);
    return kUsageErrorExit;
  }

  const CommandLine& command_line = std::get<CommandLine>(parsed);
  switch (command_line.action) {
    case CommandLine::Action::help:
      std::fputs(computeprof::tools::usage_text().c_str(), stdout);
      return 0;
    case CommandLine::Action::version:
      std::puts("computeprof " COMPUTEPROF_VERSION);
      return 0;
    case CommandLine::Action::query_counters: {
      const char* environment_config = std::getenv("COMPUTE_PROFILE_CONFIG");
      return computeprof::tools::query_counters(
          command_line.query, environment_config ? std::optional<std::string>(environment_config) : std::nullopt);
    }
    case CommandLine::Action::stats:
      return computeprof::tools::print_stats(command_line.stats, stdout);
    case CommandLine::Action::stacks:
      return computeprof::tools::print_resolved_stacks(command_line.stacks_file, stdout);
    case CommandLine::Action::run:
      break;
  }
  try {
    return computeprof::tools::run_profiled(command_line.run);
  } catch (const computeprof::tools::LaunchError& error) {
    computeprof::config::warn(error.what());
    return kUsageErrorExit;
  }
}
