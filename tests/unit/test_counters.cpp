#include "catch.hpp"

#include <set>
#include <string>

#include "config/counters.hpp"

using namespace computeprof::config;

TEST_CASE("legacy counters keep the COUNTERS.md order and names", "[counters]") {
  auto counters = legacy_counters();
  REQUIRE(counters.size() == kLegacyCounterCount);
  CHECK(counters.front().name == "local_load");
  CHECK(counters[2].name == "gld_request");
  CHECK(counters[9].name == "inst_executed");
  CHECK(counters[16].name == "active_warps");
  CHECK(counters[30].name == "gst_coherent");
  CHECK(counters.back().name == "prof_trigger_07");
  std::set<std::string_view> names;
  for (const auto& c : counters) names.insert(c.name);
  CHECK(names.size() == kLegacyCounterCount);
}

TEST_CASE("legacy counters map to their Perfworks metrics", "[counters]") {
  auto metric = [](std::string_view name) { return legacy_counters()[*find_legacy_counter(name)].metric; };
  CHECK(metric("gld_request") == "smsp__inst_executed_op_global_ld.sum");
  CHECK(metric("sm_cta_launched") == "sm__ctas_launched.sum");
  CHECK(metric("cta_launched") == "sm__ctas_launched.sum");
  CHECK(metric("divergent_branch") == "smsp__sass_branch_targets_threads_divergent.sum");
  CHECK(metric("warp_serialize") == "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum");
  CHECK(metric("gld_64b").empty());
  CHECK(metric("prof_trigger_03").empty());
  std::size_t unmapped = 0;
  for (const auto& c : legacy_counters()) unmapped += c.metric.empty() ? 1 : 0;
  CHECK(unmapped == 14);
  CHECK_FALSE(find_legacy_counter("Gld_request"));
  CHECK_FALSE(find_legacy_counter("gld_request "));
}
