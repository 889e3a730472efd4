// Allocations and frees (memtrace, docs/format.md "Memory tracing"). Only successful
// calls change memory: a failed allocation is not recorded; a failed free is submitted
// for its number only (memory_calls.hpp). Under apitrace without memtrace, each call is
// traced as an API call instead (docs/format.md, "API calls"); with memtrace, its memory
// event stands for the call.
#include "shim/cuda/api_call_trace.hpp"
#include "shim/cuda/array_bytes.hpp"
#include "shim/cuda/memory_calls.hpp"
#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/process/nested_call.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {
namespace {

using records::MemoryKind;
using records::MemoryOperation;

using records::ApiCallKind;

// `real()` makes the call; `describe(call)` reports what it allocated, after a success.
// `kind`: the call's under apitrace.
template <typename Real, typename Describe>
CUresult traced_allocation(std::string_view api, Real&& real, Describe&& describe,
                           ApiCallKind kind = ApiCallKind::memory_allocate) {
  if (!memory_tracing()) return traced_call(api, kind, {}, real);
  MemoryCall call(api, MemoryOperation::allocation);
  const CUresult r = [&] {
    RecordedCallScope inside;
    return real();
  }();
  if (r == CUDA_SUCCESS) describe(call);
  return r;
}

// A stream-ordered allocation from `pool` (null: the stream's device's current pool).
template <typename Real>
CUresult traced_pool_allocation(std::string_view api, CUdeviceptr* dptr, size_t bytes, CUmemoryPool pool,
                                CUstream stream, Real&& real) {
  return traced_allocation(api, real, [&](MemoryCall& c) {
    c.stream_ordered(stream, pool);
    c.allocated(MemoryKind::pool, *dptr, bytes);
  });
}

template <typename Real>
CUresult traced_free(std::string_view api, MemoryKind space, std::uint64_t address, Real&& real,
                     CUstream stream = nullptr, bool stream_ordered = false,
                     ApiCallKind kind = ApiCallKind::memory_free) {
  if (!memory_tracing()) return traced_call(api, kind, {}, real);
  MemoryCall call(api, MemoryOperation::free);
  if (stream_ordered) {
    // The pool the memory came from, asked while it is still allocated.
    CUmemoryPool pool = nullptr;
    const DriverCalls* d = driver_calls();
    if (!d || !d->pointer_get_attribute ||
        d->pointer_get_attribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, address) != CUDA_SUCCESS) {
      pool = nullptr;
    }
    call.stream_ordered(stream, pool);
  }
  const CUresult r = [&] {
    RecordedCallScope inside;
    return real();
  }();
  call.freed(space, address, r);
  return r;
}

std::uint64_t address_of(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace
}  // namespace computeprof::shim

using namespace computeprof::shim;

// The wrapper of a MEMORY_ENTRY (intercept/cuda_trampolines.S): called while memtrace or
// apitrace is on, or undecided; otherwise the trampoline goes straight to the driver.
#define COMPUTEPROF_MEMORY_WRAPPER(NAME, PARAMS) \
  extern "C" __attribute__((visibility("hidden"))) CUresult computeprof_memory_##NAME PARAMS

#define COMPUTEPROF_UNTRACED_OR(NAME, ...)                                                                   \
  COMPUTEPROF_REAL_OR_RETURN(NAME);                                                                          \
  if (const MemoryTracing m = memory_tracing_state();                                                        \
      (m != MemoryTracing::on && (m != MemoryTracing::calls || !api_tracing())) || inside_recorded_call()) { \
    return real_fn(__VA_ARGS__);                                                                             \
  }

