#pragma once
// What the shim reads from CUPTI's activity records (CUDA 13 layouts): the GPU work of
// kernels, copies and memsets, each carrying the correlation id of the call that
// submitted it.
#include <cupti_activity.h>

#include <cstdint>

#include "records/copy_kind.hpp"
#include "records/record.hpp"

namespace computeprof::shim {

// One piece of GPU work: a kernel, a copy or a memset.
struct GpuActivity {
  std::uint32_t correlation_id = 0;  // of the API call that submitted it
  records::RecordKind kind = records::RecordKind::kernel;
  std::uint64_t start_ns = 0;  // CUPTI's clock: CLOCK_REALTIME ns
  std::uint64_t end_ns = 0;
  std::uint64_t graph_node_id = 0;  // 0 outside graphs
  std::uint32_t graph_id = 0;

  // Kernels: the name points into CUPTI's storage, valid for the process.
  const char* name = nullptr;
  records::Dim3 grid;
  records::Dim3 block;
  std::uint32_t static_smem = 0;
  std::uint32_t dynamic_smem = 0;
  std::uint32_t registers = 0;

  // Copies and memsets.
  std::uint64_t bytes = 0;
  records::MemorySide source = records::MemorySide::device;  // copies
  records::MemorySide destination = records::MemorySide::device;
  bool peer = false;  // between two devices
};

// Which call made an activity's work and when it ran: all the matcher needs of an
// activity outside graphs (ActivityMatcher::add_times).
struct ActivityTimes {
  std::uint32_t correlation_id = 0;
  bool graph_node = false;  // of a graph launch's node: read whole (GpuActivity)
  records::RecordKind kind = records::RecordKind::kernel;
  std::uint64_t start_ns = 0;  // CUPTI's clock: CLOCK_REALTIME ns
  std::uint64_t end_ns = 0;
};

GpuActivity kernel_activity(const CUpti_ActivityKernel10& kernel);
GpuActivity copy_activity(const CUpti_ActivityMemcpy6& copy);
GpuActivity memset_activity(const CUpti_ActivityMemset4& memset);

// Reads `record` by its kind into `on_gpu(const GpuActivity&)`; records of other kinds
// go nowhere. Inline, with no variant built: every record CUPTI hands over passes here.
template <typename OnGpu>
void read_activity_record(const CUpti_Activity& record, OnGpu&& on_gpu) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      on_gpu(kernel_activity(reinterpret_cast<const CUpti_ActivityKernel10&>(record)));
      return;
    case CUPTI_ACTIVITY_KIND_MEMCPY: on_gpu(copy_activity(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record))); return;
    case CUPTI_ACTIVITY_KIND_MEMSET: on_gpu(memset_activity(reinterpret_cast<const CUpti_ActivityMemset4&>(record))); return;
    default: return;
  }
}

// `record`'s times, read in place; false for records of other kinds. Inline: every
// record CUPTI hands over passes here.
inline bool read_activity_times(const CUpti_Activity& record, ActivityTimes& times) {
  const auto read = [&](const auto& r, records::RecordKind kind) {
    times = {r.correlationId, r.graphNodeId != 0, kind, r.start, r.end};
    return true;
  };
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return read(reinterpret_cast<const CUpti_ActivityKernel10&>(record), records::RecordKind::kernel);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return read(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record), records::RecordKind::memcpy);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return read(reinterpret_cast<const CUpti_ActivityMemset4&>(record), records::RecordKind::memset);
    default: return false;
  }
}

// The log's view of a copy CUPTI saw (graph copy nodes): method, direction, host memory.
records::CopyKind copy_kind_of(const GpuActivity& copy);

}  // namespace computeprof::shim
