#include "shim/cuda/memory_sides.hpp"

#include "shim/intercept/driver_calls.hpp"

namespace computeprof::shim {

using records::MemorySide;

MemorySide side_of_address(CUdeviceptr address) {
  const DriverCalls* d = driver_calls();
  if (!d || !d->pointer_get_attributes) return MemorySide::pageable_host;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
  unsigned int memory_type = 0;
  unsigned int managed = 0;
  void* data[] = {&memory_type, &managed};
  if (d->pointer_get_attributes(2, attributes, data, address) != CUDA_SUCCESS) return MemorySide::pageable_host;
  if (managed) return MemorySide::device;
  switch (memory_type) {
    case CU_MEMORYTYPE_DEVICE: return MemorySide::device;
    case CU_MEMORYTYPE_HOST: return MemorySide::pinned_host;
    case CU_MEMORYTYPE_ARRAY: return MemorySide::array;
    default: return MemorySide::pageable_host;
  }
}

MemorySide side_of_host(const void* host) {
  return side_of_address(reinterpret_cast<CUdeviceptr>(host)) == MemorySide::pinned_host ? MemorySide::pinned_host
                                                                                         : MemorySide::pageable_host;
}

MemorySide side_of_operand(CUmemorytype type, const void* host, CUdeviceptr device) {
  switch (type) {
    case CU_MEMORYTYPE_HOST: return side_of_host(host);
    case CU_MEMORYTYPE_DEVICE: return MemorySide::device;
    case CU_MEMORYTYPE_ARRAY: return MemorySide::array;
    case CU_MEMORYTYPE_UNIFIED: return side_of_address(device);
  }
  return MemorySide::device;
}

std::size_t array_element_bytes(CUarray array) {
  const DriverCalls* d = driver_calls();
  CUDA_ARRAY3D_DESCRIPTOR desc{};
  if (!d || !d->array_get_descriptor || d->array_get_descriptor(&desc, array) != CUDA_SUCCESS) return 1;
  std::size_t channel = 1;
  switch (desc.Format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: channel = 1; break;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: channel = 2; break;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: channel = 4; break;
    default: channel = 1; break;
  }
  return channel * (desc.NumChannels ? desc.NumChannels : 1);
}

}  // namespace computeprof::shim
