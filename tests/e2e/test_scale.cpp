// Exact counts at scale: a million launches under conckerneltrace with every export at
// once (fewer under the sanitizers, the count in the test's name), each kernel once in
// the classic log, the JSON trace, its gzip twin, the Perfetto trace and both
// databases, joined to its call.
// Counts, not bytes: the files are read as their readers read them (docs/format.md).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "catch.hpp"

#include "database_query.hpp"
#include "e2e_support.hpp"
#include "pftrace_check.hpp"
#include "tools/json_trace_reader.hpp"

using namespace e2e;
using pftrace_check::check_pftrace;
using pftrace_check::PftraceSummary;

namespace {

// A sanitizer makes each launch tens of times dearer; the checks stay exact.
#ifdef COMPUTEPROF_E2E_SANITIZED
constexpr long kLaunches = 50'000;
#define SCALE_LAUNCHES "50,000"
#else
constexpr long kLaunches = 1'000'000;
#define SCALE_LAUNCHES "1,000,000"
#endif

// The classic log's records: every line after the column line (the first that is not
// a '#' line) that is not a '#' line.
struct LogCounts {
  long records = 0;
  long spins = 0;  // records of the launched kernel
};

LogCounts count_log(const std::string& path) {
  LogCounts c;
  std::ifstream in(path);
  bool columns_seen = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("#")) continue;
    if (!columns_seen) {
      columns_seen = true;
      continue;
    }
    ++c.records;
    if (line.starts_with("method=[ _Z4spiny ] ")) ++c.spins;
  }
  return c;
}

// The trace's events by kind, with what joins them: each kernel's and each call's
// correlation argument, each flow start's and end's id.
struct TraceCounts {
  long kernels = 0;
  long calls = 0;
  long synchronizations = 0;  // apitrace's closing cuCtxSynchronize
  long module_loads = 0;      // ... and the program's cuModuleLoadData
  long flow_starts = 0;
  long flow_ends = 0;
  long metadata = 0;
  long other = 0;
  std::vector<std::int64_t> kernel_correlations, call_correlations, start_ids, end_ids;
};

std::int64_t argument(const computeprof::tools::JsonValue& event, const char* key) {
  const auto* args = event.find("args");
  const auto* value = args ? args->find(key) : nullptr;
  return value ? value->integer().value_or(-1) : -1;
}

TraceCounts count_trace(const std::string& path) {
  TraceCounts c;
  computeprof::tools::JsonTraceReader::open(path).read([&](const computeprof::tools::JsonValue& e) {
    const auto ph = e.string_member("ph").value_or("");
    const auto cat = e.string_member("cat").value_or("");
    if (ph == "X" && cat == "kernel" && e.string_member("name") == "spin(unsigned long long)") {
      ++c.kernels;
      c.kernel_correlations.push_back(argument(e, "correlation"));
    } else if (ph == "X" && cat == "cuda_driver" && e.string_member("name") == "cuLaunchKernel") {
      ++c.calls;
      c.call_correlations.push_back(argument(e, "correlation"));
    } else if (ph == "X" && cat == "cuda_driver" && e.string_member("name") == "cuCtxSynchronize") {
      ++c.synchronizations;
    } else if (ph == "X" && cat == "cuda_driver" && e.string_member("name") == "cuModuleLoadData") {
      ++c.module_loads;
    } else if (ph == "s" && cat == "ac2g") {
      ++c.flow_starts;
      c.start_ids.push_back(e.find("id") ? e.find("id")->integer().value_or(-1) : -1);
    } else if (ph == "f" && cat == "ac2g") {
      ++c.flow_ends;
      c.end_ids.push_back(e.find("id") ? e.find("id")->integer().value_or(-1) : -1);
    } else if (ph == "M") {
      ++c.metadata;
    } else {
      ++c.other;
    }
  });
  return c;
}

// Sorted, and no value twice.
bool sorted_distinct(std::vector<std::int64_t>& v) {
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}

void check_trace_counts(const std::string& path) {
  INFO(path);
  TraceCounts c = count_trace(path);
  CHECK(c.kernels == kLaunches);
  CHECK(c.calls == kLaunches);
  CHECK(c.synchronizations == 1);
  CHECK(c.module_loads == 1);
  CHECK(c.flow_starts == kLaunches);
  CHECK(c.flow_ends == kLaunches);
  CHECK(c.other == 0);
  CHECK(c.metadata > 0);
  // Each kernel names one call and each call one kernel; each flow starts once and ends once.
  CHECK(sorted_distinct(c.kernel_correlations));
  CHECK(sorted_distinct(c.call_correlations));
  CHECK(c.kernel_correlations == c.call_correlations);
  CHECK(sorted_distinct(c.start_ids));
  CHECK(sorted_distinct(c.end_ids));
  CHECK(c.start_ids == c.end_ids);
}

// The Perfetto trace: each launch a kernel slice, a call slice and the flow between
// them, nothing else but the module's load and the closing synchronization; its bytes a launch, uncompressed, bounded (docs/format.md,
// "Perfetto trace": what a launch costs, field by field).
constexpr std::uintmax_t kPftraceBytesPerLaunch = 140;

