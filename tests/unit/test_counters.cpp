#include "catch.hpp"

#include <cstddef>
#include <iterator>
#include <set>
#include <string>
#include <string_view>

#include "config/counters.hpp"

using namespace computeprof::config;

TEST_CASE("legacy counters keep the docs/counters.md order and names", "[counters]") {
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

// docs/counters.md's mapping, written out again here so that each row of the table in
// config/counters.cpp is checked against it on its own.
TEST_CASE("each legacy counter row matches docs/counters.md", "[counters]") {
  struct Row {
    std::string_view name;
    std::string_view metric;
  };
  static constexpr Row kExpected[] = {
      {"local_load", "smsp__inst_executed_op_local_ld.sum"},
      {"local_store", "smsp__inst_executed_op_local_st.sum"},
      {"gld_request", "smsp__inst_executed_op_global_ld.sum"},
      {"gst_request", "smsp__inst_executed_op_global_st.sum"},
      {"divergent_branch", "smsp__sass_branch_targets_threads_divergent.sum"},
      {"branch", "smsp__sass_branch_targets.sum"},
      {"sm_cta_launched", "sm__ctas_launched.sum"},
      {"cta_launched", "sm__ctas_launched.sum"},
      {"instructions", "smsp__inst_executed.sum"},
      {"inst_executed", "smsp__inst_executed.sum"},
      {"inst_issued", "smsp__inst_issued.sum"},
      {"warps_launched", "smsp__warps_launched.sum"},
      {"threads_launched", "smsp__threads_launched.sum"},
      {"shared_load", "smsp__inst_executed_op_shared_ld.sum"},
      {"shared_store", "smsp__inst_executed_op_shared_st.sum"},
      {"active_cycles", "sm__cycles_active.sum"},
      {"active_warps", "sm__warps_active.sum"},
      {"l1_global_load_hit", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"},
      {"l1_global_load_miss", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"},
      {"l1_local_load_hit", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum"},
      {"l1_local_load_miss", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum"},
      {"l1_local_store_hit", "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum"},
      {"l1_local_store_miss", "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum"},
      {"l1_shared_bank_conflict", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"},
      {"warp_serialize", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"},
      {"tex_cache_hit", "l1tex__t_sectors_pipe_tex_mem_texture_lookup_hit.sum"},
      {"tex_cache_miss", "l1tex__t_sectors_pipe_tex_mem_texture_lookup_miss.sum"},
      {"gld_32b", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
      {"gst_32b", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"},
      {"gld_coherent", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
      {"gst_coherent", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
      {"gld_incoherent", ""},
      {"gst_incoherent", ""},
      {"gld_64b", ""},
      {"gld_128b", ""},
      {"gst_64b", ""},
      {"gst_128b", ""},
      {"prof_trigger_00", ""},
      {"prof_trigger_01", ""},
      {"prof_trigger_02", ""},
      {"prof_trigger_03", ""},
      {"prof_trigger_04", ""},
      {"prof_trigger_05", ""},
      {"prof_trigger_06", ""},
      {"prof_trigger_07", ""},
  };
  static_assert(std::size(kExpected) == kLegacyCounterCount);
  const std::size_t id = GENERATE(range(std::size_t{0}, kLegacyCounterCount));
  const Row& expected = kExpected[id];
  CAPTURE(id, expected.name);
  REQUIRE(find_legacy_counter(expected.name) == id);
  CHECK(legacy_counters()[id].name == expected.name);
  CHECK(legacy_counters()[id].metric == expected.metric);
}
