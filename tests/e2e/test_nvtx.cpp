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
#include "reports/summary_table.hpp"
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

TEST_CASE("nvtx: the shim names itself in NVTX_INJECTION64_PATH, and a value the program has is kept", "[e2e][nvtx]") {
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

namespace {

std::string checked_output(const std::string& command) {
  const CommandOutput r = command_output(command);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  return r.out;
}

// The line of `text` that ends with `name`.
std::string line_ending_with(const std::string& text, const std::string& name) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    const std::string line = text.substr(begin, end - begin);
    if (line.ends_with("  " + name)) return line;
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return "";
}

// The instances and GPU time columns of a range's summary row.
std::pair<std::string, std::string> instances_and_gpu_time(const std::string& table, const std::string& name) {
  const std::string line = line_ending_with(table, name);
  std::vector<std::string> words;
  std::size_t at = 0;
  while (at < line.size() && words.size() < 6) {
    at = line.find_first_not_of(' ', at);
    if (at == std::string::npos) break;
    const std::size_t end = line.find(' ', at);
    words.push_back(line.substr(at, end - at));
    at = end;
  }
  if (words.size() < 6) return {};
  return {words[0], words[5]};
}

}  // namespace

TEST_CASE("nvtx: the trace's user_annotation events, the database's NVTX_EVENTS, the summary's range table",
          "[e2e][nvtx][exports]") {
  const NvtxRun run = run_nvtx_client("ranges", "export json,sqlite\nsummary\n");
  const std::string trace = run.directory + "/compute_profile.json";
  const std::string database = run.directory + "/compute_profile.sqlite";

  CHECK(checked_output(std::string(PYTHON3_PATH) + " " + TRACE_RANGES_PATH + " " + trace) ==
        "X ProfilerStep#1 path=ProfilerStep#1\n"
        "X forward path=ProfilerStep#1/forward\n"
        "X layer@lib domain=lib path=ProfilerStep#1/forward/layer@lib\n"
        "b async\n"
        "X worker path=worker\n"
        "X inner path=worker/inner\n"
        "e async other thread\n"
        "X wide-\xc3\xbc path=wide-\xc3\xbc\n"
        "X colored category=1 color=0xff00ff00 path=colored payload=7\n"
        "i done\n"
        "gpu Memcpy HtoD (Pageable -> Device) -\n"
        "gpu vecAdd(float const*, float const*, float*, int) ProfilerStep#1\n"
        "gpu spin(unsigned long long) ProfilerStep#1/forward\n"
        "gpu blockSum(float const*, float*, int) ProfilerStep#1/forward/layer@lib\n"
        "gpu vecAdd(float const*, float const*, float*, int) ProfilerStep#1\n"
        "gpu vecAdd(float const*, float const*, float*, int) worker/inner\n"
        "gpu spin(unsigned long long) wide-\xc3\xbc\n"
        "gpu Memset (Device) colored\n");

  // nsys's eventType codes: 33 category, 34 mark, 39 thread, 59 push/pop, 60 start/end,
  // 75 domain created.
  CHECK(query(database,
              "SELECT eventType, text, COALESCE(domainId, '-'), COALESCE(category, '-'), COALESCE(color, '-'), "
              "COALESCE(uint64Value, '-'), rangeId IS NOT NULL, end IS NOT NULL, globalTid = endGlobalTid "
              "FROM NVTX_EVENTS ORDER BY start, eventType") ==
        std::vector<std::string>{"39|main|-|-|-|-|0|0|NULL",
                                 "33|cat-one|-|1|-|-|0|0|NULL",
                                 "59|ProfilerStep#1|-|-|-|-|0|1|1",
                                 "59|forward|-|-|-|-|0|1|1",
                                 "75|lib|1|-|-|-|0|0|NULL",
                                 "59|layer|1|-|-|-|0|1|1",
                                 "60|async|-|-|-|-|1|1|0",
                                 "39|worker|-|-|-|-|0|0|NULL",
                                 "59|worker|-|-|-|-|0|1|1",
                                 "59|inner|-|-|-|-|0|1|1",
                                 "59|wide-\xc3\xbc|-|-|-|-|0|1|1",
                                 "59|colored|-|1|4278255360|7|0|1|1",
                                 "34|done|-|-|-|-|0|0|NULL"});
  // The range path of each operation, by its call's correlation id.
  CHECK(query(database,
              "SELECT s.value, count(*) FROM COMPUTEPROF_NVTX_RANGES r JOIN StringIds s ON s.id = r.pathId "
              "JOIN CUPTI_ACTIVITY_KIND_RUNTIME c ON c.correlationId = r.correlationId GROUP BY 1 ORDER BY 1") ==
        std::vector<std::string>{"ProfilerStep#1|2", "ProfilerStep#1/forward|1", "ProfilerStep#1/forward/layer@lib|1",
                                 "colored|1", "wide-\xc3\xbc|1", "worker/inner|1"});

  // The summary's second table: instances, and the GPU time of what was issued inside
  // (the log's gputimes: ProfilerStep#1 holds four kernels).
  const std::string& err = run.result.err;
  REQUIRE(err.find("== NVTX ranges:\nInstances      Time       Avg       Min       Max  GPU time  Name\n") !=
          std::string::npos);
  std::uint64_t step_gpu = 0, forward_gpu = 0;
  const auto& records = run.log.records;
  REQUIRE(records.size() == 8);
  for (std::size_t i = 1; i <= 4; ++i) step_gpu += micros_to_ns(records[i].at("gputime"));
  for (std::size_t i = 2; i <= 3; ++i) forward_gpu += micros_to_ns(records[i].at("gputime"));
  // Up to the GPU idle table, which a database does not give (it holds no API call).
  const std::size_t idle = err.find("== GPU idle (device ");
  const std::size_t range_start = err.find("== NVTX ranges:\n") + 3;
  const std::size_t range_end = idle == std::string::npos ? err.size() : err.rfind('\n', idle) + 1;
  const std::string range_table = err.substr(range_start, range_end - range_start);
  const std::pair<std::string, std::string> one_instance_of_step{"1", computeprof::reports::format_summary_duration(step_gpu)};
  CHECK(instances_and_gpu_time(range_table, "ProfilerStep#1") == one_instance_of_step);
  CHECK(instances_and_gpu_time(range_table, "forward").second ==
        computeprof::reports::format_summary_duration(forward_gpu));
  for (const char* name : {"forward", "layer@lib", "async", "worker", "inner", "wide-\xc3\xbc", "colored"}) {
    INFO(name);
    CHECK(instances_and_gpu_time(range_table, name).first == "1");
  }
  CHECK(instances_and_gpu_time(range_table, "async").second == "0ns");  // start/end: not on a thread's path

  // computeprof stats on the database: the same range table.
  const std::string stats = checked_output(std::string(COMPUTEPROF_CLI_PATH) + " stats " + database);
  REQUIRE(stats.find("NVTX ranges:\n") != std::string::npos);
  CHECK(stats.substr(stats.find("NVTX ranges:\n")) == range_table.substr(range_table.find("NVTX ranges:\n")));
}

TEST_CASE("nvtx: the computeprof command names the shim for NVTX and takes --capture-range", "[e2e][nvtx]") {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  if (!std::string_view(SANITIZER_PRELOAD).empty()) o.env["LD_PRELOAD"] = SANITIZER_PRELOAD;
  o.argv = {COMPUTEPROF_CLI_PATH, "--capture-range", "nvtx:iter", "--capture-range-end", "repeat:2",
            NVTX_CLIENT_PATH,     "iterations"};
  const RunResult r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(printed_value(r.out, "nvtx") == SHIM_PATH);
  CHECK(methods(read_log(o.directory + "/compute_profile.log")) ==
        Methods{"_Z6vecAddPKfS0_Pfi", "_Z6vecAddPKfS0_Pfi"});
}
