// Nothing lost, nobody let in: logs are never followed through symbolic links and never
// emptied while another process writes them.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

TEST_CASE("a program run by a profiled program keeps out of its parent's log: it writes its own, said once",
          "[e2e][hostile]") {
  auto o = profiling();
  const auto r = run_client("dlsym", "exec-child", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string child = printed_value(r.out, "child");
  REQUIRE_FALSE(child.empty());
  const std::string child_pid = child.substr(0, child.find(' '));
  CHECK(child.ends_with(" exited 0"));
  CHECK(r.err == "computeprof: '" + std::string("compute_profile.log") +
                     "' is being written by another process; this one writes 'compute_profile_" + child_pid +
                     ".log'\n");
  const auto parent_log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(parent_log) == Methods{"_Z4spiny", "_Z4spiny"});
  const auto child_log = read_log(o.directory + "/compute_profile_" + child_pid + ".log");
  CHECK(child_log.records.size() == 8);
}

TEST_CASE("a log path that is a symbolic link is not followed: its target stays as it was", "[e2e][hostile]") {
  auto o = profiling();
  const std::string target = o.directory + "/precious.txt";
  std::FILE* f = std::fopen(target.c_str(), "w");
  REQUIRE(f);
  std::fputs("keep me\n", f);
  std::fclose(f);
  REQUIRE(symlink(target.c_str(), (o.directory + "/compute_profile.log").c_str()) == 0);
  const auto r = run_client("dlsym", "bracket", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(target) == "keep me\n");
  CHECK(r.err == "computeprof: cannot open log 'compute_profile.log': is a symbolic link, not followed; this "
                 "context is not logged\n");
}

TEST_CASE("stacked interposers: no driver lookup escapes recording, whichever is preloaded first and however the "
          "other finds the next dlsym",
          "[e2e][hostile]") {
  const auto reach = GENERATE(as<std::string>{}, "dlsym", "procaddress", "runtime");
  const auto how = GENERATE(as<std::string>{}, "v2.34", "base", "plain");
  const bool before = GENERATE(true, false);
  INFO("reach " << reach << ", next dlsym by " << how << ", layer " << (before ? "before" : "after") << " the shim");
  auto o = profiling();
  (before ? o.preload_before : o.preload_after).push_back(STACKED_DLSYM_PATH);
  o.env["STACKED_NEXT_DLSYM"] = how;
  o.env["STACKED_SEEN_FILE"] = o.directory + "/seen.txt";
  const auto r = run_client(reach, "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"memcpyHtoD", "memcpyHtoD", "_Z6vecAddPKfS0_Pfi", "_Z4spiny", "memcpyDtoHasync",
                                "memcpyDtoD", "memset", "_Z4spiny"});
  // The layer saw the program's lookups (before the shim) or those the shim passed on
  // (after it).
  const std::string seen = read_file(o.directory + "/seen.txt");
  CHECK(seen.find(reach == "dlsym" ? "cuLaunchKernel\n" : "cuGetProcAddress_v2\n") != std::string::npos);
}

TEST_CASE("secure execution: nothing is profiled and no variable read, said once when profiling was asked for",
          "[e2e][hostile]") {
  auto plain = profiling();
  plain.preload_shim = false;
  const auto expected = run_client("dlsym", "basic", plain);
  REQUIRE(expected.exit_code == 0);

  auto o = profiling("export json,sqlite\nsummary\n");
  o.env["COMPUTEPROF_ASSUME_SECURE_EXECUTION"] = "1";
  o.env["COMPUTE_PROFILE_LOG"] = o.directory + "/elsewhere/%q{HOME}.log";
  o.env["COMPUTEPROF_LOG_INDEX"] = o.directory + "/index";
  const auto r = run_client("dlsym", "basic", o);
  CHECK(r.exit_code == 0);
  CHECK(r.out == expected.out);
  CHECK(r.err ==
        "computeprof: secure execution (a setuid, setgid or privileged program): nothing is profiled and no "
        "computeprof variable is read\n");
  CHECK(list_directory(o.directory) == std::vector<std::string>{"profile.cfg"});

  // Not asked for: not a word (every setuid program of a machine runs with the library).
  auto quiet = profiling();
  quiet.env["COMPUTE_PROFILE"] = std::nullopt;
  quiet.env["COMPUTEPROF_ASSUME_SECURE_EXECUTION"] = "1";
  const auto q = run_client("dlsym", "basic", quiet);
  CHECK(q.exit_code == 0);
  CHECK(q.err.empty());
}

