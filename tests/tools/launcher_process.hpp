#pragma once
// Runs the built computeprof binary (COMPUTEPROF_CLI_PATH) as a separate process, with an
// environment of exactly the given entries, and captures its stdout and stderr.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "scratch_directory.hpp"

struct LauncherResult {
  int exit_code = -1;  // as a shell reports it: the exit status, or 128 + signal number
  std::string out;
  std::string err;
};

class LauncherProcess {
 public:
  LauncherProcess(const std::vector<std::string>& args, const std::vector<std::string>& environment);
  ~LauncherProcess();
  LauncherProcess(const LauncherProcess&) = delete;
  LauncherProcess& operator=(const LauncherProcess&) = delete;

  pid_t pid() const { return pid_; }

  // Waits for the launcher to exit; kills it and fails the test when `limit` passes.
  LauncherResult wait(std::chrono::seconds limit = std::chrono::seconds(30));

 private:
  ScratchDirectory capture_;
  pid_t pid_ = -1;
};

inline LauncherResult run_launcher(const std::vector<std::string>& args, const std::vector<std::string>& environment) {
  return LauncherProcess(args, environment).wait();
}
