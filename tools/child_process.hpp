#pragma once
// Runs the application as a child process (fork + execvpe) and waits for it, passing on
// SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1 and SIGUSR2 that were sent to the launcher
// alone. The application gets SIGTERM if the launcher dies first.
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace computeprof::tools {

struct ChildOutcome {
  int exec_error = 0;  // errno of the failed exec; 0 when the application ran
  // As a shell reports it: the exit status, or 128 + signal number. Meaningless when
  // exec_error is set.
  int exit_code = 0;
  int signal = 0;  // the signal that ended the application; 0 when it exited
};

// `command` is the program (searched in PATH) and its arguments; `environment` holds
// the child's "NAME=value" entries.
// `started`, when given, is called with the child's pid as soon as it is forked, before
// the application runs (computeprof nvprof's first line).
ChildOutcome run_child(const std::vector<std::string>& command, const std::vector<std::string>& environment,
                       const std::function<void(pid_t)>& started = {});

// The launcher's own environment ("NAME=value" entries), from which the child's is made.
std::vector<std::string> current_environment();

// Says that `program` could not be run (one line) and returns the exit status a shell
// gives such a command: 126 when it may not be executed, 127 otherwise.
int report_exec_failure(const std::string& program, int exec_error);

}  // namespace computeprof::tools
