// conckerneltrace: operations are not waited for; the records are those of serialized
// mode, nothing is lost at exit, at context destruction or at the profiler switch.
// Every case runs twice: without CUPTI (GPU times from event pairs completed later; the
// run says once that CUPTI could not be had) and with the simulated CUPTI (GPU times
// from its activity records, tied by external correlation ids; nothing on stderr, so
// no record fell back to its event times).
#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"
#include "gputime_check.hpp"

using namespace e2e;

namespace {

enum class Timing { events, cupti };

std::ostream& operator<<(std::ostream& os, Timing t) { return os << (t == Timing::events ? "events" : "cupti"); }

RunOptions concurrent(Timing timing, const std::string& config = "") {
  std::string text = "conckerneltrace\n";
  text += config;
  RunOptions o = profiling(text);
  o.env["COMPUTEPROF_CUPTI_LIBRARY"] = timing == Timing::cupti ? SIMCUPTI_PATH : o.directory + "/no-such-libcupti.so";
  return o;
}

// All a run may print on stderr.
std::string expected_err(const RunOptions& o, Timing timing) {
  if (timing == Timing::cupti) return "";
  return "computeprof: CUPTI activity tracing unavailable: libcupti.so.13 not found: " +
         o.directory +
         "/no-such-libcupti.so: cannot open shared object file: No such file or directory; GPU times come from "
         "event pairs\n";
}

std::uint64_t hex(const Fields& r, const std::string& key) { return std::stoull(r.at(key), nullptr, 16); }


std::vector<std::string> computeprof_lines(const std::string& err) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < err.size()) {
    const std::size_t end = std::min(err.find('\n', at), err.size());
    if (err.compare(at, 12, "computeprof:") == 0) lines.push_back(err.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// What a record is, as opposed to when it ran.
Fields identity(Fields r) {
  for (const char* key : {"gpustarttimestamp", "gpuendtimestamp", "timestamp", "gputime", "cputime"}) r.erase(key);
  return r;
}

}  // namespace

TEST_CASE("conckerneltrace gives the records of serialized mode without waiting for kernels", "[e2e][concurrent]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds", "runtime");
  const Timing timing = GENERATE(Timing::events, Timing::cupti);
  INFO(timing);
  INFO("reach " << reach);
  RunOptions serialized;
  serialized.directory = make_scratch_directory();
  serialized.env["COMPUTE_PROFILE"] = "1";
  serialized.env["COMPUTE_PROFILE_CONFIG"] = write_config(serialized.directory, kAllOptions);
  const auto s = run_client(reach, "basic", serialized);
  REQUIRE(s.exit_code == 0);
  auto o = concurrent(timing, kAllOptions);
  const auto c = run_client(reach, "basic", o);
  INFO(c.out << c.err);
  REQUIRE(c.exit_code == 0);
  CHECK(c.err == expected_err(o, timing));
  CHECK(c.out == s.out);

  const auto slog = read_log(serialized.directory + "/compute_profile.log");
  const auto clog = read_log(o.directory + "/compute_profile.log");
  CHECK(clog.column_line == slog.column_line);
  REQUIRE(clog.records.size() == 8);
  REQUIRE(slog.records.size() == 8);
  for (std::size_t i = 0; i < clog.records.size(); ++i) {
    INFO("record " << i);
    CHECK(identity(clog.records[i]) == identity(slog.records[i]));
    const auto& r = clog.records[i];
    CHECK(hex(r, "gpuendtimestamp") - hex(r, "gpustarttimestamp") == micros_to_ns(r.at("gputime")));
  }
  // In completion order, which is also the program's order here.
  CHECK(methods(clog) == Methods{"memcpyHtoD", "memcpyHtoD", "_Z6vecAddPKfS0_Pfi", "_Z4spiny", "memcpyDtoHasync",
                                 "memcpyDtoD", "memset", "_Z4spiny"});
  const auto& spin30 = clog.records[3];
  const auto& spin20 = clog.records[7];
  if (timing == Timing::cupti) {
    // The simulated device's own start and end of each kernel.
    CHECK(spin30.at("gputime") == "30000.000");
    CHECK(spin20.at("gputime") == "20000.000");
  } else {
    check_gputime_near(spin30, 30'000'000);
    check_gputime_near(spin20, 20'000'000);
  }
  // The launch returned long before its kernel ended; serialized, it waited for it.
  CHECK(micros_to_ns(spin30.at("cputime")) < 10'000'000);
  CHECK(micros_to_ns(spin20.at("cputime")) < 10'000'000);
  CHECK(micros_to_ns(slog.records[3].at("cputime")) >= 30'000'000);
}

