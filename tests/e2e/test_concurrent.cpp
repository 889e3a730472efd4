// conckerneltrace without CUPTI: operations are not waited for, their GPU times come
// from event pairs completed later; the records are those of serialized mode, nothing
// is lost at exit, at context destruction or at the profiler switch. Each run says
// once that CUPTI could not be had.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"
#include "gputime_check.hpp"

using namespace e2e;

namespace {

RunOptions concurrent(const std::string& config = "") {
  std::string text = "conckerneltrace\n";
  text += config;
  RunOptions o = profiling(text);
  o.env["COMPUTEPROF_CUPTI_LIBRARY"] = o.directory + "/no-such-libcupti.so";
  return o;
}

std::string no_cupti_line(const RunOptions& o) {
  return "computeprof: conckerneltrace: CUPTI activity tracing unavailable: libcupti.so.13 not found: " +
         o.directory +
         "/no-such-libcupti.so: cannot open shared object file: No such file or directory; GPU times come from "
         "event pairs\n";
}

std::uint64_t hex(const Fields& r, const std::string& key) { return std::stoull(r.at(key), nullptr, 16); }


// What a record is, as opposed to when it ran.
Fields identity(Fields r) {
  for (const char* key : {"gpustarttimestamp", "gpuendtimestamp", "timestamp", "gputime", "cputime"}) r.erase(key);
  return r;
}

}  // namespace

TEST_CASE("conckerneltrace gives the records of serialized mode without waiting for kernels", "[e2e][concurrent]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds", "runtime");
  INFO("reach " << reach);
  RunOptions serialized;
  serialized.directory = make_scratch_directory();
  serialized.env["COMPUTE_PROFILE"] = "1";
  serialized.env["COMPUTE_PROFILE_CONFIG"] = write_config(serialized.directory, kAllOptions);
  const auto s = run_client(reach, "basic", serialized);
  REQUIRE(s.exit_code == 0);
  auto o = concurrent(kAllOptions);
  const auto c = run_client(reach, "basic", o);
  INFO(c.out << c.err);
  REQUIRE(c.exit_code == 0);
  CHECK(c.err == no_cupti_line(o));
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
  check_gputime_near(spin30, 30'000'000);
  check_gputime_near(spin20, 20'000'000);
  // The launch returned long before its kernel ended; serialized, it waited for it.
  CHECK(micros_to_ns(spin30.at("cputime")) < 10'000'000);
  CHECK(micros_to_ns(spin20.at("cputime")) < 10'000'000);
  CHECK(micros_to_ns(slog.records[3].at("cputime")) >= 30'000'000);
}

TEST_CASE("conckerneltrace: spins on two streams launched back to back overlap", "[e2e][concurrent]") {
  auto o = concurrent("gpustarttimestamp\ngpuendtimestamp\nstreamid\n");
  const auto r = run_client("runtime", "overlap", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
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

TEST_CASE("conckerneltrace: nothing is lost at exit", "[e2e][concurrent]") {
  const auto scenario = GENERATE(as<std::string>{}, "no-cleanup", "exit-thread", "busy-exit");
  INFO(scenario);
  auto o = concurrent();
  const auto r = run_client("runtime", scenario, o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == no_cupti_line(o));
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(methods(log) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
  // busy-exit returns while its three 50 ms spins still run. The first one's time also
  // holds the host's gap between its start event and the launch (an idle stream);
  // the others queue behind it.
  if (scenario == "busy-exit") {
    CHECK(micros_to_ns(log.records[0].at("gputime")) >= 45'000'000);
    check_gputime_near(log.records[1], 50'000'000);
    check_gputime_near(log.records[2], 50'000'000);
  }
}

TEST_CASE("conckerneltrace: cuCtxDestroy completes the context's outstanding operations first", "[e2e][concurrent]") {
  auto o = concurrent();
  const auto r = run_client("linked", "destroy", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto created = read_log(o.directory + "/compute_profile.log");
  CHECK(created.header[2] == "# CUDA_CONTEXT 1");
  REQUIRE(methods(created) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
  // As in busy-exit: the first spin started on an idle stream.
  CHECK(micros_to_ns(created.records[0].at("gputime")) >= 45'000'000);
  check_gputime_near(created.records[1], 50'000'000);
  check_gputime_near(created.records[2], 50'000'000);
  const auto primary = read_log(o.directory + "/compute_profile_2.log");
  CHECK(methods(primary) == Methods{"_Z4spiny"});
}

TEST_CASE("conckerneltrace: cuProfilerStop writes what it brackets", "[e2e][concurrent]") {
  auto o = concurrent("enableonstart 0\n");
  const auto r = run_client("procaddress", "bracket", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny", "memcpyHtoD", "_Z4spiny"});
}

TEST_CASE("conckerneltrace: a graph launch is one record named graphLaunch", "[e2e][concurrent]") {
  auto o = concurrent();
  const auto r = run_client("procaddress", "capture", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(methods(log) == Methods{"graphLaunch"});
  CHECK(micros_to_ns(log.records[0].at("gputime")) >= 900'000);
}

TEST_CASE("conckerneltrace: fork keeps the parent's records once", "[e2e][concurrent]") {
  auto o = concurrent();
  o.env["COMPUTE_PROFILE_LOG"] = "fork_%p.log";
  const auto r = run_client("linked", "fork", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto files = list_directory(o.directory);
  REQUIRE(files.size() == 2);  // the config and the parent's log
  const auto log = read_log(o.directory + "/" + (files[0].starts_with("fork_") ? files[0] : files[1]));
  CHECK(methods(log) == Methods{"_Z4spiny", "_Z4spiny"});
}

TEST_CASE("conckerneltrace: 8 threads x 10000 launches give exactly 80000 kernel records", "[e2e][concurrent][threads]") {
  auto o = concurrent();
  o.argv = {MULTI_THREAD_PATH, "8", "10000"};
  o.env["COMPUTE_PROFILE_LOG"] = "threads_%d.log";
  o.timeout_seconds = 300;
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
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
  RunOptions o = profiling("conckerneltrace\n");  // the toolkit's libcupti, on the simulated driver
  const auto r = run_client("runtime", "no-cleanup", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.starts_with("computeprof: conckerneltrace: CUPTI activity tracing unavailable: cuptiSubscribe: "
                          "CUPTI_ERROR_"));
  CHECK(r.err.ends_with("; GPU times come from event pairs\n"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
}
