#include "shim/cuda/array_bytes.hpp"

#include <algorithm>

namespace computeprof::shim {
namespace {

std::uint64_t element_bytes(CUarray_format format, unsigned int channels) {
  switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: return channels;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: return 2u * channels;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: return 4u * channels;
    case CU_AD_FORMAT_UNORM_INT8X1:
    case CU_AD_FORMAT_SNORM_INT8X1: return 1;
    case CU_AD_FORMAT_UNORM_INT8X2:
    case CU_AD_FORMAT_SNORM_INT8X2:
    case CU_AD_FORMAT_UNORM_INT16X1:
    case CU_AD_FORMAT_SNORM_INT16X1: return 2;
    case CU_AD_FORMAT_UNORM_INT8X4:
    case CU_AD_FORMAT_SNORM_INT8X4:
    case CU_AD_FORMAT_UNORM_INT16X2:
    case CU_AD_FORMAT_SNORM_INT16X2:
    case CU_AD_FORMAT_UNORM_INT_101010_2: return 4;
    case CU_AD_FORMAT_UNORM_INT16X4:
    case CU_AD_FORMAT_SNORM_INT16X4: return 8;
    default: return std::max(channels, 1u);
  }
}

std::uint64_t at_least_one(std::size_t n) { return n == 0 ? 1 : n; }

}  // namespace

std::uint64_t array_bytes(const CUDA_ARRAY3D_DESCRIPTOR& desc, unsigned int mipmap_levels) {
  const std::uint64_t element = element_bytes(desc.Format, desc.NumChannels);
  std::uint64_t total = 0;
  for (unsigned int level = 0; level < std::max(mipmap_levels, 1u); ++level) {
    // Each level halves every extent, down to 1.
    total += std::max<std::uint64_t>(at_least_one(desc.Width) >> level, 1) *
             std::max<std::uint64_t>(at_least_one(desc.Height) >> level, 1) *
             std::max<std::uint64_t>(at_least_one(desc.Depth) >> level, 1) * element;
  }
  return total;
}

std::uint64_t array_bytes(const CUDA_ARRAY_DESCRIPTOR& desc) {
  CUDA_ARRAY3D_DESCRIPTOR d3{};
  d3.Width = desc.Width;
  d3.Height = desc.Height;
  d3.Format = desc.Format;
  d3.NumChannels = desc.NumChannels;
  return array_bytes(d3);
}

}  // namespace computeprof::shim
