#pragma once
// computeprof report [--compare BASE... --] FILE... -o OUT.html [-f]: one HTML page that
// works offline (docs/format.md, "Report"): the tables of `computeprof stats --format
// json` for the same files, with --ranks' when there are several and --compare's against
// BASE, and the timeline of the run files among them.
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tools/usage_error.hpp"

namespace computeprof::tools {

struct ReportOptions {
  std::vector<std::string> files;  // never empty
  std::vector<std::string> base;   // --compare: the files compared against
  std::string output;              // -o
  bool overwrite = false;          // -f
  bool operator==(const ReportOptions&) const = default;
};

// The words after `report`.
std::variant<ReportOptions, UsageError> parse_report_command_line(std::span<const std::string_view> args);

// Writes the page; returns 0, or 1 after a warning naming the file (an input stats
// cannot read, an output that exists without -f or cannot be written; nothing is left
// at the output then).
int write_report(const ReportOptions& options);

}  // namespace computeprof::tools
