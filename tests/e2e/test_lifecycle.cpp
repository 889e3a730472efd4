// What happens around the operations: the profiler switch, rejected launches, stream
// capture, library kernels, exit and fork, files that cannot be opened, old drivers.
#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

TEST_CASE("enableonstart 0 records only what cuProfilerStart/Stop bracket", "[e2e][lifecycle]") {
  auto o = profiling("enableonstart 0\nmemtransfersize\n");
  const auto r = run_client("procaddress", "bracket", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny", "memcpyHtoD", "_Z4spiny"});
}

TEST_CASE("without enableonstart 0 everything is recorded and cuProfilerStop still pauses", "[e2e][lifecycle]") {
  auto o = profiling();
  const auto r = run_client("linked", "bracket", o);
  REQUIRE(r.exit_code == 0);
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny", "_Z4spiny", "memcpyHtoD", "_Z4spiny"});
}

TEST_CASE("a launch the driver rejects keeps its error and leaves no record", "[e2e][lifecycle]") {
  auto o = profiling();
  const auto r = run_client("runtime", "reject", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(printed_value(r.out, "rejected launch returned") == "CUDA_ERROR_INVALID_VALUE");
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny"});
}

TEST_CASE("a captured launch is not executed, the capture succeeds, the graph launch is recorded", "[e2e][lifecycle]") {
  const bool cupti = GENERATE(true, false);
  INFO((cupti ? "CUPTI" : "event pairs"));
  auto o = profiling("streamid\n");
  if (!cupti) o.env["COMPUTEPROF_CUPTI_LIBRARY"] = o.directory + "/no-such-libcupti.so";
  const auto r = run_client("procaddress", "capture", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("capture ok\n") != std::string::npos);
  const auto log = read_log(o.directory + "/compute_profile.log");
  // The graph holds a 1 ms spin: with CUPTI, its node is the record; with event pairs,
  // the graph launch as a whole.
  if (cupti) {
    REQUIRE(methods(log) == Methods{"_Z4spiny"});
    CHECK(log.records[0].at("gputime") == "1000.000");
  } else {
    REQUIRE(methods(log) == Methods{"graphLaunch"});
    CHECK(micros_to_ns(log.records[0].at("gputime")) >= 900'000);
  }
}

TEST_CASE("a CUkernel launched directly is named and measured", "[e2e][lifecycle]") {
  auto o = profiling("regperthread\ngridsize\nthreadblocksize\n");
  const auto r = run_client("dlsym", "library", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(log.records.size() == 1);
  CHECK(log.records[0].at("method") == "_Z4spiny");
  CHECK(log.records[0].at("regperthread") == "8");
  CHECK(log.records[0].at("gridsize") == "2, 1");
  CHECK(log.records[0].at("threadblocksize") == "64, 1, 1");
}

TEST_CASE("nothing is lost at exit: no cleanup, exit() from another thread", "[e2e][lifecycle]") {
  const auto scenario = GENERATE(as<std::string>{}, "no-cleanup", "exit-thread");
  INFO(scenario);
  auto o = profiling();
  const auto r = run_client("runtime", scenario, o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
}

TEST_CASE("fork: the parent's log holds its records once, the child writes nothing", "[e2e][lifecycle]") {
  auto o = profiling();
  o.env["COMPUTE_PROFILE_LOG"] = "fork_%p.log";
  const auto r = run_client("linked", "fork", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(printed_value(r.out, "child exited") == "0");
  const auto files = list_directory(o.directory);
  REQUIRE(files.size() == 1);  // the parent's log only
  CHECK(files[0].starts_with("fork_"));
  const auto log = read_log(o.directory + "/" + files[0]);
  CHECK(methods(log) == Methods{"_Z4spiny", "_Z4spiny"});
}

TEST_CASE("a log that cannot be opened is one line on stderr, the program runs on", "[e2e][lifecycle]") {
  auto o = profiling();
  o.env["COMPUTE_PROFILE_LOG"] = "/nonexistent-dir/x.log";
  const auto r = run_client("linked", "basic", o);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.ends_with("PASS\n"));
  CHECK(r.err ==
        "computeprof: cannot open log '/nonexistent-dir/x.log': No such file or directory; this context is not "
        "logged\n");
}

TEST_CASE("a driver without cuFuncGetName still names kernels", "[e2e][lifecycle]") {
  const auto reach = GENERATE(as<std::string>{}, "runtime", "linked");
  INFO(reach);
  auto o = profiling();
  o.old_driver = true;
  const auto r = run_client(reach, "library", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny"});

  const auto basic = run_client(reach, "no-cleanup", o);
  REQUIRE(basic.exit_code == 0);
  log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"_Z4spiny", "_Z4spiny", "_Z4spiny"});
}
