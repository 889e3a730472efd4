#pragma once
// How the simulated driver tells the simulated CUPTI (tests/sim/cupti) what work ran:
// not part of any CUDA API. The driver exports simcuda_set_activity_hooks; once the
// simulated CUPTI installed its hooks, each call that submits work asks for a
// correlation id on the calling thread, and each piece of work reports its simulated
// device start and end when it has run, on its stream's worker.
#include <cstdint>

namespace sim {

enum class WorkKind : std::uint8_t { kernel, memcpy, memset, graph };

// Memory kinds as CUPTI numbers them (CUpti_ActivityMemoryKind).
enum class WorkMemory : std::uint8_t { unknown = 0, pageable = 1, pinned = 2, device = 3, array = 4 };

struct WorkRecord {
  WorkKind kind = WorkKind::kernel;
  int cbid = 0;                  // CUPTI's callback id of the driver call that submitted it
  std::uint32_t correlation = 0;
  std::uint64_t start_ns = 0;    // simulated device time, CLOCK_MONOTONIC ns
  std::uint64_t end_ns = 0;
  std::uint32_t context_id = 0;
  std::uint32_t stream_id = 0;
  std::uint32_t graph_id = 0;    // 0 outside graphs
  std::uint64_t graph_node_id = 0;

  // Kernels.
  const char* name = nullptr;  // lives as long as the process
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint32_t dynamic_smem = 0;
  std::uint32_t static_smem = 0;
  std::uint32_t registers = 0;

  // Copies and memsets.
  std::uint64_t bytes = 0;
  WorkMemory source = WorkMemory::unknown;
  WorkMemory destination = WorkMemory::unknown;
  std::uint32_t value = 0;  // memset
};

struct ActivityHooks {
  // On the calling thread, as a call that submits work is made: its correlation id.
  std::uint32_t (*call_made)(int cbid);
  // On the stream's worker, once the work ran.
  void (*work_done)(const WorkRecord& work);
};

}  // namespace sim

extern "C" void simcuda_set_activity_hooks(const sim::ActivityHooks* hooks);
