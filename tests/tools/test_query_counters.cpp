// `computeprof --query-counters`, run as a process: CUPTI's host API, no GPU.
#include "catch.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/counters.hpp"
#include "launcher_process.hpp"
#include "scratch_directory.hpp"

namespace {

using Strings = std::vector<std::string>;

const Strings kEnvironment{"PATH=/usr/bin:/bin"};

Strings lines_of(const std::string& text) {
  Strings lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("query-counters lists every counter with its metric on GH100 by default", "[query_counters]") {
  const LauncherResult result = run_launcher({"--query-counters"}, kEnvironment);
  CHECK(result.exit_code == 0);
  CHECK(result.err.empty());
  const Strings lines = lines_of(result.out);
  REQUIRE(lines.size() == 46);
  CHECK(lines[0] == "counter                  metric                                                      available on GH100");
  CHECK(lines[1] == "local_load               smsp__inst_executed_op_local_ld.sum                         yes");
  CHECK(lines[3] == "gld_request              smsp__inst_executed_op_global_ld.sum                        yes");
  CHECK(lines[5] == "divergent_branch         smsp__sass_branch_targets_threads_divergent.sum             yes");
  CHECK(lines[19] == "l1_global_load_miss      l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum  yes");
  CHECK(lines[34] == "gld_64b                  n/a                                                         no");
  CHECK(lines[45] == "prof_trigger_07          n/a                                                         no");
}

TEST_CASE("query-counters gives the passes of a config on a chip", "[query_counters]") {
  ScratchDirectory directory;
  const std::string config = (directory.path() / "counters.cfg").native();
  std::ofstream(config) << "gld_request\ngst_request\nbranch\ndivergent_branch\ngld_64b\n";
  const LauncherResult result = run_launcher({"--query-counters", "--chip", "TU102", "--config", config}, kEnvironment);
  CHECK(result.exit_code == 0);
  CHECK(result.err.empty());
  const Strings lines = lines_of(result.out);
  REQUIRE(lines.size() == 50);
  CHECK(lines[0] == "counter                  metric                                                      available on TU102");
  CHECK(Strings(lines.end() - 4, lines.end()) == Strings{"", "requested: gld_request gst_request divergent_branch branch gld_64b",
                                                         "no value (n/a): gld_64b", "passes on TU102: 2"});
}

TEST_CASE("query-counters reads COMPUTE_PROFILE_CONFIG and adds --counters", "[query_counters]") {
  ScratchDirectory directory;
  const std::string config = (directory.path() / "counters.cfg").native();
  std::ofstream(config) << "active_cycles\nactive_warps\n";
  Strings environment = kEnvironment;
  environment.push_back("COMPUTE_PROFILE_CONFIG=" + config);
  const LauncherResult result =
      run_launcher({"--query-counters", "--counters", "inst_executed,inst_issued"}, environment);
  CHECK(result.exit_code == 0);
  const Strings lines = lines_of(result.out);
  REQUIRE(lines.size() == 49);
  CHECK(Strings(lines.end() - 2, lines.end()) ==
        Strings{"requested: inst_executed inst_issued active_cycles active_warps", "passes on GH100: 1"});
}

TEST_CASE("query-counters with every counter needs 7 passes on GB100", "[query_counters]") {
  ScratchDirectory directory;
  const std::string config = (directory.path() / "all.cfg").native();
  {
    std::ofstream out(config);
    for (const auto& counter : computeprof::config::legacy_counters()) out << counter.name << '\n';
  }
  const LauncherResult result = run_launcher({"--query-counters", "--chip=GB100", "--config", config}, kEnvironment);
  CHECK(result.exit_code == 0);
  const Strings lines = lines_of(result.out);
  REQUIRE(lines.size() == 50);
  CHECK(lines.back() == "passes on GB100: 7");
  CHECK(lines[lines.size() - 2] ==
        "no value (n/a): gld_incoherent gst_incoherent gld_64b gld_128b gst_64b gst_128b prof_trigger_00 prof_trigger_01 "
        "prof_trigger_02 prof_trigger_03 prof_trigger_04 prof_trigger_05 prof_trigger_06 prof_trigger_07");
}

TEST_CASE("query-counters refuses a chip CUPTI does not know with exit status 2", "[query_counters]") {
  const LauncherResult result = run_launcher({"--query-counters", "--chip", "XY999"}, kEnvironment);
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  const Strings lines = lines_of(result.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].starts_with(
      "computeprof: chip 'XY999': cuptiProfilerHostInitialize failed: CUPTI_ERROR_INVALID_CHIP_NAME (46); chips CUPTI "
      "knows: GV100 GV11B TU102 "));
}

TEST_CASE("query-counters without CUPTI says why with exit status 1", "[query_counters]") {
  const LauncherResult result =
      run_launcher({"--query-counters"}, {"PATH=/usr/bin:/bin", "COMPUTEPROF_CUPTI_LIBRARY=/nonexistent/libcupti.so.13"});
  CHECK(result.exit_code == 1);
  CHECK(result.out.empty());
  CHECK(result.err ==
        "computeprof: libcupti.so.13 not found: /nonexistent/libcupti.so.13: cannot open shared object file: No such "
        "file or directory\n");
}

TEST_CASE("query-counters with an unreadable config exits with status 2", "[query_counters]") {
  const LauncherResult result = run_launcher({"--query-counters", "--config", "/nonexistent/a.cfg"}, kEnvironment);
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK(result.err == "computeprof: cannot read config file '/nonexistent/a.cfg': No such file or directory\n");
}