TEST_CASE("abrupt ends keep every record: _exit, _Exit, quick_exit, abort, faults, and unhandled SIGFPE, SIGILL, "
          "SIGINT, SIGTERM, SIGHUP, the exit status stays the program's",
          "[e2e][hostile]") {
  struct End {
    const char* how;
    int exit_code;
  };
  const End end = GENERATE(End{"_exit", 3}, End{"_Exit", 4}, End{"quick_exit", 5}, End{"abort", 128 + SIGABRT},
                           End{"segv", 128 + SIGSEGV}, End{"sigbus", 128 + SIGBUS}, End{"sigfpe", 128 + SIGFPE},
                           End{"sigill", 128 + SIGILL}, End{"sigint", 128 + SIGINT}, End{"sigterm", 128 + SIGTERM},
                           End{"sighup", 128 + SIGHUP});
  const bool cupti = GENERATE(true, false);
  INFO(end.how << (cupti ? ", CUPTI" : ", event pairs"));
  auto o = profiling();
  if (!cupti) o.env["COMPUTEPROF_CUPTI_LIBRARY"] = o.directory + "/no-such-libcupti.so";
  const auto r = run_client("dlsym", std::string("end-") + end.how, o);
  INFO(r.out << r.err);
  CHECK(r.exit_code == end.exit_code);
  CHECK(r.out.ends_with(std::string("ending by ") + end.how + "\n"));
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(log.count("_Z4spiny") == 100);
  CHECK(log.count("memcpyHtoD") == 100);
  CHECK(log.records.size() == 200);
}

TEST_CASE("a program's own SIGSEGV or SIGTERM handler still runs and ends the program its way, and every record "
          "is kept",
          "[e2e][hostile]") {
  struct Handled {
    const char* spec;  // handler-<when>-<signal>-<end> (driver_client.cpp)
    int signal;
    int exit_code;
    const char* handler_in_place;  // whose handler the program finds before the end
  };
  const Handled h = GENERATE(
      // Installed before any CUDA call: the shim's handler, installed later, calls it.
      Handled{"first-segv-exit", SIGSEGV, 42, "another"}, Handled{"first-term-exit", SIGTERM, 42, "another"},
      // The default disposition back, then the signal again (pending while the handler
      // runs) or the fault again (when it returns): the process ends in the program's
      // handler's way, after the shim wrote out what was recorded.
      Handled{"first-term-reraise", SIGTERM, 128 + SIGTERM, "another"},
      Handled{"first-segv-return", SIGSEGV, 128 + SIGSEGV, "another"},
      // Installed after the shim's: it replaces it; _exit still writes everything out.
      Handled{"late-segv-exit", SIGSEGV, 42, "own"}, Handled{"late-term-exit", SIGTERM, 42, "own"});
  INFO(h.spec);
  auto o = profiling();
  const auto r = run_client("dlsym", std::string("handler-") + h.spec, o);
  INFO(r.out << r.err);
  CHECK(r.exit_code == h.exit_code);
  CHECK(r.out.ends_with(std::string(h.handler_in_place) + " handler in place\nending by " + h.spec +
                        "\nown handler: signal " + std::to_string(h.signal) + "\n"));
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(log.count("_Z4spiny") == 100);
  CHECK(log.count("memcpyHtoD") == 100);
  CHECK(log.records.size() == 200);
}

TEST_CASE("a launch loop stopped from outside loses no launch that returned", "[e2e][hostile]") {
  const int signal = GENERATE(SIGINT, SIGTERM, SIGHUP);
  INFO("signal " << signal);
  auto o = profiling();
  o.argv = {CLIENT_PATH, "dlsym", "launch-loop"};
  o.stop_signal = signal;
  o.stop_after_output_bytes = 4000;
  const auto r = run(o);
  CHECK(r.exit_code == 128 + signal);
  const auto last = r.out.rfind("returned ");
  REQUIRE(last != std::string::npos);
  const long returned = std::stol(r.out.substr(last + 9));
  const auto log = read_log(o.directory + "/compute_profile.log");
  INFO(returned << " launches returned, " << log.records.size() << " records");
  // The launch in flight when the signal came may have returned after the last line.
  CHECK(static_cast<long>(log.records.size()) >= returned);
  CHECK(static_cast<long>(log.records.size()) <= returned + 1);
}
