#pragma once
// One allocation or free the program made, as memtrace sees it (docs/format.md,
// "Memory tracing"). Plain data, filled on the application's thread.
#include <cstdint>
#include <string_view>

namespace computeprof::records {

// What kind of memory a call allocated or freed.
enum class MemoryKind : std::uint8_t {
  device,      // cuMemAlloc, cuMemAllocPitch
  pool,        // stream-ordered: cuMemAllocAsync, cuMemAllocFromPoolAsync
  physical,    // cuMemCreate: physical memory of the virtual memory API
  mapping,     // cuMemMap: a mapping of physical memory counted at its cuMemCreate
  graph,       // a graph's memory allocation node
  array,       // cuArrayCreate, cuArray3DCreate, cuMipmappedArrayCreate
  managed,     // cuMemAllocManaged
  pinned,      // cuMemAllocHost, cuMemHostAlloc
  registered,  // cuMemHostRegister: the program's host memory, page-locked
};
inline constexpr std::size_t kMemoryKindCount = 9;

enum class MemoryOperation : std::uint8_t { allocation, free };

// Whether the kind's bytes are the device's: device, pool, physical, graph and array
// memory count toward a device's use and its peak; mappings do not (their physical
// memory counts once, at cuMemCreate), nor managed and host memory.
constexpr bool counts_toward_device(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::device:
    case MemoryKind::pool:
    case MemoryKind::physical:
    case MemoryKind::graph:
    case MemoryKind::array: return true;
    case MemoryKind::mapping:
    case MemoryKind::managed:
    case MemoryKind::pinned:
    case MemoryKind::registered: return false;
  }
  return false;
}

// "device", "pool", ...: in reports, the trace and the picture's legend.
std::string_view memory_kind_name(MemoryKind kind);

// The kind's value in nsys's ENUM_CUDA_MEM_KIND (docs/format.md, "SQLite database").
int nsys_memory_kind(MemoryKind kind);

struct MemoryEvent {
  // The intercepted entry point (a string literal).
  std::string_view api;
  // When the call was made and when it returned, on the records' clock (wall ns, like
  // gpustarttimestamp). The event's time is the return: a stream-ordered allocation or
  // free happens when its stream reaches it, at or after that; computeprof does not
  // wait for the stream.
  std::uint64_t start_ns = 0;
  std::uint64_t wall_ns = 0;
  // Orders events as the program made them (a free after its allocation, whichever
  // threads made them): assigned when the event is queued.
  std::uint64_t sequence = 0;
  std::uint64_t address = 0;  // for arrays, the CUarray handle
  // Allocations: bytes asked for. Frees: 0 from the wrapper; the writer fills in the
  // allocation's bytes and kind, or marks the free unknown.
  std::uint64_t bytes = 0;
  std::uint64_t correlation_id = 0;
  std::uint64_t stream_id = 0;  // stream-ordered calls
  // Stream-ordered calls: the pool, and its reserved and used bytes right after the call.
  std::uint64_t pool = 0;
  std::uint64_t pool_reserved = 0;
  std::uint64_t pool_used = 0;
  // The device's used memory by cuMemGetInfo (total - free) right after the call, when
  // sampled (at most once a millisecond per device); 0 when not.
  std::uint64_t device_used = 0;
  std::uint32_t device = 0;
  std::uint32_t context_id = 0;  // the logs' context number (CUDA_CONTEXT)
  std::uint32_t thread_id = 0;
  std::uint32_t stack_id = 0;  // callstack: the call's stack; 0: none
  MemoryKind kind = MemoryKind::device;
  MemoryOperation operation = MemoryOperation::allocation;
  // A free of an address with no live allocation the profiler saw (set by the writer).
  bool unknown = false;
};

}  // namespace computeprof::records
