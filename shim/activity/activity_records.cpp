#include "shim/activity/activity_records.hpp"

namespace computeprof::shim {

using records::MemorySide;
namespace {

std::uint32_t non_negative(std::int32_t v) { return v > 0 ? static_cast<std::uint32_t>(v) : 0; }

records::Dim3 dim3_of(std::int32_t x, std::int32_t y, std::int32_t z) {
  return {non_negative(x), non_negative(y), non_negative(z)};
}

// Managed and static device memory are device memory to the log; an unknown end is
// taken as device memory too (the log has no "unknown" side).
MemorySide side_of(std::uint8_t memory_kind) {
  switch (memory_kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return MemorySide::pageable_host;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return MemorySide::pinned_host;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return MemorySide::array;
    default: return MemorySide::device;
  }
}

// What kernel, copy and memset records share.
template <typename CuptiRecord>
GpuActivity common_of(const CuptiRecord& r, records::RecordKind kind) {
  GpuActivity a;
  a.correlation_id = r.correlationId;
  a.kind = kind;
  a.start_ns = r.start;
  a.end_ns = r.end;
  a.graph_node_id = r.graphNodeId;
  a.graph_id = r.graphId;
  return a;
}

}  // namespace

GpuActivity kernel_activity(const CUpti_ActivityKernel10& k) {
  GpuActivity a = common_of(k, records::RecordKind::kernel);
  a.name = k.name;
  a.grid = dim3_of(k.gridX, k.gridY, k.gridZ);
  a.block = dim3_of(k.blockX, k.blockY, k.blockZ);
  a.static_smem = non_negative(k.staticSharedMemory);
  a.dynamic_smem = non_negative(k.dynamicSharedMemory);
  a.registers = k.registersPerThread;
  return a;
}

GpuActivity copy_activity(const CUpti_ActivityMemcpy6& c) {
  GpuActivity a = common_of(c, records::RecordKind::memcpy);
  a.bytes = c.bytes;
  a.source = side_of(c.srcKind);
  a.destination = side_of(c.dstKind);
  a.peer = c.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  return a;
}

GpuActivity memset_activity(const CUpti_ActivityMemset4& m) {
  GpuActivity a = common_of(m, records::RecordKind::memset);
  a.bytes = m.bytes;
  return a;
}

// Graph nodes run asynchronously to the host: their copies are the async methods.
records::CopyKind copy_kind_of(const GpuActivity& copy) {
  return copy.peer ? records::peer_copy(true) : records::classify_copy(copy.source, copy.destination, true);
}

}  // namespace computeprof::shim
