#include "config/counters.hpp"

#include <array>

namespace computeprof::config {
namespace {

constexpr std::array<LegacyCounter, kLegacyCounterCount> kCounters{{
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
}};

}  // namespace

std::span<const LegacyCounter> legacy_counters() { return kCounters; }

std::optional<std::size_t> find_legacy_counter(std::string_view name) {
  for (std::size_t i = 0; i < kCounters.size(); ++i) {
    if (kCounters[i].name == name) return i;
  }
  return std::nullopt;
}

}  // namespace computeprof::config
