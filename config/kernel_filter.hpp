#pragma once
// Which kernels a profile covers (docs/format.md, "Choosing kernels"): the config lines
// `kernels SPEC`, `kernelexclude EXPR`, `launchskip N`, `launchcount N` and
// `kernelfilterscope counters|all`, parsed. Matching a launch is the shim's
// (shim/process/recorded_operation), which decides once per kernel what depends on its name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/name_pattern.hpp"

namespace computeprof::config {

// One `kernels` line: [context:[stream:]]name[:invocation]; an empty or absent field
// matches everything.
struct KernelSpec {
  std::optional<std::uint64_t> context;     // the logs' context number
  std::optional<std::uint64_t> stream;      // the stream's id (cuStreamGetId)
  std::string name;                         // equal to the mangled or the demangled base name
  std::optional<NamePattern> pattern;       // regex:EXPR, searched in the mangled and demangled names
  std::string text;                         // the line's value, for messages
  std::optional<std::uint64_t> invocation;  // the kernel's n-th launch, from 1
};

enum class FilterScope : unsigned char {
  counters,  // every launch recorded, counters collected for the selected ones only
  all,       // only the selected launches recorded (copies and memsets as ever)
};

struct KernelFilters {
  std::vector<KernelSpec> include;  // alternatives; none: every kernel
  std::vector<NamePattern> exclude;  // applied after the includes
  std::vector<std::string> exclude_text;
  std::uint64_t skip = 0;               // the first selected launches passed over
  std::optional<std::uint64_t> count;   // then at most this many
  FilterScope scope = FilterScope::counters;

  // Whether any of these lines was given: otherwise every launch is selected.
  bool active() const { return !include.empty() || !exclude.empty() || skip != 0 || count.has_value(); }
  // Whether a selection depends on how many times kernels were launched.
  bool counts_launches() const;
};

// Parses a `kernels` value; on failure, empty with `error` set (what is wrong, for a
// warning that names the line).
std::optional<KernelSpec> parse_kernel_spec(std::string_view text, std::string& error);

}  // namespace computeprof::config
