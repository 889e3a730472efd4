// CUDA arrays: opaque device storage of elements of a format.
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

}  // namespace

SIM_API CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!current_context()) return CUDA_ERROR_INVALID_CONTEXT;
  if (!array || !desc || desc->Width == 0 || desc->NumChannels == 0) return CUDA_ERROR_INVALID_VALUE;
  auto* a = new Array;
  a->desc = *desc;
  a->element_size = format_bytes(desc->Format) * desc->NumChannels;
  a->data.resize(desc->Width * (desc->Height ? desc->Height : 1) * (desc->Depth ? desc->Depth : 1) * a->element_size);
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
