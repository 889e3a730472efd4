// Why the GPU sat idle (docs/format.md, "GPU idle") for a program with known waits: each
// known gap's time put down to its known cause, to the nanosecond of the run file's own
// times; the summary at exit, `stats` as text, CSV and JSON give the same table.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"
#include "runfile/file_bytes.hpp"
#include "runfile/run_reader.hpp"

using namespace e2e;
using namespace computeprof;

namespace {

struct TimedCall {
  std::uint64_t start_ns = 0, end_ns = 0;
};

struct IdleRunTimes {
  struct Operation {
    std::uint64_t gpu_start_ns = 0, gpu_end_ns = 0;
    TimedCall call;
    bool pageable_copy = false;
  };
  std::vector<Operation> operations;
  TimedCall stream_synchronize, event_synchronize;
  std::uint32_t thread = 0;
};

// The operations' and the synchronizations' times as the run file holds them.
class IdleTimesVisitor final : public runfile::RunVisitor {
 public:
  explicit IdleTimesVisitor(IdleRunTimes& times) : times_(times) {}
  void operation(const records::ContextInfo& context, const records::Record& r) override {
    const std::uint64_t call_start = context.origin.wall_ns + r.timestamp_ns;
    times_.operations.push_back({r.gpu_start_ns, r.gpu_end_ns, {call_start, call_start + r.cputime_ns},
                                 r.kind == records::RecordKind::memcpy &&
                                     r.host_mem_type == records::HostMemType::pageable});
  }
  void api_call(const records::ApiCall& call) override {
    if (call.name == "cuStreamSynchronize") times_.stream_synchronize = {call.start_ns, call.end_ns};
    if (call.name == "cuEventSynchronize") times_.event_synchronize = {call.start_ns, call.end_ns};
    times_.thread = call.thread_id;
  }

 private:
  IdleRunTimes& times_;
};

IdleRunTimes idle_run_times(const std::string& path) {
  std::string why;
  const auto bytes = runfile::read_file_bytes(path, why);
  INFO(why);
  REQUIRE(bytes);
  runfile::RunReader reader(*bytes);
  IdleRunTimes times;
  IdleTimesVisitor visitor(times);
  REQUIRE_FALSE(reader.read(visitor).error);
  std::sort(times.operations.begin(), times.operations.end(),
            [](const auto& a, const auto& b) { return a.gpu_start_ns < b.gpu_start_ns; });
  return times;
}

std::uint64_t overlap_ns(TimedCall call, std::uint64_t start, std::uint64_t end) {
  const std::uint64_t from = std::max(call.start_ns, start), to = std::min(call.end_ns, end);
  return to > from ? to - from : 0;
}

RunResult idle_stats(const std::string& format, const std::string& file) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  o.argv = {COMPUTEPROF_CLI_PATH, "stats", "--format", format, file};
  return e2e::run(o);
}

// From the first line that starts with `start` (after a line break) to the end.
std::string from_line(const std::string& text, const std::string& start) {
  const std::size_t at = text.find(start);
  REQUIRE(at != std::string::npos);
  return text.substr(at);
}

