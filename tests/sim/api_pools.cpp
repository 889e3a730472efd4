// Stream-ordered allocation: memory pools, each device's default and current pool,
// cuMemAllocAsync, cuMemAllocFromPoolAsync and cuMemFreeAsync. The sim's simplifications
// (MemoryPool, sim.hpp): an allocation or free changes its pool when it is called, not
// when its stream reaches it (in a capture too: it makes no graph node), and a pool
// keeps nothing freed: its reserved bytes are its used bytes rounded up to 2 MiB.
#include <algorithm>
#include <cstdlib>

#include "sim.hpp"
#include "sim_api.hpp"

using namespace sim;

namespace {

// The pools below, with the driver's lock held.
MemoryPool* default_pool(int device) {
  MemoryPool*& pool = driver().default_pool[device];
  if (!pool) {
    pool = new MemoryPool;
    pool->device = device;
    pool->is_default = true;
    driver().pools.insert(pool);
  }
  return pool;
}

MemoryPool* current_pool(int device) {
  MemoryPool* pool = driver().current_pool[device];
  return pool ? pool : default_pool(device);
}

// A pool the program may still use; null otherwise.
MemoryPool* pool_of(CUmemoryPool handle) {
  auto* pool = reinterpret_cast<MemoryPool*>(handle);
  return driver().pools.count(pool) && !pool->destroyed ? pool : nullptr;
}

// `from_pool` false: the pool is the stream's device's current one.
CUresult allocate_async(CUdeviceptr* p, std::size_t size, bool from_pool, CUmemoryPool handle, CUstream h,
                        bool per_thread) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!current_context()) return CUDA_ERROR_INVALID_CONTEXT;
  if (!p || size == 0) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  void* storage = new_storage(size);
  if (!storage) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard lock(driver().mutex);
  MemoryPool* pool = from_pool ? pool_of(handle) : current_pool(s->context->device);
  if (!pool) {
    std::free(storage);
    return CUDA_ERROR_INVALID_VALUE;
  }
  pool->used += size;
  pool->used_high = std::max(pool->used_high, pool->used);
  pool->reserved_high = std::max(pool->reserved_high, pool->reserved());
  const auto base = reinterpret_cast<std::uintptr_t>(storage);
  driver().allocations[base] = {base, size, MemoryKind::device, s->context, pool->device, Origin::pool, pool};
  *p = base;
  return CUDA_SUCCESS;
}

// The bytes themselves go when the stream reaches the free: work queued before it may
// still use them. A capturing stream would put the free into its graph, to run at every
// launch: then they are kept, like a destroyed object.
void free_in_stream_order(Stream* s, void* storage) {
  bool capturing;
  {
    std::lock_guard lock(s->mutex);
    capturing = s->capture != CU_STREAM_CAPTURE_STATUS_NONE;
  }
  if (capturing) {
    std::lock_guard lock(driver().mutex);
    driver().retired.push_back(storage);
    return;
  }
  Operation op = [storage] { std::free(storage); };
  s->enqueue(std::move(op), implicit_waits(s));
}

}  // namespace

SIM_STREAM_PAIR(cuMemAllocAsync, cuMemAllocAsync_ptsz, (CUdeviceptr * p, size_t size, CUstream h), (p, size, h), {
  return allocate_async(p, size, false, nullptr, h, per_thread);
})

SIM_STREAM_PAIR(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync_ptsz,
                (CUdeviceptr * p, size_t size, CUmemoryPool pool, CUstream h), (p, size, pool, h),
                { return allocate_async(p, size, true, pool, h, per_thread); })

SIM_STREAM_PAIR(cuMemFreeAsync, cuMemFreeAsync_ptsz, (CUdeviceptr p, CUstream h), (p, h), {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!current_context()) return CUDA_ERROR_INVALID_CONTEXT;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  void* storage = nullptr;
  {
    std::lock_guard lock(driver().mutex);
    if (CUresult r = forget_device_allocation(p, &storage); r != CUDA_SUCCESS) return r;
  }
  if (storage) free_in_stream_order(s, storage);
  return CUDA_SUCCESS;
})

SIM_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(driver().mutex);
  *pool = reinterpret_cast<CUmemoryPool>(default_pool(device));
  return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(driver().mutex);
  *pool = reinterpret_cast<CUmemoryPool>(current_pool(device));
  return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceSetMemPool(CUdevice device, CUmemoryPool handle) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard lock(driver().mutex);
  MemoryPool* pool = pool_of(handle);
  // The pool must be the device's own.
  if (!pool || pool->device != device) return CUDA_ERROR_INVALID_VALUE;
  driver().current_pool[device] = pool;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMemPoolCreate(CUmemoryPool* out, const CUmemPoolProps* props) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!out || !props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  // The sim makes pools of device memory only.
  if (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_NOT_SUPPORTED;
  if (!valid_device(props->location.id)) return CUDA_ERROR_INVALID_VALUE;
  auto* pool = new MemoryPool;
  pool->device = props->location.id;
  std::lock_guard lock(driver().mutex);
  driver().pools.insert(pool);
  *out = reinterpret_cast<CUmemoryPool>(pool);
  return CUDA_SUCCESS;
}

// Memory still allocated from the pool stays until freed, as the driver does it.
SIM_API CUresult cuMemPoolDestroy(CUmemoryPool handle) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  std::lock_guard lock(driver().mutex);
  MemoryPool* pool = pool_of(handle);
  if (!pool || pool->is_default) return CUDA_ERROR_INVALID_VALUE;
  pool->destroyed = true;
  // The device's current pool goes back to its default one.
  if (driver().current_pool[pool->device] == pool) driver().current_pool[pool->device] = nullptr;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMemPoolGetAttribute(CUmemoryPool handle, CUmemPool_attribute attribute, void* value) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard lock(driver().mutex);
  const MemoryPool* pool = pool_of(handle);
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  auto* out = static_cast<cuuint64_t*>(value);
  switch (attribute) {
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *out = pool->release_threshold; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *out = pool->reserved(); return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *out = pool->reserved_high; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *out = pool->used; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *out = pool->used_high; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;  // the reuse policies: the sim has none
  }
}

// The release threshold is kept and read back, but the sim releases at once anyway; the
// high watermarks can only be reset (to the current value) by setting 0.
SIM_API CUresult cuMemPoolSetAttribute(CUmemoryPool handle, CUmemPool_attribute attribute, void* value) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard lock(driver().mutex);
  MemoryPool* pool = pool_of(handle);
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  const cuuint64_t v = *static_cast<const cuuint64_t*>(value);
  switch (attribute) {
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: pool->release_threshold = v; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
      if (v != 0) return CUDA_ERROR_INVALID_VALUE;
      pool->reserved_high = pool->reserved();
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      if (v != 0) return CUDA_ERROR_INVALID_VALUE;
      pool->used_high = pool->used;
      return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

// A pool keeps nothing freed: there is never anything to trim.
SIM_API CUresult cuMemPoolTrimTo(CUmemoryPool handle, size_t) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  std::lock_guard lock(driver().mutex);
  return pool_of(handle) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
