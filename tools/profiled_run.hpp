#pragma once
// `computeprof [options] app args...`: everything between the parsed command line and
// the application's exit status.
#include "tools/command_line.hpp"

namespace computeprof::tools {

// Runs the application under the shim and reports the logs it wrote. Returns the exit
// status for computeprof: the application's, or 126/127 when it could not be started.
// Throws LaunchError when the launch cannot be prepared.
int run_profiled(const RunOptions& options);

}  // namespace computeprof::tools
