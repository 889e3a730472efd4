#pragma once
// The timeline of `computeprof report` (docs/format.md, "Report"), read from run files:
// per device its streams' kernels, copies and memsets; per process its threads' API
// calls and NVTX ranges; each device's memory use over time where memtrace recorded it.
// Written as a description (JSON: the processes, names and tracks) and one block of
// varints (every track's items, times as differences), which the page reads once.
#include <cstdint>
#include <string>
#include <vector>

namespace computeprof::tools {

struct ReportTimeline {
  std::string description;  // JSON
  std::string items;        // varints, in the order of the description's tracks
  std::uint64_t operations = 0;
};

// The run files among `paths` (others hold no timeline: they are left out); a file that
// is damaged gives its records before the damage, and a warning in `warnings`.
ReportTimeline read_report_timeline(const std::vector<std::string>& paths, std::vector<std::string>& warnings);

}  // namespace computeprof::tools
