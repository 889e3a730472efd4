// Device memory's lifetimes: where its bytes live, what frees each kind of allocation,
// and what cuMemGetInfo counts.
#include <cstdlib>
#include <cstring>

#include "sim.hpp"

namespace sim {

void* new_storage(std::size_t size) {
  void* p = std::aligned_alloc(256, round_up(size, 256));
  if (p) std::memset(p, 0, size);
  return p;
}

CUresult forget_device_allocation(std::uintptr_t p, void** storage) {
  *storage = nullptr;
  auto& allocations = driver().allocations;
  auto it = allocations.find(p);
  if (it == allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  Allocation& a = it->second;
  switch (a.origin) {
    case Origin::allocation:
      if (a.kind != MemoryKind::device && a.kind != MemoryKind::managed) return CUDA_ERROR_INVALID_VALUE;
      *storage = reinterpret_cast<void*>(p);
      break;
    case Origin::pool:
      a.pool->used -= a.size;
      *storage = reinterpret_cast<void*>(p);
      break;
    case Origin::graph:
      // Freed in a graph, it cannot be freed outside it (cuGraphAddMemAllocNode).
      if (a.graph_memory->has_free_node) return CUDA_ERROR_INVALID_VALUE;
      a.graph_memory->live = false;
      break;
    case Origin::mapping: return CUDA_ERROR_INVALID_VALUE;  // cuMemUnmap's
  }
  allocations.erase(it);
  return CUDA_SUCCESS;
}

// A fixed share stands for what every context holds (its code, stacks, heaps): the
// process uses 512 MiB of the device before it allocates anything. On top of it, every
// live device-resident byte: cuMemAlloc and cuMemAllocPitch memory, arrays' storage,
// pools' reserved bytes, cuMemCreate's physical memory, graph memory. Managed and host
// memory are not counted, nor are mappings (their physical memory is).
std::uint64_t device_bytes_in_use(int device) {
  constexpr std::uint64_t kContextsShare = std::uint64_t{512} << 20;
  const Driver& d = driver();
  std::uint64_t used = kContextsShare;
  for (const auto& [base, a] : d.allocations) {
    const bool counted = a.origin == Origin::allocation || a.origin == Origin::graph;
    if (a.kind == MemoryKind::device && counted && a.device == device) used += a.size;
  }
  for (const Array* a : d.arrays) {
    if (a->device == device) used += a->data.size();
  }
  for (const MipmappedArray* a : d.mipmapped_arrays) {
    if (a->device == device) used += a->bytes;
  }
  for (const MemoryPool* pool : d.pools) {
    if (pool->device == device) used += pool->reserved();
  }
  for (const PhysicalMemory* m : d.physical) {
    if (m->device == device) used += m->size;
  }
  return used;
}

}  // namespace sim
