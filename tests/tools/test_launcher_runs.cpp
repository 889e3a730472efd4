// End to end: the built computeprof binary runs real programs with a dummy library in
// place of the shim.
#include <signal.h>
#include <sys/stat.h>

#include "catch.hpp"
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "launcher_process.hpp"
#include "scratch_directory.hpp"

namespace {

using Strings = std::vector<std::string>;

// The launcher's environment: a private TMPDIR (so that its temporary files can be seen,
// and seen to be gone) and the dummy library.
struct LauncherEnvironment {
  ScratchDirectory tmpdir;
  Strings entries{"PATH=/usr/bin:/bin", "TMPDIR=" + tmpdir.path().native(),
                  std::string("COMPUTEPROF_LIBRARY=") + DUMMY_PRELOAD_PATH};

  bool tmpdir_is_empty() const { return std::filesystem::is_empty(tmpdir.path()); }
};

Strings lines_of(const std::string& text) {
  Strings lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool contains_line(const std::string& text, const std::string& line) {
  const Strings lines = lines_of(text);
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// The value of NAME in `env` output, or "" when it is not there.
std::string value_in(const std::string& env_output, const std::string& name) {
  for (const std::string& line : lines_of(env_output)) {
    if (line.starts_with(name + "=")) return line.substr(name.size() + 1);
  }
  return "";
}

const std::string kNoLogLine =
    "computeprof: no log written (the application made no CUDA or OpenCL calls while profiling was on)\n";

// Polls `done` every 10 ms; false when `limit` passes first.
template <typename Done>
bool wait_until(Done done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

bool wait_for_file(const std::filesystem::path& path) {
  return wait_until([&] { return std::filesystem::exists(path); }, std::chrono::seconds(20));
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether process `pid` has ended: gone, or a zombie that whoever adopted it has not
// reaped yet (kill(pid, 0) still succeeds on a zombie).
bool has_ended(pid_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t command_end = stat.rfind(')');
  if (command_end == std::string::npos || command_end + 2 >= stat.size()) return true;
  const char state = stat[command_end + 2];
  return state == 'Z' || state == 'X';
}

}  // namespace

TEST_CASE("the application sees the profiling variables", "[launcher_run]") {
  const LauncherEnvironment environment;
  const LauncherResult run = run_launcher({"--csv", "-o", "run_%d.log", "--", "/usr/bin/env"}, environment.entries);
  CHECK(run.exit_code == 0);
  CHECK(value_in(run.out, "LD_PRELOAD") == DUMMY_PRELOAD_PATH);
  CHECK(value_in(run.out, "COMPUTE_PROFILE") == "1");
  CHECK(value_in(run.out, "COMPUTE_PROFILE_CSV") == "1");
  CHECK(value_in(run.out, "COMPUTE_PROFILE_LOG") == "run_%d.log");
  CHECK(value_in(run.out, "COMPUTE_PROFILE_CONFIG").empty());
  const std::string index = value_in(run.out, "COMPUTEPROF_LOG_INDEX");
  CHECK(index.starts_with(environment.tmpdir.path().native() + "/computeprof-logs-"));
  CHECK(run.err == kNoLogLine);
  CHECK(environment.tmpdir_is_empty());
}

TEST_CASE("an inherited LD_PRELOAD stays after the shim", "[launcher_run]") {
  LauncherEnvironment environment;
  environment.entries.push_back(std::string("LD_PRELOAD=") + DUMMY_PRELOAD_PATH);
  // The launcher itself starts with this LD_PRELOAD: in a COMPUTEPROF_SANITIZE build, ASan
  // would refuse to run with a library loaded before its runtime.
  environment.entries.push_back("ASAN_OPTIONS=verify_asan_link_order=0");
  const LauncherResult run = run_launcher({"/usr/bin/env"}, environment.entries);
  CHECK(run.exit_code == 0);
  CHECK(value_in(run.out, "LD_PRELOAD") == std::string(DUMMY_PRELOAD_PATH) + ":" + DUMMY_PRELOAD_PATH);
}

TEST_CASE("a config file alone is passed through as given", "[launcher_run]") {
  const LauncherEnvironment environment;
  const LauncherResult run = run_launcher({"--config", "my.cfg", "/usr/bin/env"}, environment.entries);
  CHECK(run.exit_code == 0);
  CHECK(value_in(run.out, "COMPUTE_PROFILE_CONFIG") == "my.cfg");
  CHECK(value_in(run.out, "COMPUTE_PROFILE_CSV").empty());
}

TEST_CASE("counters give the application a config file that is removed afterwards", "[launcher_run]") {
  const LauncherEnvironment environment;
  const ScratchDirectory work;
  std::ofstream(work / "base.cfg") << "# mine\ngridsize";
  const LauncherResult run =
      run_launcher({"--config", work / "base.cfg", "--counters", "inst_executed,gld_request", "--counters=branch",
                    "/bin/sh", "-c", "echo \"$COMPUTE_PROFILE_CONFIG\"; cat \"$COMPUTE_PROFILE_CONFIG\""},
                   environment.entries);
  CHECK(run.exit_code == 0);
  const Strings out = lines_of(run.out);
  REQUIRE(!out.empty());
  CHECK(out.front().starts_with(environment.tmpdir.path().native() + "/computeprof-config-"));
  CHECK(run.out.substr(run.out.find('\n') + 1) == "# mine\ngridsize\ninst_executed\ngld_request\nbranch\n");
  CHECK(environment.tmpdir_is_empty());
}

TEST_CASE("an unreadable --config with --counters stops before running", "[launcher_run]") {
  const LauncherEnvironment environment;
  const LauncherResult run = run_launcher(
      {"--config", "/nonexistent/base.cfg", "--counters", "branch", "/bin/sh", "-c", "echo ran"}, environment.entries);
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK(run.err == "computeprof: cannot read config file '/nonexistent/base.cfg': No such file or directory\n");
  CHECK(environment.tmpdir_is_empty());
}

TEST_CASE("the application's exit status is returned", "[launcher_run]") {
  const LauncherEnvironment environment;
  const LauncherResult run = run_launcher({"/bin/sh", "-c", "echo out; echo err >&2; exit 7"}, environment.entries);
  CHECK(run.exit_code == 7);
  CHECK(run.out == "out\n");
  CHECK(run.err == "err\n" + kNoLogLine);
  CHECK(environment.tmpdir_is_empty());
}

TEST_CASE("an application killed by a signal gives 128 + the signal, and no log is said to be the signal's doing",
          "[launcher_run]") {
  const LauncherEnvironment environment;
  const LauncherResult run = run_launcher({"/bin/sh", "-c", "kill -9 $$"}, environment.entries);
  CHECK(run.exit_code == 128 + 9);
  CHECK(run.err ==
        "computeprof: no log written (the application was killed by signal 9 (SIGKILL) before any log was written)\n");
  CHECK(environment.tmpdir_is_empty());
}

TEST_CASE("an application that exits with status 137 was not killed: it made no calls", "[launcher_run]") {
  const LauncherEnvironment environment;
  const LauncherResult run = run_launcher({"/bin/sh", "-c", "exit 137"}, environment.entries);
  CHECK(run.exit_code == 137);
  CHECK(run.err == kNoLogLine);
}

TEST_CASE("logs named in the index are reported once each", "[launcher_run]") {
  const LauncherEnvironment environment;
  const LauncherResult run = run_launcher(
      {"/bin/sh", "-c",
       "for log in /w/profile_0.log /w/profile_1.log /w/profile_0.log; do echo $log >> \"$COMPUTEPROF_LOG_INDEX\"; "
       "done"},
      environment.entries);
  CHECK(run.exit_code == 0);
  CHECK(run.err == "computeprof: log written to /w/profile_0.log\ncomputeprof: log written to /w/profile_1.log\n");
  CHECK(environment.tmpdir_is_empty());
}

TEST_CASE("a missing application gives 127", "[launcher_run]") {
  const LauncherEnvironment environment;
  LauncherResult run = run_launcher({"/nonexistent/app", "arg"}, environment.entries);
  CHECK(run.exit_code == 127);
  CHECK(run.err == "computeprof: cannot run '/nonexistent/app': No such file or directory\n");
  run = run_launcher({"computeprof-test-no-such-program"}, environment.entries);
  CHECK(run.exit_code == 127);
  CHECK(run.err == "computeprof: cannot run 'computeprof-test-no-such-program': No such file or directory\n");
  CHECK(environment.tmpdir_is_empty());
}

TEST_CASE("an application without execute permission gives 126", "[launcher_run]") {
  const LauncherEnvironment environment;
  const ScratchDirectory work;
  std::ofstream(work / "script") << "#!/bin/sh\nexit 0\n";
  ::chmod((work / "script").c_str(), 0644);
  const LauncherResult run = run_launcher({work / "script"}, environment.entries);
  CHECK(run.exit_code == 126);
  CHECK(run.err == "computeprof: cannot run '" + (work / "script") + "': Permission denied\n");
}

TEST_CASE("SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1 and SIGUSR2 sent to the launcher reach the application",
          "[launcher_run]") {
  const int signal_number = GENERATE(SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2);
  INFO("signal " << signal_number);
  const LauncherEnvironment environment;
  const ScratchDirectory work;
  // Exits 42 on any of them; gives up by itself after about 30 s so that a failing test
  // leaves nothing behind.
  const std::string script = "trap 'exit 42' HUP INT QUIT TERM USR1 USR2; touch '" + (work / "ready") +
                             "'; i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; exit 1";
  LauncherProcess launcher({"/bin/sh", "-c", script}, environment.entries);
  REQUIRE(wait_for_file(work / "ready"));
  ::kill(launcher.pid(), signal_number);
  const LauncherResult run = launcher.wait();
  CHECK(run.exit_code == 42);
  CHECK(run.err == kNoLogLine);
  CHECK(environment.tmpdir_is_empty());
}

TEST_CASE("the application ends when the launcher is killed with SIGKILL", "[launcher_run]") {
  const LauncherEnvironment environment;
  const ScratchDirectory work;
  // The shell becomes sleep (exec): the pid written is the application's to the end.
  const std::string script = "echo $$ > '" + (work / "pid.tmp") + "'; mv '" + (work / "pid.tmp") + "' '" +
                             (work / "pid") + "'; exec sleep 30";
  LauncherProcess launcher({"/bin/sh", "-c", script}, environment.entries);
  REQUIRE(wait_for_file(work / "pid"));
  const pid_t application = std::stoi(read_text(work / "pid"));
  ::kill(launcher.pid(), SIGKILL);
  CHECK(launcher.wait().exit_code == 128 + SIGKILL);
  const bool ended = wait_until([&] { return has_ended(application); }, std::chrono::seconds(5));
  if (!ended) ::kill(application, SIGKILL);
  CHECK(ended);
}

TEST_CASE("an unknown counter is a usage error", "[launcher_run]") {
  const LauncherEnvironment environment;
  const LauncherResult run = run_launcher({"--counters", "x", "/bin/true"}, environment.entries);
  CHECK(run.exit_code == 2);
  CHECK(run.err == "computeprof: unknown counter 'x' (see computeprof --help)\n");
  CHECK(environment.tmpdir_is_empty());
}

TEST_CASE("a missing preload library is reported before anything runs", "[launcher_run]") {
  LauncherEnvironment environment;
  environment.entries.back() = "COMPUTEPROF_LIBRARY=/nonexistent/libcomputeprof.so";
  const LauncherResult run = run_launcher({"/bin/sh", "-c", "echo ran"}, environment.entries);
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK(run.err ==
        "computeprof: cannot find libcomputeprof.so (tried /nonexistent/libcomputeprof.so); "
        "set COMPUTEPROF_LIBRARY to its path\n");
}

TEST_CASE("version and help", "[launcher_run]") {
  const LauncherEnvironment environment;
  LauncherResult run = run_launcher({"--version"}, environment.entries);
  CHECK(run.exit_code == 0);
  CHECK(run.out == "computeprof " COMPUTEPROF_VERSION "\n");
  run = run_launcher({"--help"}, environment.entries);
  CHECK(run.exit_code == 0);
  CHECK(run.out.starts_with("Usage: computeprof [options] [--] application [arguments...]\n"));
  CHECK(contains_line(run.out, "  --counters a,b,...  counters to collect, in addition to those of --config"));
}

TEST_CASE("a config file extended by options is named as the user's in the shim's warnings", "[launcher_run]") {
  const LauncherEnvironment environment;
  const ScratchDirectory work;
  std::ofstream(work / "mine.cfg") << "gridsize\n";
  const LauncherResult with_config = run_launcher(
      {"--config", work / "mine.cfg", "--memtrace", "/bin/sh", "-c", "echo \"$COMPUTEPROF_CONFIG_NAME\""},
      environment.entries);
  CHECK(with_config.exit_code == 0);
  CHECK(with_config.out == (work / "mine.cfg") + "\n");
  const LauncherResult options_only =
      run_launcher({"--memtrace", "/bin/sh", "-c", "echo \"$COMPUTEPROF_CONFIG_NAME\""}, environment.entries);
  CHECK(options_only.out == "computeprof's options\n");
  // A config file passed on as it is keeps its own name.
  const LauncherResult as_given =
      run_launcher({"--config", work / "mine.cfg", "/bin/sh", "-c", "echo \"[$COMPUTEPROF_CONFIG_NAME]\""},
                   environment.entries);
  CHECK(as_given.out == "[]\n");
}

TEST_CASE("the --csv flag against profilelogformat KVP in the config file is one warning: the file wins", "[launcher_run]") {
  const LauncherEnvironment environment;
  const ScratchDirectory work;
  std::ofstream(work / "kvp.cfg") << "profilelogformat KVP\n";
  const LauncherResult run = run_launcher({"--csv", "--config", work / "kvp.cfg", "/bin/true"}, environment.entries);
  CHECK(run.exit_code == 0);
  CHECK(run.err == "computeprof: --csv: the config file '" + (work / "kvp.cfg") +
                       "' says profilelogformat KVP, which wins\n" + kNoLogLine);
  std::ofstream(work / "csv.cfg") << "profilelogformat CSV\n";
  CHECK(run_launcher({"--csv", "--config", work / "csv.cfg", "/bin/true"}, environment.entries).err == kNoLogLine);
}