TEST_CASE("conckerneltrace: spins on two streams launched back to back overlap", "[e2e][concurrent]") {
  const Timing timing = GENERATE(Timing::events, Timing::cupti);
  INFO(timing);
  auto o = concurrent(timing, "gpustarttimestamp\ngpuendtimestamp\nstreamid\n");
  const auto r = run_client("runtime", "overlap", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == expected_err(o, timing));
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(methods(log) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
  const auto& on_a = log.records[1];
  const auto& on_b = log.records[2];
  CHECK(on_a.at("streamid") != on_b.at("streamid"));
  check_gputime_near(on_a, 200'000'000);
  check_gputime_near(on_b, 200'000'000);
  CHECK(hex(on_b, "gpustarttimestamp") < hex(on_a, "gpuendtimestamp"));
  CHECK(hex(on_a, "gpustarttimestamp") < hex(on_b, "gpuendtimestamp"));
  CHECK(micros_to_ns(on_a.at("cputime")) < 100'000'000);
}

TEST_CASE("conckerneltrace: records follow completion, a short kernel before the long one it overtook",
          "[e2e][concurrent]") {
  const Timing timing = GENERATE(Timing::events, Timing::cupti);
  INFO(timing);
  auto o = concurrent(timing, "gpuendtimestamp\nstreamid\n");
  const auto r = run_client("runtime", "overtake", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == expected_err(o, timing));
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(log.records.size() == 3);
  // Launched 20 ms and 150 ms on one stream, then 40 ms on another: the 40 ms one ends
  // before the 150 ms one.
  check_gputime_near(log.records[0], 20'000'000);
  check_gputime_near(log.records[1], 40'000'000);
  check_gputime_near(log.records[2], 150'000'000);
  CHECK(log.records[1].at("streamid") != log.records[2].at("streamid"));
  CHECK(hex(log.records[1], "gpuendtimestamp") < hex(log.records[2], "gpuendtimestamp"));
}

TEST_CASE("conckerneltrace: nothing is lost at exit", "[e2e][concurrent]") {
  const auto scenario = GENERATE(as<std::string>{}, "no-cleanup", "exit-thread", "busy-exit");
  const Timing timing = GENERATE(Timing::events, Timing::cupti);
  INFO(timing);
  INFO(scenario);
  auto o = concurrent(timing);
  const auto r = run_client("runtime", scenario, o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == expected_err(o, timing));
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(methods(log) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
  // busy-exit returns while its three 50 ms spins still run. With events, the first
  // one's time also holds the host's gap between its start event and the launch (an
  // idle stream); the others queue behind it.
  if (scenario == "busy-exit" && timing == Timing::cupti) {
    for (const auto& record : log.records) CHECK(record.at("gputime") == "50000.000");
  } else if (scenario == "busy-exit") {
    CHECK(micros_to_ns(log.records[0].at("gputime")) >= 45'000'000);
    check_gputime_near(log.records[1], 50'000'000);
    check_gputime_near(log.records[2], 50'000'000);
  }
}

TEST_CASE("conckerneltrace: cuCtxDestroy completes the context's outstanding operations first", "[e2e][concurrent]") {
  const Timing timing = GENERATE(Timing::events, Timing::cupti);
  INFO(timing);
  auto o = concurrent(timing);
  const auto r = run_client("linked", "destroy", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == expected_err(o, timing) +
                     "computeprof: context 2 would share log 'compute_profile.log' with context 1; it writes "
                     "'compute_profile_2.log'\n");
  const auto created = read_log(o.directory + "/compute_profile.log");
  CHECK(created.header[2] == "# CUDA_CONTEXT 1");
  REQUIRE(methods(created) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
  if (timing == Timing::cupti) {
    for (const auto& record : created.records) CHECK(record.at("gputime") == "50000.000");
  } else {
    // As in busy-exit: the first spin started on an idle stream.
    CHECK(micros_to_ns(created.records[0].at("gputime")) >= 45'000'000);
    check_gputime_near(created.records[1], 50'000'000);
    check_gputime_near(created.records[2], 50'000'000);
  }
  const auto primary = read_log(o.directory + "/compute_profile_2.log");
  CHECK(methods(primary) == Methods{"_Z4spiny"});
}

TEST_CASE("conckerneltrace: cuProfilerStop writes what it brackets", "[e2e][concurrent]") {
  const Timing timing = GENERATE(Timing::events, Timing::cupti);
  INFO(timing);
  auto o = concurrent(timing, "enableonstart 0\n");
  const auto r = run_client("procaddress", "bracket", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == expected_err(o, timing));
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny", "memcpyHtoD", "_Z4spiny"});
}

TEST_CASE("conckerneltrace without CUPTI: a graph launch is one record named graphLaunch", "[e2e][concurrent]") {
  auto o = concurrent(Timing::events);
  const auto r = run_client("procaddress", "capture", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(methods(log) == Methods{"graphLaunch"});
  CHECK(micros_to_ns(log.records[0].at("gputime")) >= 900'000);
}

TEST_CASE("conckerneltrace with CUPTI: each kernel, copy and memset node of a graph launch is a record",
          "[e2e][concurrent]") {
  auto o = concurrent(Timing::cupti,
                      "memtransfersize\ngridsize\nthreadblocksize\ngpustarttimestamp\ngpuendtimestamp\n");
  const auto r = run_client("procaddress", "graph-nodes", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(methods(log) == Methods{"memset", "_Z4spiny", "memcpyDtoHasync", "memset", "_Z4spiny", "memcpyDtoHasync"});
  for (std::size_t launch = 0; launch < 2; ++launch) {
    INFO("launch " << launch);
    const auto& memset = log.records[3 * launch];
    const auto& spin = log.records[3 * launch + 1];
    const auto& copy = log.records[3 * launch + 2];
    CHECK(memset.at("memtransfersize") == "4096");
    CHECK(spin.at("gputime") == "2000.000");
    CHECK(spin.at("gridsize") == "1, 1");
    CHECK(spin.at("threadblocksize") == "32, 1, 1");
    CHECK(copy.at("memtransfersize") == "4096");
    // In the graph's order on the device.
    CHECK(hex(memset, "gpuendtimestamp") <= hex(spin, "gpustarttimestamp"));
    CHECK(hex(spin, "gpuendtimestamp") <= hex(copy, "gpustarttimestamp"));
  }
}

TEST_CASE("conckerneltrace with CUPTI: operations CUPTI gives no record for are written at the next flush point "
          "with gputime 0, said once",
          "[e2e][concurrent]") {
  auto o = concurrent(Timing::cupti);
  o.env["SIMCUPTI_DROP_KERNELS"] = "1";
  const auto r = run_client("runtime", "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err ==
        "computeprof: CUPTI gave no activity record for some operations; their GPU times are unknown (gputime 0)\n");
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(log.records.size() == 8);
  const auto spins = log.with_method("_Z4spiny");
  REQUIRE(spins.size() == 2);
  CHECK(spins[0].at("gputime") == "0.000");
  CHECK(spins[1].at("gputime") == "0.000");
  // The copies kept their activities' exact times.
  for (const auto& copy : log.with_method("memcpyHtoDasync")) CHECK(copy.at("gputime") != "0.000");
}

TEST_CASE("conckerneltrace: another CUPTI client in the process is said once, events time everything",
          "[e2e][concurrent]") {
  auto o = concurrent(Timing::cupti);
  const auto r = run_client("runtime", "cupti-subscriber", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err ==
        "computeprof: CUPTI activity tracing unavailable: cuptiSubscribe: another CUPTI client "
        "(Nsight?) is attached to this process; GPU times come from event pairs\n");
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
}

TEST_CASE("fork: under conckerneltrace the parent keeps its records once", "[e2e][concurrent]") {
  const Timing timing = GENERATE(Timing::events, Timing::cupti);
  INFO(timing);
  auto o = concurrent(timing);
  o.env["COMPUTE_PROFILE_LOG"] = "fork_%p.log";
  const auto r = run_client("linked", "fork", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // The shim's lines only: under GCC 12's LeakSanitizer the forked child of a
  // multithreaded process prints lines of its own (see .ci/run).
  CHECK(computeprof_lines(r.err) == computeprof_lines(expected_err(o, timing)));
  const auto files = list_directory(o.directory);
  REQUIRE(files.size() == 2);  // the config and the parent's log
  const auto log = read_log(o.directory + "/" + (files[0].starts_with("fork_") ? files[0] : files[1]));
  CHECK(methods(log) == Methods{"_Z4spiny", "_Z4spiny"});
}

TEST_CASE("conckerneltrace: 8 threads x 10000 launches give exactly 80000 kernel records", "[e2e][concurrent][threads]") {
  const Timing timing = GENERATE(Timing::events, Timing::cupti);
  INFO(timing);
  auto o = concurrent(timing);
  o.argv = {MULTI_THREAD_PATH, "8", "10000"};
  o.env["COMPUTE_PROFILE_LOG"] = "threads_%d.log";
  o.timeout_seconds = 300;
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // Then the lines of the contexts whose logs would collide.
  CHECK(r.err.starts_with(expected_err(o, timing)));
  CHECK(r.err.find("CUPTI gave no activity record") == std::string::npos);
  std::size_t kernels = 0, copies = 0;
  for (const auto& f : list_directory(o.directory)) {
    if (!f.starts_with("threads_")) continue;
    const auto log = read_log(o.directory + "/" + f);
    kernels += log.count("_Z5emptyv");
    copies += log.count("memcpyHtoDasync") + log.count("memcpyDtoHasync");
    CHECK(log.records.size() == log.count("_Z5emptyv") + log.count("memcpyHtoDasync") + log.count("memcpyDtoHasync"));
  }
  CHECK(kernels == 80000);
  CHECK(copies == 16);
}

TEST_CASE("conckerneltrace: a CUPTI that cannot trace on this driver is said once, events time everything",
          "[e2e][concurrent]") {
  RunOptions o = profiling("conckerneltrace\n");
  o.env["COMPUTEPROF_CUPTI_LIBRARY"] = std::nullopt;  // the toolkit's libcupti, on the simulated driver
  const auto r = run_client("runtime", "no-cleanup", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.starts_with("computeprof: CUPTI activity tracing unavailable: cuptiSubscribe: "
                          "CUPTI_ERROR_"));
  CHECK(r.err.ends_with("; GPU times come from event pairs\n"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
}

TEST_CASE("conckerneltrace with event pairs: one operation in flight at a time takes a few event pairs, not one "
          "per slot of the thread's track",
          "[e2e][concurrent]") {
  auto plain = profiling();
  plain.preload_shim = false;
  plain.env["SIMCUDA_EVENT_RECORDS_FILE"] = plain.directory + "/events";
  REQUIRE(run_client("runtime", "synced-launches", plain).exit_code == 0);
  auto o = concurrent(Timing::events);
  o.env["SIMCUDA_EVENT_RECORDS_FILE"] = o.directory + "/events";
  const auto r = run_client("runtime", "synced-launches", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == expected_err(o, Timing::events));
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(log.with_method("_Z4spiny").size() == 300);
  // The second line: the events created. The thread's serialized pair, and the track's
  // pairs: at most the operations not yet resolved when the next one starts, plus two
  // (shim/timing/event_lending.hpp), which stays under the lending depth unless the
  // resolver thread stalls for 16 launches. 128 pairs when each slot kept its own; 32
  // under ThreadSanitizer when slots the tail passed in a jump kept their pairs.
  const auto created = [](const std::string& path) {
    const std::string text = read_file(path);
    return std::stoull(text.substr(text.find('\n') + 1));
  };
  const std::uint64_t added = created(o.directory + "/events") - created(plain.directory + "/events");
  INFO("events created by the shim: " << added);
  CHECK(added <= 2 + 2 * 16);
}

TEST_CASE("conckerneltrace: launches that outrun the GPU wait in the driver as without the shim, and each is "
          "recorded",
          "[e2e][concurrent]") {
  // The simulated driver holds 1,024 operations a stream, as a real one holds about a
  // thousand: launch 1,025 waits for the first to end.
  constexpr const char* kReturned = "returned before the first spin ended:";
  auto plain = profiling();
  plain.preload_shim = false;
  const auto p = run_client("runtime", "outrun", plain);
  INFO(p.out << p.err);
  REQUIRE(p.exit_code == 0);
  CHECK(printed_value(p.out, kReturned) == "1023");
  const Timing timing = GENERATE(Timing::events, Timing::cupti);
  INFO(timing);
  auto o = concurrent(timing);
  const auto r = run_client("runtime", "outrun", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == expected_err(o, timing));
  // CUPTI's records add nothing to the stream; event pairs do, so fewer launches fit.
  if (timing == Timing::cupti) CHECK(printed_value(r.out, kReturned) == "1023");
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(log.with_method("_Z4spiny").size() == 1101);
}
