#pragma once
// What the shim reads from CUPTI's activity records (CUDA 13 layouts): the GPU work of
// kernels, copies and memsets, and the external correlation records that tie CUPTI's
// correlation ids to the ids the shim pushed around its calls.
#include <cupti_activity.h>

#include <cstdint>

#include "logfmt/copy_kind.hpp"
#include "logfmt/record.hpp"

namespace computeprof::shim {

// The shim's own kind of external id: CUSTOM0 and CUSTOM1 are taken by PyTorch's Kineto.
inline constexpr CUpti_ExternalCorrelationKind kShimCorrelationKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;

// One piece of GPU work: a kernel, a copy or a memset.
struct GpuActivity {
  std::uint32_t correlation_id = 0;  // of the API call that submitted it
  logfmt::RecordKind kind = logfmt::RecordKind::kernel;
  std::uint64_t start_ns = 0;  // CUPTI's clock: CLOCK_REALTIME ns
  std::uint64_t end_ns = 0;
  std::uint64_t graph_node_id = 0;  // 0 outside graphs
  std::uint32_t graph_id = 0;

  // Kernels: the name points into CUPTI's storage, valid for the process.
  const char* name = nullptr;
  logfmt::Dim3 grid;
  logfmt::Dim3 block;
  std::uint32_t static_smem = 0;
  std::uint32_t dynamic_smem = 0;
  std::uint32_t registers = 0;

  // Copies and memsets.
  std::uint64_t bytes = 0;
  logfmt::MemorySide source = logfmt::MemorySide::device;  // copies
  logfmt::MemorySide destination = logfmt::MemorySide::device;
  bool peer = false;  // between two devices
};

struct ExternalCorrelation {
  std::uint64_t external_id = 0;
  std::uint32_t correlation_id = 0;
};

GpuActivity kernel_activity(const CUpti_ActivityKernel10& kernel);
GpuActivity copy_activity(const CUpti_ActivityMemcpy6& copy);
GpuActivity memset_activity(const CUpti_ActivityMemset4& memset);

// Reads `record` by its kind into `on_gpu(const GpuActivity&)` or
// `on_correlation(const ExternalCorrelation&)`; records of other kinds (driver API
// records, other tools' external ids) go to neither. Inline, with no variant built:
// every record CUPTI hands over passes here.
template <typename OnGpu, typename OnCorrelation>
void read_activity_record(const CUpti_Activity& record, OnGpu&& on_gpu, OnCorrelation&& on_correlation) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      on_gpu(kernel_activity(reinterpret_cast<const CUpti_ActivityKernel10&>(record)));
      return;
    case CUPTI_ACTIVITY_KIND_MEMCPY: on_gpu(copy_activity(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record))); return;
    case CUPTI_ACTIVITY_KIND_MEMSET: on_gpu(memset_activity(reinterpret_cast<const CUpti_ActivityMemset4&>(record))); return;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto& e = reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record);
      if (e.externalKind == kShimCorrelationKind) on_correlation(ExternalCorrelation{e.externalId, e.correlationId});
      return;
    }
    default: return;
  }
}

// The log's view of a copy CUPTI saw (graph copy nodes): method, direction, host memory.
logfmt::CopyKind copy_kind_of(const GpuActivity& copy);

}  // namespace computeprof::shim