std::string idle_rows_read_back(const std::string& kind, const std::string& text) {
  const std::string path = make_scratch_directory() + "/stats." + kind;
  std::ofstream(path, std::ios::binary) << text;
  const CommandOutput r =
      command_output(std::string(PYTHON3_PATH) + " " + READ_STATS_TABLES_PATH + " " + kind + " " + path);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("GPU idle: known waits, each gap put down to its cause, at exit and in stats alike", "[e2e][gpu_idle]") {
  auto o = profiling("export cprof\nconckerneltrace\nsummary\n");
  const auto r = run_client("linked", "idle-waits", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string run_file = o.directory + "/compute_profile.cprof";
  const IdleRunTimes t = idle_run_times(run_file);
  REQUIRE(t.operations.size() == 3);
  const auto& first = t.operations[0];  // the 2 ms spin
  const auto& second = t.operations[1]; // the 1 ms spin
  const auto& copy = t.operations[2];
  CHECK(first.gpu_end_ns - first.gpu_start_ns == 2'000'000);
  CHECK(second.gpu_end_ns - second.gpu_start_ns == 1'000'000);
  REQUIRE(copy.pageable_copy);

  // Gap 1: the stream's synchronization, then the sleep and the next launch. Gap 2: the
  // event's synchronization, then the copy's call up to its start on the GPU. The calls
  // come one after the other on the one thread, so none hides another; the event's
  // synchronization may begin before the second spin does, inside gap 1.
  struct Gap {
    std::uint64_t start_ns, end_ns;
  };
  const Gap gaps[] = {{first.gpu_end_ns, second.gpu_start_ns}, {second.gpu_end_ns, copy.gpu_start_ns}};
  std::uint64_t idle = 0, stream_sync = 0, event_sync = 0, pageable = 0, host = 0;
  std::uint64_t sync_gaps = 0, pageable_gaps = 0, host_gaps = 0;
  for (const Gap& g : gaps) {
    const std::uint64_t in_stream_sync = overlap_ns(t.stream_synchronize, g.start_ns, g.end_ns);
    const std::uint64_t in_event_sync = overlap_ns(t.event_synchronize, g.start_ns, g.end_ns);
    const std::uint64_t in_copy = overlap_ns(copy.call, g.start_ns, g.end_ns);
    const std::uint64_t in_host = g.end_ns - g.start_ns - in_stream_sync - in_event_sync - in_copy;
    idle += g.end_ns - g.start_ns;
    stream_sync += in_stream_sync;
    event_sync += in_event_sync;
    pageable += in_copy;
    host += in_host;
    sync_gaps += in_stream_sync + in_event_sync > 0 ? 1 : 0;
    pageable_gaps += in_copy > 0 ? 1 : 0;
    host_gaps += in_host > 0 ? 1 : 0;
  }
  CHECK(overlap_ns(t.stream_synchronize, gaps[0].start_ns, gaps[0].end_ns) > 0);
  CHECK(overlap_ns(t.event_synchronize, gaps[1].start_ns, gaps[1].end_ns) > 0);
  CHECK(overlap_ns(copy.call, gaps[1].start_ns, gaps[1].end_ns) > 0);
  CHECK(host >= 5'000'000);  // the sleep

  const std::uint64_t span = copy.gpu_end_ns - first.gpu_start_ns;
  const auto percent = [](std::uint64_t part, std::uint64_t whole) {
    return fmt::format("{:.2f}", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  };
  struct ExpectedCause {
    std::string name;
    std::uint64_t ns, gaps;
    std::string detail;
  };
  // The synchronization with more time names the row (the first by name on a tie).
  const std::string sync_detail = fmt::format(
      "{} (thread {})", event_sync >= stream_sync ? "cuEventSynchronize" : "cuStreamSynchronize", t.thread);
  std::vector<ExpectedCause> causes{{"synchronization", stream_sync + event_sync, sync_gaps, sync_detail},
                                    {"pageable copy", pageable, pageable_gaps, ""},
                                    {"host (no CUDA call)", host, host_gaps, ""}};
  std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.ns > b.ns; });
  std::string expected_csv = "device,span_ns,idle_ns,idle_percent,gaps,cause,time_percent,time_ns,cause_gaps,detail\n";
  for (const ExpectedCause& c : causes) {
    expected_csv += fmt::format("0,{},{},{},2,{},{},{},{},{}\n", span, idle, percent(idle, span), c.name,
                                percent(c.ns, idle), c.ns, c.gaps, c.detail);
  }

  const RunResult csv = idle_stats("csv", run_file);
  INFO(csv.err);
  REQUIRE(csv.exit_code == 0);
  CHECK(from_line(csv.out, "device,span_ns,") == expected_csv);

  // The summary at exit is stats' text with the "==<pid>== " prefix on the title line.
  const RunResult text = idle_stats("text", run_file);
  REQUIRE(text.exit_code == 0);
  const std::string at_exit = from_line(r.err, "== GPU idle (device 0): ");
  CHECK(at_exit.substr(3) == from_line(text.out, "GPU idle (device 0): "));
  CHECK(at_exit.find(fmt::format("{}% of ", percent(idle, span))) != std::string::npos);

  // JSON carries the same numbers.
  const RunResult json = idle_stats("json", run_file);
  REQUIRE(json.exit_code == 0);
  CHECK(idle_rows_read_back("json", json.out) == idle_rows_read_back("csv", csv.out));
}
