// computeprof nvprof's command line: nvprof's options, their values, the application,
// and one error naming an option it does not take.
#include "catch.hpp"

#include <initializer_list>
#include <string_view>
#include <vector>

#include "tools/nvprof_command_line.hpp"

using computeprof::reports::NvprofTimeUnit;
using computeprof::tools::NvprofOptions;
using computeprof::tools::UsageError;

namespace {

std::variant<NvprofOptions, UsageError> parse(std::initializer_list<std::string_view> args) {
  const std::vector<std::string_view> list(args);
  return computeprof::tools::parse_nvprof_command_line(list);
}

NvprofOptions parsed(std::initializer_list<std::string_view> args) {
  const auto result = parse(args);
  if (const auto* e = std::get_if<UsageError>(&result)) FAIL(e->message);
  return std::get<NvprofOptions>(result);
}

std::string error(std::initializer_list<std::string_view> args) {
  const auto result = parse(args);
  REQUIRE(std::holds_alternative<UsageError>(result));
  return std::get<UsageError>(result).message;
}

const std::string kSee = " (see docs/format.md, \"computeprof nvprof\")";

}  // namespace

TEST_CASE("nvprof command line: the defaults and the application's own arguments", "[nvprof]") {
  const auto o = parsed({"./app", "--csv", "-o", "x"});
  CHECK(o.command == std::vector<std::string>{"./app", "--csv", "-o", "x"});
  CHECK_FALSE(o.csv);
  CHECK_FALSE(o.export_profile);
  CHECK(o.concurrent_kernels);
  CHECK(o.profile_from_start);
  CHECK(o.unit == NvprofTimeUnit::automatic);
  CHECK(parsed({"--", "-app-"}).command == std::vector<std::string>{"-app-"});
}

TEST_CASE("nvprof command line: every option nvprof users type", "[nvprof]") {
  const auto o = parsed({"-o", "prof.%p.nvvp", "--log-file", "log_%h.txt", "--csv", "--print-gpu-trace",
                         "--print-api-trace", "--print-gpu-summary", "--print-api-summary", "--profile-from-start",
                         "off", "--kernels", "::vecAdd:1", "--events", "inst_executed,branch", "--metrics=gld_request",
                         "--concurrent-kernels", "off", "-u", "ms", "--quiet", "--profile-child-processes",
                         "--openacc-profiling", "off", "-f", "python", "train.py"});
  CHECK(o.export_profile == "prof.%p.nvvp");
  CHECK(o.log_file == "log_%h.txt");
  CHECK(o.csv);
  CHECK(o.gpu_trace);
  CHECK(o.api_trace);
  CHECK(o.gpu_summary);
  CHECK(o.api_summary);
  CHECK_FALSE(o.profile_from_start);
  CHECK(o.kernels == std::vector<std::string>{"::vecAdd:1"});
  CHECK(o.counters == std::vector<std::string>{"inst_executed", "branch", "gld_request"});
  CHECK_FALSE(o.concurrent_kernels);
  CHECK(o.unit == NvprofTimeUnit::ms);
  CHECK(o.quiet);
  CHECK(o.child_processes);
  CHECK(o.force_overwrite);
  CHECK(o.command == std::vector<std::string>{"python", "train.py"});
  CHECK(parsed({"--export-profile=a.nvvp", "-u", "col", "app"}).export_profile == "a.nvvp");
  CHECK(parsed({"--normalized-time-unit", "col", "app"}).unit == NvprofTimeUnit::column);
}

TEST_CASE("nvprof command line: one error naming what is wrong", "[nvprof]") {
  CHECK(error({"--analysis-metrics", "app"}) == "nvprof: option '--analysis-metrics' is not supported" + kSee);
  CHECK(error({"--unified-memory-profiling", "per-process-device", "app"}) ==
        "nvprof: option '--unified-memory-profiling' is not supported" + kSee);
  CHECK(error({"--openacc-profiling", "on", "app"}) == "nvprof: --openacc-profiling on is not supported" + kSee);
  CHECK(error({"-u", "minutes", "app"}) == "nvprof: option '-u' takes s, ms, us, ns, col or auto, not 'minutes'" + kSee);
  CHECK(error({"--concurrent-kernels", "maybe", "app"}) ==
        "nvprof: option '--concurrent-kernels' takes on or off, not 'maybe'" + kSee);
  CHECK(error({"--csv=yes", "app"}) == "nvprof: option '--csv' takes no value" + kSee);
  CHECK(error({"-o"}) == "nvprof: option '-o' needs a value" + kSee);
  CHECK(error({"--print-gpu-trace"}) == "nvprof: no application to profile" + kSee);
}
