#include "catch.hpp"

#include <bitset>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "config/counters.hpp"
#include "cupti/counter_metrics.hpp"

using computeprof::config::find_legacy_counter;
using computeprof::config::kLegacyCounterCount;
using computeprof::cupti::counter_metrics;
using computeprof::cupti::CounterMetrics;

namespace {

std::bitset<kLegacyCounterCount> counters(std::initializer_list<std::string_view> names) {
  std::bitset<kLegacyCounterCount> set;
  for (std::string_view name : names) set.set(*find_legacy_counter(name));
  return set;
}

}  // namespace

TEST_CASE("counters that share a metric collect it once and keep their columns", "[counter_metrics]") {
  const CounterMetrics result = counter_metrics(counters({"inst_executed", "gld_64b", "cta_launched", "sm_cta_launched"}));
  CHECK(result.metrics == std::vector<std::string>{"sm__ctas_launched.sum", "smsp__inst_executed.sum"});
  // Column order: sm_cta_launched (6), cta_launched (7), inst_executed (9), gld_64b (33).
  CHECK(result.columns == std::vector<CounterMetrics::Column>{{6, 0}, {7, 0}, {9, 1}, {33, std::nullopt}});
  CHECK(result.unavailable == std::vector<std::size_t>{33});
}

TEST_CASE("counters with no metric are all listed as unavailable", "[counter_metrics]") {
  const CounterMetrics result = counter_metrics(counters({"prof_trigger_07", "gst_incoherent", "prof_trigger_00"}));
  CHECK(result.metrics.empty());
  CHECK(result.unavailable == std::vector<std::size_t>{32, 37, 44});
  CHECK(result.columns.size() == 3);
}

TEST_CASE("no counters need no metrics", "[counter_metrics]") {
  CHECK(counter_metrics({}) == CounterMetrics{});
}

TEST_CASE("all legacy counters need 28 distinct metrics", "[counter_metrics]") {
  std::bitset<kLegacyCounterCount> all;
  all.set();
  const CounterMetrics result = counter_metrics(all);
  CHECK(result.metrics.size() == 28);
  CHECK(result.columns.size() == kLegacyCounterCount);
  CHECK(result.unavailable.size() == 14);
  CHECK(result.metrics.front() == "smsp__inst_executed_op_local_ld.sum");
  CHECK(result.metrics.back() == "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
}
