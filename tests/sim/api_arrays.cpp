// CUDA arrays and mipmapped arrays: opaque device storage of elements of a format.
#include <algorithm>
#include <bit>

#include "sim.hpp"
#include "sim_api.hpp"

using namespace sim;

namespace {

std::size_t format_bytes(CUarray_format f) {
  switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: return 4;
    default: return 1;
  }
}

std::size_t element_bytes(const CUDA_ARRAY3D_DESCRIPTOR& desc) { return format_bytes(desc.Format) * desc.NumChannels; }

bool valid_descriptor(const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  return desc && desc->Width != 0 && (desc->NumChannels == 1 || desc->NumChannels == 2 || desc->NumChannels == 4);
}

// The bytes of mipmap level `level`: each level halves every extent, down to 1 (an
// extent of 0 is a dimension the array does not have).
std::size_t level_bytes(const CUDA_ARRAY3D_DESCRIPTOR& desc, unsigned int level) {
  const auto extent = [level](std::size_t n) { return std::max<std::size_t>(std::max<std::size_t>(n, 1) >> level, 1); };
  return extent(desc.Width) * extent(desc.Height) * extent(desc.Depth) * element_bytes(desc);
}

}  // namespace

SIM_API CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!array || !valid_descriptor(desc)) return CUDA_ERROR_INVALID_VALUE;
  auto* a = new Array;
  a->desc = *desc;
  a->element_size = element_bytes(*desc);
  a->device = c->device;
  a->data.resize(level_bytes(*desc, 0));
  std::lock_guard lock(driver().mutex);
  driver().arrays.insert(a);
  *array = reinterpret_cast<CUarray>(a);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuArrayCreate_v2(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* desc) {
  if (!desc) return CUDA_ERROR_INVALID_VALUE;
  CUDA_ARRAY3D_DESCRIPTOR d3{};
  d3.Width = desc->Width;
  d3.Height = desc->Height;
  d3.Format = desc->Format;
  d3.NumChannels = desc->NumChannels;
  return cuArray3DCreate_v2(array, &d3);
}

SIM_API CUresult cuArrayDestroy(CUarray array) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* a = reinterpret_cast<Array*>(array);
  std::lock_guard lock(driver().mutex);
  if (!driver().arrays.erase(a)) return CUDA_ERROR_INVALID_HANDLE;
  delete a;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR* desc, CUarray array) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!desc) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_array(array)) return CUDA_ERROR_INVALID_HANDLE;
  *desc = reinterpret_cast<Array*>(array)->desc;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR* desc, CUarray array) {
  CUDA_ARRAY3D_DESCRIPTOR d3{};
  if (CUresult r = cuArray3DGetDescriptor_v2(&d3, array); r != CUDA_SUCCESS) return r;
  if (!desc) return CUDA_ERROR_INVALID_VALUE;
  desc->Width = d3.Width;
  desc->Height = d3.Height;
  desc->Format = d3.Format;
  desc->NumChannels = d3.NumChannels;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMipmappedArrayCreate(CUmipmappedArray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc,
                                        unsigned int levels) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!array || !valid_descriptor(desc) || levels == 0) return CUDA_ERROR_INVALID_VALUE;
  // No more levels than halvings of the largest extent, down to 1.
  const std::size_t largest = std::max({desc->Width, desc->Height, desc->Depth});
  if (levels > static_cast<unsigned int>(std::bit_width(largest))) return CUDA_ERROR_INVALID_VALUE;
  auto* a = new MipmappedArray{0, c->device};
  for (unsigned int level = 0; level < levels; ++level) a->bytes += level_bytes(*desc, level);
  std::lock_guard lock(driver().mutex);
  driver().mipmapped_arrays.insert(a);
  *array = reinterpret_cast<CUmipmappedArray>(a);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuMipmappedArrayDestroy(CUmipmappedArray array) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* a = reinterpret_cast<MipmappedArray*>(array);
  std::lock_guard lock(driver().mutex);
  if (!driver().mipmapped_arrays.erase(a)) return CUDA_ERROR_INVALID_HANDLE;
  delete a;
  return CUDA_SUCCESS;
}