COMPUTEPROF_MEMORY_WRAPPER(cuMemAlloc_v2, (CUdeviceptr * dptr, size_t bytes)) {
  COMPUTEPROF_UNTRACED_OR(cuMemAlloc_v2, dptr, bytes);
  return traced_allocation("cuMemAlloc_v2", [&] { return real_fn(dptr, bytes); },
                           [&](MemoryCall& c) { c.allocated(MemoryKind::device, *dptr, bytes); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemAllocPitch_v2, (CUdeviceptr * dptr, size_t* pitch, size_t width, size_t height,
                                                unsigned int element)) {
  COMPUTEPROF_UNTRACED_OR(cuMemAllocPitch_v2, dptr, pitch, width, height, element);
  return traced_allocation("cuMemAllocPitch_v2", [&] { return real_fn(dptr, pitch, width, height, element); },
                           [&](MemoryCall& c) { c.allocated(MemoryKind::device, *dptr, *pitch * height); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemAllocManaged, (CUdeviceptr * dptr, size_t bytes, unsigned int flags)) {
  COMPUTEPROF_UNTRACED_OR(cuMemAllocManaged, dptr, bytes, flags);
  return traced_allocation("cuMemAllocManaged", [&] { return real_fn(dptr, bytes, flags); },
                           [&](MemoryCall& c) { c.allocated(MemoryKind::managed, *dptr, bytes); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemFree_v2, (CUdeviceptr dptr)) {
  COMPUTEPROF_UNTRACED_OR(cuMemFree_v2, dptr);
  if (dptr == 0) return real_fn(dptr);  // frees nothing
  return traced_free("cuMemFree_v2", MemoryKind::device, dptr, [&] { return real_fn(dptr); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemAllocHost_v2, (void** p, size_t bytes)) {
  COMPUTEPROF_UNTRACED_OR(cuMemAllocHost_v2, p, bytes);
  return traced_allocation("cuMemAllocHost_v2", [&] { return real_fn(p, bytes); },
                           [&](MemoryCall& c) { c.allocated(MemoryKind::pinned, address_of(*p), bytes); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemHostAlloc, (void** p, size_t bytes, unsigned int flags)) {
  COMPUTEPROF_UNTRACED_OR(cuMemHostAlloc, p, bytes, flags);
  return traced_allocation("cuMemHostAlloc", [&] { return real_fn(p, bytes, flags); },
                           [&](MemoryCall& c) { c.allocated(MemoryKind::pinned, address_of(*p), bytes); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemFreeHost, (void* p)) {
  COMPUTEPROF_UNTRACED_OR(cuMemFreeHost, p);
  if (!p) return real_fn(p);
  return traced_free("cuMemFreeHost", MemoryKind::pinned, address_of(p), [&] { return real_fn(p); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemHostRegister_v2, (void* p, size_t bytes, unsigned int flags)) {
  COMPUTEPROF_UNTRACED_OR(cuMemHostRegister_v2, p, bytes, flags);
  return traced_allocation("cuMemHostRegister_v2", [&] { return real_fn(p, bytes, flags); },
                           [&](MemoryCall& c) { c.allocated(MemoryKind::registered, address_of(p), bytes); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemHostUnregister, (void* p)) {
  COMPUTEPROF_UNTRACED_OR(cuMemHostUnregister, p);
  return traced_free("cuMemHostUnregister", MemoryKind::registered, address_of(p), [&] { return real_fn(p); });
}

#define COMPUTEPROF_ALLOC_ASYNC(NAME)                                                              \
  COMPUTEPROF_MEMORY_WRAPPER(NAME, (CUdeviceptr * dptr, size_t bytes, CUstream stream)) {          \
    COMPUTEPROF_UNTRACED_OR(NAME, dptr, bytes, stream);                                            \
    return traced_pool_allocation(#NAME, dptr, bytes, nullptr, stream,                             \
                                  [&] { return real_fn(dptr, bytes, stream); });                   \
  }
COMPUTEPROF_ALLOC_ASYNC(cuMemAllocAsync)
COMPUTEPROF_ALLOC_ASYNC(cuMemAllocAsync_ptsz)

#define COMPUTEPROF_ALLOC_FROM_POOL_ASYNC(NAME)                                                            \
  COMPUTEPROF_MEMORY_WRAPPER(NAME, (CUdeviceptr * dptr, size_t bytes, CUmemoryPool pool, CUstream stream)) { \
    COMPUTEPROF_UNTRACED_OR(NAME, dptr, bytes, pool, stream);                                              \
    return traced_pool_allocation(#NAME, dptr, bytes, pool, stream,                                        \
                                  [&] { return real_fn(dptr, bytes, pool, stream); });                     \
  }
COMPUTEPROF_ALLOC_FROM_POOL_ASYNC(cuMemAllocFromPoolAsync)
COMPUTEPROF_ALLOC_FROM_POOL_ASYNC(cuMemAllocFromPoolAsync_ptsz)

#define COMPUTEPROF_FREE_ASYNC(NAME)                                                                    \
  COMPUTEPROF_MEMORY_WRAPPER(NAME, (CUdeviceptr dptr, CUstream stream)) {                               \
    COMPUTEPROF_UNTRACED_OR(NAME, dptr, stream);                                                        \
    if (dptr == 0) return real_fn(dptr, stream);                                                        \
    return traced_free(#NAME, MemoryKind::device, dptr, [&] { return real_fn(dptr, stream); }, stream, true); \
  }
COMPUTEPROF_FREE_ASYNC(cuMemFreeAsync)
COMPUTEPROF_FREE_ASYNC(cuMemFreeAsync_ptsz)

COMPUTEPROF_MEMORY_WRAPPER(cuMemCreate, (CUmemGenericAllocationHandle * handle, size_t bytes,
                                         const CUmemAllocationProp* prop, unsigned long long flags)) {
  COMPUTEPROF_UNTRACED_OR(cuMemCreate, handle, bytes, prop, flags);
  return traced_allocation("cuMemCreate", [&] { return real_fn(handle, bytes, prop, flags); }, [&](MemoryCall& c) {
    const bool on_device = prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE;
    c.allocated(MemoryKind::physical, *handle, bytes, on_device ? prop->location.id : -1);
  });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemRelease, (CUmemGenericAllocationHandle handle)) {
  COMPUTEPROF_UNTRACED_OR(cuMemRelease, handle);
  return traced_free("cuMemRelease", MemoryKind::physical, handle, [&] { return real_fn(handle); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemMap, (CUdeviceptr ptr, size_t bytes, size_t offset, CUmemGenericAllocationHandle handle,
                                      unsigned long long flags)) {
  COMPUTEPROF_UNTRACED_OR(cuMemMap, ptr, bytes, offset, handle, flags);
  return traced_allocation("cuMemMap", [&] { return real_fn(ptr, bytes, offset, handle, flags); },
                           [&](MemoryCall& c) { c.allocated(MemoryKind::mapping, ptr, bytes); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMemUnmap, (CUdeviceptr ptr, size_t bytes)) {
  COMPUTEPROF_UNTRACED_OR(cuMemUnmap, ptr, bytes);
  return traced_free("cuMemUnmap", MemoryKind::mapping, ptr, [&] { return real_fn(ptr, bytes); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuArrayCreate_v2, (CUarray * array, const CUDA_ARRAY_DESCRIPTOR* desc)) {
  COMPUTEPROF_UNTRACED_OR(cuArrayCreate_v2, array, desc);
  return traced_allocation("cuArrayCreate_v2", [&] { return real_fn(array, desc); },
                           [&](MemoryCall& c) { c.allocated(MemoryKind::array, address_of(*array), array_bytes(*desc)); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuArray3DCreate_v2, (CUarray * array, const CUDA_ARRAY3D_DESCRIPTOR* desc)) {
  COMPUTEPROF_UNTRACED_OR(cuArray3DCreate_v2, array, desc);
  return traced_allocation("cuArray3DCreate_v2", [&] { return real_fn(array, desc); },
                           [&](MemoryCall& c) { c.allocated(MemoryKind::array, address_of(*array), array_bytes(*desc)); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMipmappedArrayCreate, (CUmipmappedArray * array, const CUDA_ARRAY3D_DESCRIPTOR* desc,
                                                    unsigned int levels)) {
  COMPUTEPROF_UNTRACED_OR(cuMipmappedArrayCreate, array, desc, levels);
  return traced_allocation("cuMipmappedArrayCreate", [&] { return real_fn(array, desc, levels); }, [&](MemoryCall& c) {
    c.allocated(MemoryKind::array, address_of(*array), array_bytes(*desc, levels));
  });
}

COMPUTEPROF_MEMORY_WRAPPER(cuArrayDestroy, (CUarray array)) {
  COMPUTEPROF_UNTRACED_OR(cuArrayDestroy, array);
  return traced_free("cuArrayDestroy", MemoryKind::array, address_of(array), [&] { return real_fn(array); });
}

COMPUTEPROF_MEMORY_WRAPPER(cuMipmappedArrayDestroy, (CUmipmappedArray array)) {
  COMPUTEPROF_UNTRACED_OR(cuMipmappedArrayDestroy, array);
  return traced_free("cuMipmappedArrayDestroy", MemoryKind::array, address_of(array), [&] { return real_fn(array); });
}

// A graph's memory: its address is fixed when the node is made and stays the graph's
// until a free node runs or the program frees it; memtrace counts it from the node's
// creation to its free node's (docs/format.md, "Memory tracing").
COMPUTEPROF_MEMORY_WRAPPER(cuGraphAddMemAllocNode, (CUgraphNode * node, CUgraph graph, const CUgraphNode* dependencies,
                                                    size_t count, CUDA_MEM_ALLOC_NODE_PARAMS* params)) {
  COMPUTEPROF_UNTRACED_OR(cuGraphAddMemAllocNode, node, graph, dependencies, count, params);
  // Under apitrace, the node's creation is no allocation yet: a call of kind other.
  return traced_allocation(
      "cuGraphAddMemAllocNode", [&] { return real_fn(node, graph, dependencies, count, params); },
      [&](MemoryCall& c) {
        const bool on_device = params->poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE;
        c.allocated(MemoryKind::graph, params->dptr, params->bytesize, on_device ? params->poolProps.location.id : -1);
      },
      ApiCallKind::other);
}

COMPUTEPROF_MEMORY_WRAPPER(cuGraphAddMemFreeNode, (CUgraphNode * node, CUgraph graph, const CUgraphNode* dependencies,
                                                   size_t count, CUdeviceptr dptr)) {
  COMPUTEPROF_UNTRACED_OR(cuGraphAddMemFreeNode, node, graph, dependencies, count, dptr);
  return traced_free("cuGraphAddMemFreeNode", MemoryKind::device, dptr,
                     [&] { return real_fn(node, graph, dependencies, count, dptr); }, nullptr, false,
                     ApiCallKind::other);
}
