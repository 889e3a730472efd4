#pragma once
// One input of `computeprof stats` read into the aggregate its tables are made of
// (docs/format.md, "Stats output"): its operations by method (calls, total, shortest and
// longest gputime), its API calls (all but logs), its NVTX ranges, why its GPUs sat idle
// (run files), and the rank it records. A file is held only while
// it is read; what is kept of it is one row per method and per range name.
//
// Readers, chosen by a file's first bytes: a database (SQLite's magic) by the database
// reader below, a run file (CPROFRUN) by add_run_file (tools/run_file_stats.hpp), a JSON trace ('{' or gzip's magic) by add_json_trace
// (tools/json_trace_stats.hpp), anything else as a key-value or CSV log by
// logfmt::add_log_to_summary. Each fills `operations` (method, gputime in ns),
// `api_calls` and `ranges`, sets `rank` where the file records one (a JSON trace's
// distributedInfo.rank), and returns its error text.
#include <cstdint>
#include <optional>
#include <string>

#include "reports/api_summary.hpp"
#include "reports/gpu_idle.hpp"
#include "reports/range_summary.hpp"
#include "reports/summary_table.hpp"

namespace computeprof::tools {

struct StatsInput {
  reports::GpuSummary operations;
  // Every input's calls but a log's (it has none).
  reports::ApiSummary api_calls;
  reports::RangeSummary ranges;
  reports::GpuIdleSummary idle;  // run files with API calls only: the others have no calls
  std::optional<std::uint64_t> rank;  // as the file records it; nullopt where it does not
};

// Adds the operations of the database or log at `path` to `input`. Returns the warning
// (naming the file, and the line of a log or the table of a database), empty when every
// record was read.
std::string read_stats_input(const std::string& path, StatsInput& input);

}  // namespace computeprof::tools
