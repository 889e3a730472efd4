#pragma once
// The Perfworks metrics that a config's legacy counters need. The legacy-name table
// itself is config/counters; this only groups what one config asks for.
#include <bitset>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "config/counters.hpp"

namespace computeprof::cupti {

struct CounterMetrics {
  // One requested counter: its legacy id and the index of its metric in `metrics`,
  // nullopt when no metric counts it today (its value is n/a).
  struct Column {
    std::size_t counter = 0;
    std::optional<std::size_t> metric;

    bool operator==(const Column&) const = default;
  };

  std::vector<std::string> metrics;      // distinct, in the order columns first use them
  std::vector<Column> columns;           // the requested counters, in column order
  std::vector<std::size_t> unavailable;  // ids of requested counters with no metric

  bool operator==(const CounterMetrics&) const = default;
};

// `counters` is indexed by legacy id (config::ProfileConfig::counters).
CounterMetrics counter_metrics(const std::bitset<config::kLegacyCounterCount>& counters);

}  // namespace computeprof::cupti
