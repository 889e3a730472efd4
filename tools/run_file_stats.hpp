#pragma once
// A run file (docs/format.md, "Run file") read into the aggregate of `computeprof stats`
// (stats_input.hpp): each operation under the method its log line has, with its gputime
// and the NVTX path it was issued in (a graph launch timed as a whole left out, as the
// summary leaves it out); each operation's call (one per correlation id), memory event's
// call and traced call (reports/api_summary.hpp); each push/pop and start/end range by
// its name (`name@domain` outside the default domain); where it traced API calls, why
// each device sat idle (reports/gpu_idle.hpp); the rank its header records.
#include <string>
#include <string_view>

#include "tools/stats_input.hpp"

namespace computeprof::tools {

// Adds the run file at `path` (shown as `shown_path`) to `input`; returns the warning,
// empty when every record was read. A run that had not ended (killed, or still running)
// is read to its last flush point without a warning.
std::string add_run_file(const std::string& path, std::string_view shown_path, StatsInput& input);

}  // namespace computeprof::tools
