// apitrace (docs/format.md, "API calls"): the calls that wait for the GPU or mark its
// streams, with what they named, in the trace and both databases, on every reach path,
// in both timing modes; not with the classic log alone, nor with `apitrace off`. The
// summary's API rows at exit and from `stats` on every file of the run.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"

#include "database_query.hpp"
#include "e2e_support.hpp"
#include "runfile/file_bytes.hpp"
#include "runfile/run_reader.hpp"

using namespace e2e;
using namespace computeprof;

namespace {

// The trace's API calls as trace_api_calls.py prints them; `waits`: with whether each
// synchronization waited for the kernel running when it was called.
std::string api_calls_in_trace(const std::string& trace, bool waits = false) {
  const CommandOutput r = command_output(std::string(PYTHON3_PATH) + " " + TRACE_API_CALLS_PATH +
                                         (waits ? " " : " --no-waits ") + trace);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  return r.out;
}

// A call name's calls, total, shortest and longest time (ns) and errors.
struct CallTotals {
  std::uint64_t calls = 0, total_ns = 0, min_ns = 0, max_ns = 0, errors = 0;
  void add(std::uint64_t ns, bool failed) {
    min_ns = calls == 0 ? ns : std::min(min_ns, ns);
    max_ns = std::max(max_ns, ns);
    total_ns += ns;
    ++calls;
    if (failed) ++errors;
  }
  bool operator==(const CallTotals&) const = default;
};
using CallTable = std::map<std::string, CallTotals>;

// The run file's calls, added up here: each operation's call (one per correlation id)
// and each traced call.
class CallsVisitor final : public runfile::RunVisitor {
 public:
  explicit CallsVisitor(CallTable& calls) : calls_(calls) {}
  void operation(const records::ContextInfo&, const records::Record& r) override {
    if (r.correlation_id != 0 && r.correlation_id == last_correlation_) return;
    last_correlation_ = r.correlation_id;
    calls_[std::string(r.api)].add(r.cputime_ns, false);
  }
  void api_call(const records::ApiCall& call) override {
    calls_[std::string(call.name)].add(call.end_ns - call.start_ns, call.result != 0);
  }

 private:
  CallTable& calls_;
  std::uint64_t last_correlation_ = 0;
};

CallTable calls_in_run_file(const std::string& path) {
  std::string why;
  const auto bytes = runfile::read_file_bytes(path, why);
  INFO(why);
  REQUIRE(bytes);
  runfile::RunReader reader(*bytes);
  CallTable calls;
  CallsVisitor visitor(calls);
  REQUIRE_FALSE(reader.read(visitor).error);
  return calls;
}

RunResult stats_of(const std::vector<std::string>& args) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  o.simulated_driver = false;
  o.argv = {COMPUTEPROF_CLI_PATH, "stats"};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  return run(o);
}

// The api_calls table of `stats --format csv` output.
CallTable api_calls_in_csv(const std::string& csv) {
  const std::string columns = "time_percent,time_ns,calls,avg_ns,min_ns,max_ns,errors,name\n";
  const std::size_t at = csv.find("\n\n" + columns);
  REQUIRE(at != std::string::npos);
  std::istringstream rows(csv.substr(at + 2 + columns.size()));
  CallTable calls;
  for (std::string line; std::getline(rows, line) && !line.empty();) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    REQUIRE(fields.size() == 8);
    calls[fields[7]] = {std::stoull(fields[2]), std::stoull(fields[1]), std::stoull(fields[4]),
                        std::stoull(fields[5]), std::stoull(fields[6])};
  }
  return calls;
}

// The summary's table (GPU activities and API calls) in `text`, without the "==<pid>== "
// prefix, up to the tables that follow it.
std::string summary_table(const std::string& text) {
  std::size_t start = text.find("Profiling result:\n");
  REQUIRE(start != std::string::npos);
  start = text.rfind('\n', start) == std::string::npos ? 0 : text.rfind('\n', start) + 1;
  std::string table;
  std::istringstream lines(text.substr(start));
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("==")) line = line.substr(line.find("== ") + 3);
    if (!table.empty() && !line.starts_with(" ")) break;
    table += line + "\n";
  }
  return table;
}

}  // namespace

