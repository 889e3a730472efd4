#pragma once
// `computeprof nvprof`: runs the application under the shim with `export nvprof`, then
// prints nvprof's outputs from the database it wrote and keeps the database where -o
// says (docs/format.md, "computeprof nvprof").
#include "tools/nvprof_command_line.hpp"

namespace computeprof::tools {

// The application's exit status (as run_profiled's). Throws LaunchError.
int run_nvprof(const NvprofOptions& options);

}  // namespace computeprof::tools
