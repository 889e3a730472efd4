#include "records/memory_event.hpp"

namespace computeprof::records {

std::string_view memory_kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::device: return "device";
    case MemoryKind::pool: return "pool";
    case MemoryKind::physical: return "physical";
    case MemoryKind::mapping: return "mapping";
    case MemoryKind::graph: return "graph";
    case MemoryKind::array: return "array";
    case MemoryKind::managed: return "managed";
    case MemoryKind::pinned: return "pinned";
    case MemoryKind::registered: return "registered";
  }
  return "unknown";
}

int nsys_memory_kind(MemoryKind kind) {
  // ENUM_CUDA_MEM_KIND: 0 pageable, 1 pinned, 2 device, 3 array, 4 managed, 7 unknown.
  switch (kind) {
    case MemoryKind::device:
    case MemoryKind::pool:
    case MemoryKind::physical:
    case MemoryKind::graph: return 2;
    case MemoryKind::array: return 3;
    case MemoryKind::managed: return 4;
    case MemoryKind::pinned:
    case MemoryKind::registered: return 1;
    case MemoryKind::mapping: return 7;
  }
  return 7;
}

}  // namespace computeprof::records