TEST_CASE("apitrace: the summary's API rows at exit and from stats on the run file, both databases and the trace",
          "[e2e][apitrace][api_calls]") {
  auto o = profiling("export cprof,json,sqlite,nvprof\nsummary\n");
  const auto r = run_client("linked", "host-waits", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // Two launches and the six traced calls (the module's load among them), none failed, at the run file's own times.
  const CallTable expected = calls_in_run_file(o.directory + "/compute_profile.cprof");
  std::string counts;
  for (const auto& [name, t] : expected) {
    counts += name + " " + std::to_string(t.calls) + " " + std::to_string(t.errors) + "\n";
  }
  CHECK(counts ==
        "cuCtxSynchronize 1 0\ncuEventRecord 1 0\ncuEventSynchronize 1 0\ncuLaunchKernel 2 0\n"
        "cuModuleLoadData 1 0\ncuStreamSynchronize 1 0\ncuStreamWaitEvent 1 0\n");
  const std::string at_exit = summary_table(r.err);
  CHECK(at_exit.find("\n      API calls: ") != std::string::npos);
  // The driver's entry points are nvprof's names too: every file gives the table printed
  // at exit, and the same calls and nanoseconds.
  for (const std::string file : {"compute_profile.cprof", "compute_profile.sqlite", "compute_profile.nvvp",
                                 "compute_profile.json"}) {
    INFO(file);
    const RunResult text = stats_of({o.directory + "/" + file});
    INFO(text.err);
    REQUIRE(text.exit_code == 0);
    CHECK(summary_table(text.out) == at_exit);
    const RunResult csv = stats_of({"--format", "csv", o.directory + "/" + file});
    REQUIRE(csv.exit_code == 0);
    CHECK(api_calls_in_csv(csv.out) == expected);
  }
}

TEST_CASE("apitrace: synchronization and events in the trace and the databases, with what they waited for",
          "[e2e][apitrace]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress");
  const bool concurrent = GENERATE(false, true);
  INFO("reach " << reach << (concurrent ? ", conckerneltrace" : ", serialized"));
  auto o = profiling(std::string("export json,sqlite,nvprof\n") + (concurrent ? "conckerneltrace\n" : ""));
  const auto r = run_client(reach, "host-waits", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string streams = printed_value(r.out, "streams");
  const std::string stream_a = streams.substr(0, streams.find(' '));
  const std::string stream_b = streams.substr(streams.find(' ') + 1);
  // Under conckerneltrace each synchronization waited for the spin running when it was
  // called; timed by event pairs, the launch itself waited for it.
  const std::string waited = concurrent ? " waited" : "";
  CHECK(api_calls_in_trace(o.directory + "/compute_profile.json", concurrent) ==
        "cuModuleLoadData 0 module_load\n"
        "cuStreamSynchronize 0 stream_synchronize stream=" + stream_a + waited + "\n"
        "cuEventRecord 0 event_record stream=" + stream_a + " event=e1\n"
        "cuStreamWaitEvent 0 stream_wait_event stream=" + stream_b + " event=e1\n"
        "cuEventSynchronize 0 event_synchronize event=e1" + waited + "\n"
        "cuCtxSynchronize 0 context_synchronize" + waited + "\n");
  // One RUNTIME row of the CUDA driver's class each, beside the launches' (two spins).
  const std::string database = o.directory + "/compute_profile.sqlite";
  CHECK(query(database,
              "SELECT s.value, r.returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
              "WHERE r.eventClass = 1 ORDER BY r.start") ==
        std::vector<std::string>{"cuModuleLoadData|0", "cuLaunchKernel|0", "cuStreamSynchronize|0", "cuLaunchKernel|0",
                                 "cuEventRecord|0", "cuStreamWaitEvent|0", "cuEventSynchronize|0",
                                 "cuCtxSynchronize|0"});
  // nvprof's DRIVER rows by CUPTI's callback ids: module load 19, launch 307, stream
  // synchronize 126, event record 119, stream wait event 295, event synchronize 121,
  // context synchronize 17.
  CHECK(query(o.directory + "/compute_profile.nvvp",
              "SELECT cbid, returnValue FROM CUPTI_ACTIVITY_KIND_DRIVER ORDER BY start") ==
        std::vector<std::string>{"19|0", "307|0", "126|0", "307|0", "119|0", "295|0", "121|0", "17|0"});
  // Each synchronization's SYNCHRONIZATION row, at its call's times and correlation:
  // CUPTI's type (event 1, stream wait event 2, stream 3, context 4), the context, the
  // stream and the event where the call names them (else 0xFFFFFFFF), events numbered
  // from 1; the event record's CUDA_EVENT row.
  const std::string no = "4294967295";
  CHECK(query(o.directory + "/compute_profile.nvvp",
              "SELECT s.type, d.cbid, s.contextId, s.streamId, s.cudaEventId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION s "
              "JOIN CUPTI_ACTIVITY_KIND_DRIVER d ON d.correlationId = s.correlationId AND d.start = s.start AND "
              "d.end = s.end ORDER BY s.start") ==
        std::vector<std::string>{"3|126|1|" + stream_a + "|" + no, "2|295|1|" + stream_b + "|1",
                                 "1|121|1|" + no + "|1", "4|17|1|" + no + "|" + no});
  CHECK(query(o.directory + "/compute_profile.nvvp",
              "SELECT d.cbid, e.contextId, e.streamId, e.eventId FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT e "
              "JOIN CUPTI_ACTIVITY_KIND_DRIVER d ON d.correlationId = e.correlationId") ==
        std::vector<std::string>{"119|1|" + stream_a + "|1"});
  // nsys's SYNCHRONIZATION table: the same, with the device, -1 where not applicable.
  CHECK(query(database,
              "SELECT y.syncType, s.value, y.deviceId, y.contextId, y.streamId, y.eventId FROM "
              "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION y JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = "
              "y.correlationId AND r.start = y.start AND r.end = y.end JOIN StringIds s ON s.id = r.nameId "
              "ORDER BY y.start") ==
        std::vector<std::string>{"3|cuStreamSynchronize|0|1|" + stream_a + "|-1",
                                 "2|cuStreamWaitEvent|0|1|" + stream_b + "|1", "1|cuEventSynchronize|0|1|-1|1",
                                 "4|cuCtxSynchronize|0|1|-1|-1"});
}

TEST_CASE("apitrace: off as asked, on when asked for, kept in the run file",
          "[e2e][apitrace]") {
  SECTION("apitrace off") {
    auto o = profiling("export json\napitrace off\n");
    const auto r = run_client("dlsym", "host-waits", o);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(api_calls_in_trace(o.directory + "/compute_profile.json").empty());
  }
  SECTION("kept in the run file, converted offline") {
    auto o = profiling("export cprof\n");
    const auto r = run_client("dlsym", "host-waits", o);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    RunOptions e;
    e.directory = o.directory;
    e.preload_shim = false;
    e.simulated_driver = false;
    e.argv = {COMPUTEPROF_CLI_PATH, "export", "compute_profile.cprof", "--to", "json"};
    const RunResult converted = run(e);
    INFO(converted.out << converted.err);
    REQUIRE(converted.exit_code == 0);
    CHECK(converted.out ==
          "compute_profile.json: 2 operations, 0 NVTX events, 0 memory events, 6 API calls\n");
    CHECK(api_calls_in_trace(o.directory + "/compute_profile.json").find("cuEventSynchronize") != std::string::npos);
  }
  SECTION("apitrace with a trace") {
    auto o = profiling("apitrace\nexport json\n");
    const auto r = run_client("dlsym", "host-waits", o);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(api_calls_in_trace(o.directory + "/compute_profile.json").find("cuEventSynchronize") != std::string::npos);
  }
}

TEST_CASE("apitrace: modules and libraries loaded and unloaded, on every reach path, in the trace and nvprof's database",
          "[e2e][apitrace]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress");
  INFO("reach " << reach);
  auto o = profiling("export json,nvprof\n");
  const auto r = run_client(reach, "module-loads", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(api_calls_in_trace(o.directory + "/compute_profile.json") ==
        "cuModuleLoadData 0 module_load\n"
        "cuLibraryLoadData 0 module_load\n"
        "cuLibraryUnload 0 module_load\n"
        "cuModuleLoadData 0 module_load\n"
        "cuModuleUnload 0 module_load\n");
  // CUPTI's callback ids: cuModuleLoadData 19, cuLibraryLoadData 678, cuLibraryUnload
  // 680, cuModuleUnload 22.
  CHECK(query(o.directory + "/compute_profile.nvvp",
              "SELECT cbid, returnValue FROM CUPTI_ACTIVITY_KIND_DRIVER ORDER BY start") ==
        std::vector<std::string>{"19|0", "678|0", "680|0", "19|0", "22|0"});
}
