#include "cupti/counter_metrics.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

namespace computeprof::cupti {

CounterMetrics counter_metrics(const std::bitset<config::kLegacyCounterCount>& counters) {
  CounterMetrics result;
  const auto table = config::legacy_counters();
  for (std::size_t id = 0; id < table.size(); ++id) {
    if (!counters.test(id)) continue;
    const std::string_view metric = table[id].metric;
    if (metric.empty()) {
      result.columns.push_back({id, std::nullopt});
      result.unavailable.push_back(id);
      continue;
    }
    // Several legacy names share a metric (cta_launched, sm_cta_launched): collected once.
    auto found = std::find(result.metrics.begin(), result.metrics.end(), metric);
    if (found == result.metrics.end()) found = result.metrics.emplace(result.metrics.end(), metric);
    result.columns.push_back({id, static_cast<std::size_t>(std::distance(result.metrics.begin(), found))});
  }
  return result;
}

}  // namespace computeprof::cupti
