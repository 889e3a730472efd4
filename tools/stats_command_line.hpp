#pragma once
// The arguments of `computeprof stats` (docs/format.md, "Stats output"):
//   stats [--format text|csv|json] FILE...
//   stats --ranks [--straggler PCT] [--format F] FILE...
//   stats --compare [--max-regress PCT] [--format F] BASE... -- NEW...
// Options may come anywhere before the files end; outside --compare, "--" ends them.
#include <span>
#include <string_view>
#include <variant>

#include "tools/stats.hpp"
#include "tools/usage_error.hpp"

namespace computeprof::tools {

// `args` are those after "stats".
std::variant<StatsOptions, UsageError> parse_stats_command_line(std::span<const std::string_view> args);

}  // namespace computeprof::tools
