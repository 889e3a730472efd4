// NVTX ranges (docs/format.md, "NVTX ranges") on nvtx_client, a program built with the
// header-only NVTX3, so that NVTX's own loader finds the shim (NVTX_INJECTION64_PATH,
// dlopen, the export table), in the program and in the library it loads: the nvtxrange
// column, the trace's events, the database's NVTX_EVENTS, the summary's range table,
// capture windows and bad input.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catch.hpp"

#include "database_query.hpp"
#include "e2e_support.hpp"

using namespace e2e;

namespace {

struct NvtxRun {
  RunResult result;
  ParsedLog log;
  std::string directory;
};

NvtxRun run_nvtx_client(const std::string& scenario, const std::string& config, RunOptions o = profiling("")) {
  if (!config.empty()) o = profiling(config);
  o.argv = {NVTX_CLIENT_PATH, scenario};
  NvtxRun run{e2e::run(o), {}, o.directory};
  INFO(run.result.out << run.result.err);
  REQUIRE(run.result.exit_code == 0);
  REQUIRE(run.result.out.ends_with("PASS\n"));
  run.log = read_log(o.directory + "/compute_profile.log");
  return run;
}

using MethodsAndRanges = std::vector<std::pair<std::string, std::string>>;

MethodsAndRanges methods_and_ranges(const ParsedLog& log) {
  MethodsAndRanges out;
  for (const auto& r : log.records) out.emplace_back(r.at("method"), r.count("nvtxrange") ? r.at("nvtxrange") : "-");
  return out;
}

const MethodsAndRanges kRanges{
    {"memcpyHtoD", ""},
    {"_Z6vecAddPKfS0_Pfi", "ProfilerStep#1"},
    {"_Z4spiny", "ProfilerStep#1/forward"},
    {"_Z8blockSumPKfPfi", "ProfilerStep#1/forward/layer@lib"},
    {"_Z6vecAddPKfS0_Pfi", "ProfilerStep#1"},
    {"_Z6vecAddPKfS0_Pfi", "worker/inner"},
    {"_Z4spiny", "wide-\xc3\xbc"},
    {"memset", "colored"},
};

}  // namespace

TEST_CASE("nvtx: the nvtxrange column holds the push/pop ranges open on the launching thread", "[e2e][nvtx]") {
  SECTION("key-value") {
    const NvtxRun run = run_nvtx_client("ranges", "nvtxrange\n");
    CHECK(methods_and_ranges(run.log) == kRanges);
    CHECK(run.result.err.empty());
  }
  SECTION("CSV") {
    RunOptions o = profiling("nvtxrange\n");
    o.env["COMPUTE_PROFILE_CSV"] = "1";
    const NvtxRun run = run_nvtx_client("ranges", "", o);
    CHECK(run.log.csv);
    CHECK(methods_and_ranges(run.log) == kRanges);
  }
}

TEST_CASE("nvtx: without the option, no column and the same records", "[e2e][nvtx]") {
  const NvtxRun run = run_nvtx_client("ranges", "");
  MethodsAndRanges expected;
  for (const auto& [method, range] : kRanges) expected.emplace_back(method, "-");
  CHECK(methods_and_ranges(run.log) == expected);
  CHECK(run.log.column_line.find("nvtxrange") == std::string::npos);
}

TEST_CASE("nvtx: the shim names itself in NVTX_INJECTION64_PATH; a value the program has is kept", "[e2e][nvtx]") {
  SECTION("unset: the shim's path") {
    const NvtxRun run = run_nvtx_client("ranges", "nvtxrange\n");
    CHECK(printed_value(run.result.out, "nvtx") == SHIM_PATH);
  }
  SECTION("set: kept, one line, ranges not traced") {
    RunOptions o = profiling("nvtxrange\n");
    o.env["NVTX_INJECTION64_PATH"] = "/nonexistent/libothertool.so";
    const NvtxRun run = run_nvtx_client("ranges", "", o);
    CHECK(printed_value(run.result.out, "nvtx") == "/nonexistent/libothertool.so");
    CHECK(run.result.err ==
          "computeprof: NVTX_INJECTION64_PATH is set to '/nonexistent/libothertool.so': that tool holds NVTX, and NVTX "
          "ranges are not traced\n");
    MethodsAndRanges expected;
    for (const auto& [method, range] : kRanges) expected.emplace_back(method, "");
    CHECK(methods_and_ranges(run.log) == expected);
  }
  SECTION("profiling off: nothing set") {
    RunOptions o;
    o.directory = make_scratch_directory();
    o.argv = {NVTX_CLIENT_PATH, "ranges"};
    const RunResult result = e2e::run(o);
    REQUIRE(result.exit_code == 0);
    CHECK(printed_value(result.out, "nvtx") == "(unset)");
  }
}

TEST_CASE("nvtx: capture windows profile what is issued inside the named range", "[e2e][nvtx]") {
  const Methods vec_adds_2{"_Z6vecAddPKfS0_Pfi", "_Z6vecAddPKfS0_Pfi"};
  SECTION("stop: the first instance") {
    const NvtxRun run = run_nvtx_client("iterations", "nvtxrange\ncapturerange nvtx iter\n");
    CHECK(methods_and_ranges(run.log) == MethodsAndRanges{{"_Z6vecAddPKfS0_Pfi", "iter"}});
    CHECK(run.result.err.empty());
  }
  SECTION("repeat:2") {
    const NvtxRun run = run_nvtx_client("iterations", "capturerange nvtx iter\ncapturerangeend repeat:2\n");
    CHECK(methods(run.log) == vec_adds_2);
  }
  SECTION("with the kernel filters: the window first, then launchskip") {
    const NvtxRun run =
        run_nvtx_client("iterations", "capturerange nvtx:other\ncapturerangeend repeat:3\nkernels regex:.\n"
                                      "kernelfilterscope all\nlaunchskip 1\n");
    CHECK(methods(run.log) == Methods{"_Z4spiny", "_Z4spiny"});
  }
  SECTION("a name never seen: nothing profiled, one line at exit") {
    RunOptions o = profiling("capturerange nvtx nothere@nodomain\n");
    o.argv = {NVTX_CLIENT_PATH, "iterations"};
    const RunResult result = e2e::run(o);
    REQUIRE(result.exit_code == 0);
    CHECK_FALSE(file_exists(o.directory + "/compute_profile.log"));
    CHECK(result.err ==
          "computeprof: capturerange: no NVTX range 'nothere' of domain 'nodomain' was opened; nothing was profiled\n");
  }
}

TEST_CASE("nvtx: hostile messages and misuse are bounded, escaped, said once, and never crash", "[e2e][nvtx]") {
  const NvtxRun run = run_nvtx_client("hostile", "nvtxrange\n");
  CHECK(methods_and_ranges(run.log) ==
        MethodsAndRanges{{"_Z6vecAddPKfS0_Pfi", "left open@doomed/bad \xef\xbf\xbd\xef\xbf\xbd utf8, \"quoted\"  "}});
  CHECK(run.result.err ==
        "computeprof: an NVTX message longer than 256 bytes was cut to its first 256 (and so is any other)\n"
        "computeprof: an NVTX range was popped that was not pushed on its thread (and domain); that pop and any other "
        "are left out\n"
        "computeprof: an NVTX range was ended that was not started, or was ended already; that end and any other are "
        "left out\n");
}