void check_pftrace_counts(const std::string& path) {
  INFO(path);
  const PftraceSummary s = check_pftrace(path);
  CHECK(s.problems == std::vector<std::string>{});
  CHECK(s.slices_by_name == std::map<std::string, long>{{"cuCtxSynchronize", 1},
                                                         {"cuLaunchKernel", kLaunches},
                                                         {"cuModuleLoadData", 1},
                                                         {"spin(unsigned long long)", kLaunches}});
  CHECK(s.flows == kLaunches);
  CHECK(s.instants_by_name.empty());
  CHECK(s.counters == 0);
  CHECK(s.bytes <= kPftraceBytesPerLaunch * kLaunches);
}

std::string count(const std::string& database, const std::string& sql) {
  const auto rows = query(database, sql);
  return rows.size() == 1 ? rows.front() : "rows: " + std::to_string(rows.size());
}

// `kernels` holds one row per launch and `calls` one per launch, the module's load and
// the closing synchronization (apitrace), and the kernels join the calls one to one on correlationId.
void check_database_counts(const std::string& database, const std::string& kernels, const std::string& calls) {
  INFO(database);
  const std::string n = std::to_string(kLaunches);
  const std::string n_calls = std::to_string(kLaunches + 2);
  CHECK(count(database, "SELECT count(*) FROM " + kernels) == n);
  CHECK(count(database, "SELECT count(*) FROM " + calls) == n_calls);
  CHECK(count(database, "SELECT count(DISTINCT correlationId) FROM " + kernels) == n);
  CHECK(count(database, "SELECT count(DISTINCT correlationId) FROM " + calls) == n_calls);
  CHECK(count(database, "SELECT count(*) FROM " + kernels + " k JOIN " + calls +
                            " c ON c.correlationId = k.correlationId") == n);
}

// Every export of the run, each kernel and call exactly once.
void check_exports(const std::string& directory) {
  check_trace_counts(directory + "/compute_profile.json");
  const std::string gz = directory + "/compute_profile.json.gz";
  CHECK(command_output("gzip -t " + gz).exit_code == 0);
  check_trace_counts(gz);
  check_pftrace_counts(directory + "/compute_profile.pftrace");

  check_database_counts(directory + "/compute_profile.sqlite", "CUPTI_ACTIVITY_KIND_KERNEL",
                        "CUPTI_ACTIVITY_KIND_RUNTIME");
  // A program calling the driver itself: its calls are DRIVER rows (docs/format.md).
  const std::string nvvp = directory + "/compute_profile.nvvp";
  check_database_counts(nvvp, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_DRIVER");
  CHECK(count(nvvp, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME") == "0");
}

}  // namespace

TEST_CASE("scale: " SCALE_LAUNCHES " launches under conckerneltrace and export json,json.gz,pftrace,sqlite,nvprof, "
          "each kernel and call counted exactly in every file, made at exit and again by computeprof export",
          "[e2e][exports][scale]") {
  auto o = profiling("conckerneltrace\nexport json,json.gz,pftrace,sqlite,nvprof,cprof\n");
  // Kernels that take the simulated GPU no time: the launches' cost is the profiler's.
  o.env["SIMCUDA_LAUNCH_LATENCY_NS"] = "0";
  o.timeout_seconds = 600;
  const auto r = run_client("linked", "launches-" + std::to_string(kLaunches), o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out == "launched " + std::to_string(kLaunches) + "\nPASS\n");

  const LogCounts log = count_log(o.directory + "/compute_profile.log");
  CHECK(log.records == kLaunches);
  CHECK(log.spins == kLaunches);
  check_exports(o.directory);

  // The run file kept (export cprof): at most 48 bytes a launch, and the same exports
  // made from it offline.
  const std::string run = o.directory + "/compute_profile.cprof";
  CHECK(std::filesystem::file_size(run) <= 48 * kLaunches);
  RunOptions e;
  e.directory = o.directory;
  e.preload_shim = false;
  e.simulated_driver = false;
  e.timeout_seconds = 600;
  e.argv = {COMPUTEPROF_CLI_PATH, "export", run, "--to", "json,json.gz,pftrace,sqlite,nvprof", "-f"};
  const RunResult converted = e2e::run(e);
  INFO(converted.out << converted.err);
  REQUIRE(converted.exit_code == 0);
  // The traces' size said, as at exit, in the order their threads reached it; nothing else.
  const std::string too_many = " has more than 1000000 events: Perfetto UI and chrome://tracing may not open it "
                               "(Perfetto's trace_processor can)\n";
  const std::string plain = "computeprof: the JSON trace '" + o.directory + "/compute_profile.json'" + too_many;
  const std::string gzip = "computeprof: the JSON trace '" + o.directory + "/compute_profile.json.gz'" + too_many;
  // Four events a launch (its kernel, its call, the flow's two ends): past the viewers'
  // limit only at a full scale, not a sanitizer build's.
  if (4 * kLaunches > 1'000'000) {
    CHECK((converted.err == plain + gzip || converted.err == gzip + plain));
  } else {
    CHECK(converted.err.empty());
  }
  // The API calls: the module's load and the closing synchronization.
  std::string expected_out;
  for (const char* file : {"json", "json.gz", "pftrace", "sqlite", "nvvp"}) {
    expected_out += o.directory + "/compute_profile." + file + ": " + std::to_string(kLaunches) +
                    " operations, 0 NVTX events, 0 memory events, 2 API calls\n";
  }
  CHECK(converted.out == expected_out);
  check_exports(o.directory);

  // A gigabyte of files: not left in the build tree.
  std::filesystem::remove_all(o.directory);
}
