#pragma once
// What the exports write about the run besides its records: the process, its host, its
// clocks, the settings that shape the files, and where the records' ids lead (NVTX
// texts, call stacks). The conversion fills it from the run file (run_conversion.cpp)
// and updates it between calls; each writer holds it by const reference.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/distributed_rank.hpp"
#include "records/range_table.hpp"
#include "symbols/frame.hpp"

namespace computeprof::exports {

// Time 0 of the exports on both clocks: the wall clock (CLOCK_REALTIME), which the
// events count from, and the monotonic clock at the same instant, so that traces of
// several hosts, or a trace and a monotonic log of the same host, share one axis.
struct ExportClocks {
  std::uint64_t wall_ns = 0;
  std::uint64_t monotonic_ns = 0;
};

struct RunFacts {
  std::uint64_t pid = 0;
  std::string program_name;  // the process's (short) name
  std::string host_name;     // empty: unknown
  std::optional<config::DistributedRank> distributed_rank;
  // Zero until known; filled before the first event. The JSON trace takes its time 0
  // at its first event, the nsys-shaped database at begin().
  ExportClocks clocks;
  // Whether the CUDA runtime drives the process: nvprof's database files calls as
  // runtime calls then. Read with each record.
  bool cuda_runtime_present = false;
  std::vector<std::size_t> counters;  // the configured legacy counters' ids, in order
  std::uint64_t export_limit = 0;     // bytes; 0: no limit
  // The NVTX texts the records' and range events' ids name.
  const records::RangeTable* ranges = nullptr;
  // The frames of a record's stack id (non-zero), innermost first; the reference stays
  // valid for the run.
  std::function<const std::vector<symbols::Frame>&(std::uint32_t stack_id)> stack;
};

}  // namespace computeprof::exports
