#pragma once
// A classic log read back into nvprof's summary (docs/format.md, "Summary"): what
// `computeprof stats` does with each log it is given.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "reports/summary_table.hpp"

namespace computeprof::logfmt {

// Where and why a log could not be read.
struct LogReadError {
  std::size_t line = 0;  // from 1
  std::string what;
};

// Adds each record of `log`, the whole text of a key-value or CSV log as computeprof
// writes it (header, column line, records), to `summary`: its method and its gputime
// in nanoseconds, exactly. graphLaunch records are left out, as the shim's `summary`
// leaves them out. The first line that is not what the format says is the error; the
// records before it have been added.
std::optional<LogReadError> add_log_to_summary(std::string_view log, reports::GpuSummary& summary);

}  // namespace computeprof::logfmt
