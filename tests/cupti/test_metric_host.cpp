#include "catch.hpp"

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/counters.hpp"
#include "cupti/counter_metrics.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti/metric_host.hpp"

using computeprof::cupti::CuptiLibrary;
using computeprof::cupti::MetricHost;

namespace {

const CuptiLibrary& cupti() {
  const auto& loaded = computeprof::cupti::process_cupti();
  INFO(loaded.error);
  REQUIRE(loaded.library);
  return *loaded.library;
}

MetricHost open_host(const std::string& chip) {
  auto host = MetricHost::open(cupti(), chip);
  INFO(host.error);
  REQUIRE(host);
  return std::move(*host.value);
}

// The metrics of these legacy counters, through the one table (config/counters).
std::vector<std::string> metrics_of(std::initializer_list<std::string_view> names) {
  std::bitset<computeprof::config::kLegacyCounterCount> counters;
  for (std::string_view name : names) counters.set(*computeprof::config::find_legacy_counter(name));
  return computeprof::cupti::counter_metrics(counters).metrics;
}

std::vector<std::string> all_mapped_metrics() {
  std::bitset<computeprof::config::kLegacyCounterCount> counters;
  counters.set();
  return computeprof::cupti::counter_metrics(counters).metrics;
}

std::size_t passes(const MetricHost& host, const std::vector<std::string>& metrics) {
  const auto image = host.config_image(metrics);
  INFO(image.error);
  REQUIRE(image);
  CHECK_FALSE(image.value->empty());
  const auto count = host.passes(*image.value);
  INFO(count.error);
  REQUIRE(count);
  return *count.value;
}

}  // namespace

TEST_CASE("every mapped metric exists on GH100 GA100 TU102 AD102 and GB100", "[metric_host]") {
  const std::string chip = GENERATE("GH100", "GA100", "TU102", "AD102", "GB100");
  CAPTURE(chip);
  const MetricHost host = open_host(chip);
  CHECK(host.chip() == chip);
  for (const auto& counter : computeprof::config::legacy_counters()) {
    if (counter.metric.empty()) continue;
    CAPTURE(counter.name, counter.metric);
    CHECK(host.supports(std::string(counter.metric)));
  }
}

// Measured with CUPTI 13.0; the same on all five chips. The _sass_ (instrumented)
// branch metrics cannot share a pass with hardware counters.
TEST_CASE("pass counts of legacy counter sets on GH100 GA100 TU102 AD102 and GB100", "[metric_host]") {
  const std::string chip = GENERATE("GH100", "GA100", "TU102", "AD102", "GB100");
  CAPTURE(chip);
  const MetricHost host = open_host(chip);
  CHECK(passes(host, metrics_of({"active_cycles", "active_warps", "inst_executed", "inst_issued"})) == 1);
  CHECK(passes(host, metrics_of({"gld_request", "gst_request", "branch", "divergent_branch"})) == 2);
  CHECK(passes(host, metrics_of({"l1_global_load_hit", "l1_global_load_miss", "l1_local_load_hit", "l1_local_load_miss"})) == 2);
  CHECK(passes(host, metrics_of({"branch"})) == 1);
  CHECK(passes(host, all_mapped_metrics()) == 7);
}

TEST_CASE("a config image depends only on its metrics and not on earlier images", "[metric_host]") {
  const MetricHost host = open_host("GH100");
  const std::vector<std::string> one_pass = metrics_of({"active_cycles", "inst_executed"});
  const auto first = host.config_image(one_pass);
  REQUIRE(first);
  CHECK(passes(host, all_mapped_metrics()) == 7);
  const auto again = host.config_image(one_pass);
  REQUIRE(again);
  CHECK(*again.value == *first.value);
  CHECK(passes(host, one_pass) == 1);
}

TEST_CASE("an unknown metric is unsupported and has no config image", "[metric_host]") {
  const MetricHost host = open_host("GH100");
  CHECK_FALSE(host.supports("sm__no_such_counter.sum"));
  CHECK_FALSE(host.supports("inst_executed"));
  const auto image = host.config_image(std::vector<std::string>{"sm__no_such_counter.sum"});
  CHECK_FALSE(image);
  // CUPTI 13.0 says INVALID_PARAMETER here, and INVALID_METRIC_NAME only to supports().
  CHECK(image.error == "cuptiProfilerHostConfigAddMetrics failed: CUPTI_ERROR_INVALID_PARAMETER (1)");
}

TEST_CASE("an unknown chip is refused with CUPTI's reason", "[metric_host]") {
  const auto host = MetricHost::open(cupti(), "XY999");
  CHECK_FALSE(host);
  CHECK(host.error == "chip 'XY999': cuptiProfilerHostInitialize failed: CUPTI_ERROR_INVALID_CHIP_NAME (46)");
}

TEST_CASE("an empty counter data image cannot be evaluated", "[metric_host]") {
  const MetricHost host = open_host("GH100");
  const auto values = host.evaluate({}, 0, metrics_of({"inst_executed"}));
  CHECK_FALSE(values);
  CHECK(values.error == "cuptiProfilerHostEvaluateToGpuValues failed: CUPTI_ERROR_INVALID_PARAMETER (1)");
}

TEST_CASE("a moved-from host is inert and the new owner still answers", "[metric_host]") {
  MetricHost first = open_host("GH100");
  MetricHost second = std::move(first);
  CHECK(second.supports("sm__ctas_launched.sum"));
  second = open_host("TU102");
  CHECK(second.chip() == "TU102");
  CHECK(second.supports("sm__ctas_launched.sum"));
}

TEST_CASE("CUPTI lists the five chips the tests use", "[metric_host]") {
  const auto chips = computeprof::cupti::supported_chips(cupti());
  REQUIRE(chips);
  for (const char* chip : {"GH100", "GA100", "TU102", "AD102", "GB100"}) {
    CAPTURE(chip);
    CHECK(std::find(chips->begin(), chips->end(), chip) != chips->end());
  }
}
