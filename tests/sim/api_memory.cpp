// Memory: device memory is host memory (a CUdeviceptr is its address), tracked so that
// pointer attributes and bounds checks behave like the driver's.
#include <algorithm>
#include <cstdlib>

#include "sim.hpp"
#include "sim_api.hpp"

using namespace sim;

namespace {

CUresult allocate(void** out, std::size_t size, MemoryKind kind) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!out || size == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = new_storage(size);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  const auto base = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard lock(driver().mutex);
  driver().allocations[base] = {base, size, kind, c, c->device};
  *out = p;
  return CUDA_SUCCESS;
}

}  // namespace

SIM_API CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t size) {
  void* out = nullptr;
  const CUresult r = allocate(&out, size, MemoryKind::device);
  if (r == CUDA_SUCCESS) *p = reinterpret_cast<CUdeviceptr>(out);
  return r;
}

SIM_API CUresult cuMemAllocManaged(CUdeviceptr* p, size_t size, unsigned int) {
  void* out = nullptr;
  const CUresult r = allocate(&out, size, MemoryKind::managed);
  if (r == CUDA_SUCCESS) *p = reinterpret_cast<CUdeviceptr>(out);
  return r;
}

// The pitch that keeps every row aligned for the device's accesses.
constexpr std::size_t kPitchAlignment = 512;

SIM_API CUresult cuMemAllocPitch_v2(CUdeviceptr* p, size_t* pitch, size_t width, size_t height, unsigned int element) {
  if (!p || !pitch || width == 0 || height == 0) return CUDA_ERROR_INVALID_VALUE;
  if (element != 4 && element != 8 && element != 16) return CUDA_ERROR_INVALID_VALUE;
  const std::size_t row = round_up(width, kPitchAlignment);
  void* out = nullptr;
  const CUresult r = allocate(&out, row * height, MemoryKind::device);
  if (r != CUDA_SUCCESS) return r;
  *p = reinterpret_cast<CUdeviceptr>(out);
  *pitch = row;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMemFree_v2(CUdeviceptr p) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  void* storage = nullptr;
  {
    std::lock_guard lock(driver().mutex);
    if (CUresult r = forget_device_allocation(p, &storage); r != CUDA_SUCCESS) return r;
  }
  std::free(storage);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMemAllocHost_v2(void** p, size_t size) { return allocate(p, size, MemoryKind::host); }
SIM_API CUresult cuMemHostAlloc(void** p, size_t size, unsigned int) { return allocate(p, size, MemoryKind::host); }

SIM_API CUresult cuMemFreeHost(void* p) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  {
    std::lock_guard lock(driver().mutex);
    auto it = driver().allocations.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == driver().allocations.end() || it->second.kind != MemoryKind::host) return CUDA_ERROR_INVALID_VALUE;
    driver().allocations.erase(it);
  }
  std::free(p);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMemHostRegister_v2(void* p, size_t size, unsigned int) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!p || size == 0) return CUDA_ERROR_INVALID_VALUE;
  const auto base = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard lock(driver().mutex);
  driver().allocations[base] = {base, size, MemoryKind::registered, c, c->device};
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMemHostUnregister(void* p) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  std::lock_guard lock(driver().mutex);
  auto it = driver().allocations.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == driver().allocations.end() || it->second.kind != MemoryKind::registered) {
    return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  }
  driver().allocations.erase(it);
  return CUDA_SUCCESS;
}

// Of the current context's device, as the driver answers: its total memory and what
// device_bytes_in_use() leaves of it.
SIM_API CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!free || !total) return CUDA_ERROR_INVALID_VALUE;
  constexpr std::uint64_t kTotal = std::uint64_t{80} << 30;
  std::lock_guard lock(driver().mutex);
  *total = kTotal;
  *free = kTotal - std::min(device_bytes_in_use(c->device), kTotal);
  return CUDA_SUCCESS;
}

namespace {
// One attribute of `a` (null: memory the driver does not know).
CUresult pointer_attribute(const Allocation* a, CUpointer_attribute attribute, void* data, std::uintptr_t p) {
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: {
      unsigned int type = 0;
      if (a) type = a->kind == MemoryKind::host || a->kind == MemoryKind::registered ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      *static_cast<unsigned int*>(data) = type;
      return CUDA_SUCCESS;
    }
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<unsigned int*>(data) = a && a->kind == MemoryKind::managed;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *static_cast<CUcontext*>(data) = a ? reinterpret_cast<CUcontext>(a->context) : nullptr;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = a ? a->device : -2;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      *static_cast<CUdeviceptr*>(data) = a ? p : 0;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      *static_cast<void**>(data) = a && a->kind != MemoryKind::device ? reinterpret_cast<void*>(p) : nullptr;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
      // Null for memory not from a pool, as the driver answers.
      *static_cast<CUmemoryPool*>(data) =
          a && a->origin == Origin::pool ? reinterpret_cast<CUmemoryPool>(a->pool) : nullptr;
      return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}
}  // namespace

SIM_API CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr p) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  const Allocation* a = find_allocation(p);
  if (!a) return CUDA_ERROR_INVALID_VALUE;
  return pointer_attribute(a, attribute, data, p);
}

SIM_API CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute* attributes, void** data, CUdeviceptr p) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!attributes || !data) return CUDA_ERROR_INVALID_VALUE;
  // Like the driver: unknown memory is not an error, its attributes are zero.
  const Allocation* a = find_allocation(p);
  for (unsigned int i = 0; i < n; ++i) {
    if (CUresult r = pointer_attribute(a, attributes[i], data[i], p); r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}
