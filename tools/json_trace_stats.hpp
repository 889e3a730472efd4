#pragma once
// A JSON trace (docs/format.md, "JSON trace"), plain or gzip, as one input of
// `computeprof stats`: its GPU operations named as the same run's log names them, its
// NVTX ranges with the GPU time issued inside them, and the rank its distributedInfo
// records. Read as a stream: the trace is never held whole.
#include <string>

#include "tools/stats_input.hpp"

namespace computeprof::tools {

// Adds the trace at `path` to `input`; `shown_path` names it in the error. Returns the
// error (the file, and the line and column or the event), empty when every event was read.
std::string add_json_trace(const std::string& path, const std::string& shown_path, StatsInput& input);

}  // namespace computeprof::tools
