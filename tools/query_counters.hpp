#pragma once
// computeprof --query-counters: each legacy counter, its metric and whether a chip has
// it, and the passes that the requested counters need there. CUPTI's host API answers
// from the chip name alone: no GPU and no driver are used.
#include <optional>
#include <string>

#include "tools/command_line.hpp"

namespace computeprof::tools {

// Prints the answer on stdout and returns the exit status: 0, 1 when CUPTI cannot be
// loaded, 2 for a chip CUPTI does not know or an unreadable config file.
// `environment_config` is COMPUTE_PROFILE_CONFIG, used when there is no --config.
int query_counters(const QueryOptions& options, const std::optional<std::string>& environment_config);

}  // namespace computeprof::tools
