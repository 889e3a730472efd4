// computeprof export RUN.cprof... --to FORMATS [-o STEM] [-f]: the exports of a run made
// from its run file after the fact (docs/format.md, "Run file"): a finished run, a
// killed one (every record to its last flush point) or a running one (what it has
// flushed so far).
#pragma once
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/profile_config.hpp"
#include "tools/usage_error.hpp"

namespace computeprof::tools {

struct ExportOptions {
  std::vector<std::string> inputs;             // never empty
  std::vector<config::ExportFormat> formats;   // never empty; no cprof
  std::string stem;                            // -o: with one input only; empty: each input's path less .cprof
  bool overwrite = false;                      // -f
  bool operator==(const ExportOptions&) const = default;
};

// The words after `export`.
std::variant<ExportOptions, UsageError> parse_export_command_line(std::span<const std::string_view> args);

// Writes every export of every input, a line each on `out` (its path and what it
// holds). Returns 0; 1 after an error on stderr naming the file (a file that exists
// without -f, before anything is written; a run file that cannot be read or is
// damaged, whose records before the damage are still written).
int export_runs(const ExportOptions& options, std::FILE* out);

}  // namespace computeprof::tools
