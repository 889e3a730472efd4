#pragma once
// The legacy counter names a config file may ask for, in the fixed column order of
// docs/format.md "Columns", with the Perfworks metric that counts the same thing on sm_75
// and newer (docs/counters.md). This table is the only place that mapping lives.
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace computeprof::config {

struct LegacyCounter {
  std::string_view name;
  // Empty when no metric on today's GPUs counts it: the column stays, its value is n/a.
  std::string_view metric;
};

// All legacy counters, in column order. A counter's index in this span is its id.
std::span<const LegacyCounter> legacy_counters();

inline constexpr std::size_t kLegacyCounterCount = 45;

std::optional<std::size_t> find_legacy_counter(std::string_view name);

}  // namespace computeprof::config
