// computeprof merge FILE... -o OUT.json[.gz] [--align NAME]: the JSON traces of several
// processes (ranks) as one trace on one time axis (docs/format.md, "Merged trace").
#pragma once

#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tools/usage_error.hpp"

namespace computeprof::tools {

struct MergeOptions {
  std::vector<std::string> inputs;  // never empty
  std::string output;               // ends in .gz: gzip-compressed
  std::optional<std::string> align;  // the kernel or NVTX range whose first end lines the ranks up

  bool operator==(const MergeOptions&) const = default;
};

// The words after `merge`.
std::variant<MergeOptions, UsageError> parse_merge_command_line(std::span<const std::string_view> args);

// Writes the merged trace; prints the shifts (--align) and one summary line on `out`.
// Returns 0, or 1 after one error on stderr naming the file (then no output file is left).
int merge_traces(const MergeOptions& options, std::FILE* out);

}  // namespace computeprof::tools
