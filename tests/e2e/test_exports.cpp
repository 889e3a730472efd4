// export json, export sqlite and summary: from the records the logs get, on every reach
// path, in both timing modes; valid after a flush point even when the process is then
// killed.
#include <sys/wait.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "catch.hpp"

#include "database_query.hpp"
#include "e2e_support.hpp"

using namespace e2e;

namespace {

const char* const kExportConfig = "export json,sqlite\nsummary\nmemtransfersize\nstreamid\n";

// The checker of the trace's structure against the logs (check_trace.py).
std::string check_trace(const std::string& trace, const std::string& log) {
  const CommandOutput r = command_output(std::string(PYTHON3_PATH) + " " + CHECK_TRACE_PATH + " " + trace + " " + log);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  return r.out;
}

std::string field_line(const std::string& text, const std::string& containing) {
  const auto at = text.find(containing);
  if (at == std::string::npos) return "";
  const auto begin = text.rfind('\n', at) + 1;
  return text.substr(begin, text.find('\n', at) - begin);
}

}  // namespace

TEST_CASE("exports: the JSON trace and the database hold the log's records, the summary its totals",
          "[e2e][exports]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "runtime");
  const bool concurrent = GENERATE(false, true);
  INFO("reach " << reach << (concurrent ? ", conckerneltrace" : ", serialized"));
  auto o = profiling(std::string(kExportConfig) + (concurrent ? "conckerneltrace\n" : ""));
  const auto r = run_client(reach, "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string log_path = o.directory + "/compute_profile.log";
  const std::string trace = o.directory + "/compute_profile.json";
  const std::string database = o.directory + "/compute_profile.sqlite";
  const auto log = read_log(log_path);
  REQUIRE(log.records.size() == 8);

  // What is written at exit, then the summary on stderr, nvprof's table; the spins'
  // times are exact with CUPTI.
  CHECK(r.err.starts_with("computeprof: writing compute_profile.json, compute_profile.sqlite from "
                          "'compute_profile.cprof'\n=="));
  CHECK(r.err.find("== Profiling result:\n            Type  Time(%)      Time     Calls       Avg       Min       Max  "
                   "Name\n") != std::string::npos);
  CHECK(field_line(r.err, "spin(unsigned long long)").ends_with(
      "  50.000ms         2  25.000ms  20.000ms  30.000ms  spin(unsigned long long)"));
  CHECK(field_line(r.err, "[CUDA memcpy HtoD]").find("         2  ") != std::string::npos);
  CHECK(field_line(r.err, "[CUDA memset]").find("         1  ") != std::string::npos);

  CHECK(check_trace(trace, log_path).starts_with("trace ok: "));

  // The shape of nsys stats' kernel, memory and API reports.
  CHECK(query(database,
              "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
              "JOIN StringIds s ON s.id = k.demangledName GROUP BY 1 ORDER BY 1") ==
        std::vector<std::string>{
            "spin(unsigned long long)|2|50000000",
            "vecAdd(float const*, float const*, float*, int)|1|" +
                std::to_string(micros_to_ns(log.with_method("_Z6vecAddPKfS0_Pfi")[0].at("gputime")))});
  CHECK(query(database,
              "SELECT '[CUDA memcpy ' || o.label || ']', count(*), sum(m.bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY m "
              "JOIN ENUM_CUDA_MEMCPY_OPER o ON o.id = m.copyKind GROUP BY 1 ORDER BY 1") ==
        std::vector<std::string>{"[CUDA memcpy Device-to-Device]|1|40960", "[CUDA memcpy Device-to-Host]|1|40960",
                                 "[CUDA memcpy Host-to-Device]|2|81920"});
  CHECK(query(database, "SELECT count(*), sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMSET") ==
        std::vector<std::string>{"1|40960"});
  // Every GPU operation joins the call that made it, as nsys's cuda_kern_exec reports join them.
  CHECK(query(database,
              "SELECT count(*) FROM (SELECT correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
              "SELECT correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT correlationId, "
              "globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET) g JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON "
              "g.correlationId = r.correlationId AND g.globalPid = (r.globalTid & 0xFFFFFFFFFF000000)") ==
        std::vector<std::string>{"8"});
  // Their calls, and apitrace's: the module's load, two cuStreamSynchronize, one
  // cuCtxSynchronize, five allocations, five frees.
  CHECK(query(database, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1") ==
        std::vector<std::string>{"22"});
  CHECK(query(database, "SELECT id, name FROM TARGET_INFO_GPU") ==
        std::vector<std::string>{"0|computeprof simulated GPU"});
  CHECK(query(database, "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'") ==
        std::vector<std::string>{"3.16.1"});
  // Kernels by their demangled, base and mangled names.
  CHECK(query(database,
              "SELECT d.value, b.value, m.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON d.id = "
              "k.demangledName JOIN StringIds b ON b.id = k.shortName JOIN StringIds m ON m.id = k.mangledName "
              "GROUP BY 1 ORDER BY 1") ==
        std::vector<std::string>{"spin(unsigned long long)|spin|_Z4spiny",
                                 "vecAdd(float const*, float const*, float*, int)|vecAdd|_Z6vecAddPKfS0_Pfi"});
  // Every table exists, also those this program gives no row.
  CHECK(query(database, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") ==
        std::vector<std::string>{"COMPUTEPROF_CALLCHAIN_SOURCES", "COMPUTEPROF_COUNTERS", "COMPUTEPROF_NVTX_RANGES",
                                 "CUDA_CALLCHAINS", "CUDA_GPU_MEMORY_USAGE_EVENTS",
                                 "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                                 "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                 "ENUM_CUDA_DEV_MEM_EVENT_OPER", "ENUM_CUDA_FUNC_CACHE_CONFIG",
                                 "ENUM_CUDA_KERNEL_LAUNCH_TYPE", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND",
                                 "ENUM_CUPTI_SYNC_TYPE", "ENUM_NSYS_EVENT_CLASS", "META_DATA_EXPORT", "NVTX_EVENTS", "PROCESSES", "StringIds",
                                 "TARGET_INFO_GPU", "TARGET_INFO_SESSION_START_TIME"});
  CHECK(query(database, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS") == std::vector<std::string>{"0"});
  CHECK(query(database, "SELECT count(*) FROM CUDA_CALLCHAINS") == std::vector<std::string>{"0"});
  CHECK(query(database, "SELECT count(*) FROM COMPUTEPROF_CALLCHAIN_SOURCES") == std::vector<std::string>{"0"});
  CHECK(query(database, "SELECT count(*) FROM COMPUTEPROF_COUNTERS") == std::vector<std::string>{"0"});
}

TEST_CASE("exports: a graph launch's nodes are async events in the trace and rows of one call in the database",
          "[e2e][exports]") {
  auto o = profiling("conckerneltrace\nexport json,sqlite\n");
  const auto r = run_client("procaddress", "graph-nodes", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "computeprof: writing compute_profile.json, compute_profile.sqlite from 'compute_profile.cprof'\n");
  const std::string log_path = o.directory + "/compute_profile.log";
  const std::string trace_path = o.directory + "/compute_profile.json";
  REQUIRE(read_log(log_path).records.size() == 6);
  // Metadata, two launch calls, six async pairs, the two allocations and the closing
  // cuStreamSynchronize (apitrace); no flow ends on an async event.
  CHECK(check_trace(trace_path, log_path) == "trace ok: 24 events, 6 GPU events, 0 flows\n");
  const std::string trace = read_file(trace_path);
  const auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (auto at = trace.find(text); at != std::string::npos; at = trace.find(text, at + 1)) ++n;
    return n;
  };
  // Two launches of a memset, a spin and a copy: six async pairs, two launch calls.
  CHECK(count("{\"ph\":\"b\",") == 6);
  CHECK(count("{\"ph\":\"e\",") == 6);
  CHECK(count("\"name\":\"cuGraphLaunch") == 2);
  const std::string database = o.directory + "/compute_profile.sqlite";
  CHECK(query(database,
              "SELECT count(*), count(DISTINCT correlationId) FROM (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL "
              "UNION ALL SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT correlationId FROM "
              "CUPTI_ACTIVITY_KIND_MEMSET)") == std::vector<std::string>{"6|2"});
  CHECK(query(database, "SELECT s.value, count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = "
                        "r.nameId GROUP BY 1") == std::vector<std::string>{"cuGraphLaunch|2", "cuMemAllocHost_v2|1",
                                                                           "cuMemAlloc_v2|1", "cuModuleLoadData|1",
                                                                           "cuStreamSynchronize|1"});
}

TEST_CASE("exports: a counted kernel's counters are rows of COMPUTEPROF_COUNTERS, n/a as NULL", "[e2e][exports]") {
  auto o = profiling("inst_executed\nbranch\nexport sqlite\n");
  const auto r = run_client("linked", "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string database = o.directory + "/compute_profile.sqlite";
  // The simulated driver's CUPTI cannot count: every value of the three kernels is n/a.
  CHECK(query(database,
              "SELECT s.value, count(*), count(c.value), count(DISTINCT c.correlationId) FROM COMPUTEPROF_COUNTERS c "
              "JOIN StringIds s ON s.id = c.nameId GROUP BY 1 ORDER BY 1") ==
        std::vector<std::string>{"branch|3|0|3", "inst_executed|3|0|3"});
  CHECK(query(database, "SELECT count(*) FROM COMPUTEPROF_COUNTERS c JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON "
                        "k.correlationId = c.correlationId") == std::vector<std::string>{"6"});
}

namespace {

// `computeprof export ARGS...` in `directory`.
RunResult run_export(const std::string& directory, std::vector<std::string> args) {
  RunOptions o;
  o.directory = directory;
  o.preload_shim = false;
  o.simulated_driver = false;
  o.argv = {COMPUTEPROF_CLI_PATH, "export"};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  return run(o);
}

}  // namespace

TEST_CASE("exports: a process killed after a flush point leaves a run file that converts to a trace and a database",
          "[e2e][exports]") {
  auto o = profiling("export json,sqlite\n");
  const auto r = run_client("dlsym", "stop-then-kill", o);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 128 + SIGKILL);
  const std::string log_path = o.directory + "/compute_profile.log";
  CHECK(read_log(log_path).records.size() == 2);
  // No export is written while the program runs: only the run file, to its last flush.
  CHECK_FALSE(file_exists(o.directory + "/compute_profile.json"));
  const RunResult e = run_export(o.directory, {"compute_profile.cprof", "--to", "json,sqlite"});
  INFO(e.out << e.err);
  CHECK(e.exit_code == 0);
  CHECK(e.err.empty());
  // The module's load and the allocation before the flush point are API calls (apitrace).
  const std::string holding = "2 operations, 0 NVTX events, 0 memory events, 2 API calls (the run had not ended: "
                              "every record to its last flush point)\n";
  CHECK(e.out == "compute_profile.json: " + holding + "compute_profile.sqlite: " + holding);
  // Never over an existing file without -f.
  const RunResult again = run_export(o.directory, {"compute_profile.cprof", "--to", "json"});
  CHECK(again.exit_code == 1);
  CHECK(again.err == "computeprof: export: 'compute_profile.json' exists; -f overwrites it\n");
  CHECK(run_export(o.directory, {"compute_profile.cprof", "--to", "json", "-f"}).exit_code == 0);
  CHECK(check_trace(o.directory + "/compute_profile.json", log_path).starts_with("trace ok: "));
  const std::string database = o.directory + "/compute_profile.sqlite";
  CHECK(query(database, "PRAGMA integrity_check") == std::vector<std::string>{"ok"});
  CHECK(query(database, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") == std::vector<std::string>{"1"});
  CHECK(query(database, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY") == std::vector<std::string>{"1"});
}

TEST_CASE("exports: json.gz of a run killed after a flush point is a gzip file of a trace that parses, with distributedInfo",
          "[e2e][exports]") {
  auto o = profiling("export json.gz\n");
  o.env["OMPI_COMM_WORLD_RANK"] = "1";
  o.env["OMPI_COMM_WORLD_SIZE"] = "4";
  const auto r = run_client("dlsym", "stop-then-kill", o);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 128 + SIGKILL);
  const std::string log_path = o.directory + "/compute_profile.log";
  const RunResult e = run_export(o.directory, {"compute_profile.cprof", "--to", "json.gz", "-o", "converted"});
  INFO(e.out << e.err);
  CHECK(e.exit_code == 0);
  const std::string trace = o.directory + "/converted.json.gz";
  CHECK(read_log(log_path).records.size() == 2);
  CHECK(std::system(("gzip -t " + trace).c_str()) == 0);
  CHECK(check_trace(trace, log_path).starts_with("trace ok: "));
  const std::string command = std::string(PYTHON3_PATH) +
                              " -c \"import gzip,json,sys; t=json.load(gzip.open(sys.argv[1])); "
                              "print(t['distributedInfo'], t['baseTimeNanoseconds'] > 0, "
                              "t['baseTimeMonotonicNanoseconds'] > 0)\" " + trace;
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p);
  char line[256] = {};
  CHECK(std::fgets(line, sizeof line, p) != nullptr);
  pclose(p);
  CHECK(std::string(line) == "{'rank': 1, 'world_size': 4} True True\n");
}

TEST_CASE("exports: the run file is removed once the exports are made, kept with export cprof, left alone with "
          "exportwhen later",
          "[e2e][exports]") {
  SECTION("exports only") {
    auto o = profiling("export json\n");
    const auto r = run_client("dlsym", "bracket", o);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err == "computeprof: writing compute_profile.json from 'compute_profile.cprof'\n");
    CHECK(file_exists(o.directory + "/compute_profile.json"));
    CHECK_FALSE(file_exists(o.directory + "/compute_profile.cprof"));
  }
  SECTION("export cprof") {
    auto o = profiling("export cprof,json\n");
    const auto r = run_client("dlsym", "bracket", o);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err == "computeprof: writing compute_profile.json from 'compute_profile.cprof'\n");
    CHECK(file_exists(o.directory + "/compute_profile.json"));
    REQUIRE(file_exists(o.directory + "/compute_profile.cprof"));
    // The trace made again from it, over the one made at exit, is that one byte for byte.
    const std::string at_exit = read_file(o.directory + "/compute_profile.json");
    const RunResult e = run_export(o.directory, {"compute_profile.cprof", "--to", "json", "-f"});
    INFO(e.out << e.err);
    CHECK(e.exit_code == 0);
    CHECK(read_file(o.directory + "/compute_profile.json") == at_exit);
  }
  SECTION("exportwhen later") {
    auto o = profiling("export json,sqlite\nexportwhen later\n");
    const auto r = run_client("dlsym", "bracket", o);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // The path as the log template makes it (relative here).
    CHECK(r.err == "computeprof: the run is in 'compute_profile.cprof'; make its exports with: computeprof export "
                   "'compute_profile.cprof' --to json,sqlite\n");
    const std::string run = o.directory + "/compute_profile.cprof";
    CHECK_FALSE(file_exists(o.directory + "/compute_profile.json"));
    CHECK_FALSE(file_exists(o.directory + "/compute_profile.sqlite"));
    const RunResult e = run_export(o.directory, {run, "--to", "json,sqlite"});
    INFO(e.out << e.err);
    CHECK(e.exit_code == 0);
    CHECK(e.out.find("compute_profile.json: ") != std::string::npos);
    // The scenario's module load and allocation (apitrace).
    CHECK(e.out.ends_with("memory events, 2 API calls\n"));
    CHECK(check_trace(o.directory + "/compute_profile.json", o.directory + "/compute_profile.log")
              .starts_with("trace ok: "));
  }
}

TEST_CASE("exports: named after the log template without %d, an unknown format is one warning", "[e2e][exports]") {
  auto o = profiling("export json\nexport parquet\n");
  o.env["COMPUTE_PROFILE_LOG"] = "run_%d_%p.log";
  const auto r = run_client("dlsym", "bracket", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> files = list_directory(o.directory);
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 3);
  CHECK(files[0] == "profile.cfg");
  // run_0_<pid>.log beside run_<pid>.json, the same pid.
  const std::string& log = files[1];
  const std::string& trace = files[2];
  const std::string pid = trace.substr(4, trace.size() - 4 - 5);
  CHECK(trace == "run_" + pid + ".json");
  CHECK(log == "run_0_" + pid + ".log");
  CHECK(pid.find_first_not_of("0123456789") == std::string::npos);
  CHECK(r.err == "computeprof: " + o.directory +
                     "/profile.cfg:2: unknown export format 'parquet' (json, json.gz, pftrace, sqlite, nvprof, cprof), "
                     "ignored\n"
                     "computeprof: writing run_" + pid + ".json from 'run_" + pid + ".cprof'\n");
}
