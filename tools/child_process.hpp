#pragma once
// Runs the application as a child process (fork + execvpe) and waits for it, passing on
// SIGINT and SIGTERM that were sent to the launcher alone.
#include <string>
#include <vector>

namespace computeprof::tools {

struct ChildOutcome {
  int exec_error = 0;  // errno of the failed exec; 0 when the application ran
  // As a shell reports it: the exit status, or 128 + signal number. Meaningless when
  // exec_error is set.
  int exit_code = 0;
};

// `command` is the program (searched in PATH) and its arguments; `environment` holds
// the child's "NAME=value" entries.
ChildOutcome run_child(const std::vector<std::string>& command, const std::vector<std::string>& environment);

}  // namespace computeprof::tools
