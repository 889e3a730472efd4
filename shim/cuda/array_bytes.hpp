#pragma once
// The bytes a CUDA array holds, from its descriptor, as memtrace counts them: width x
// height x depth (0 counts as 1) x the element's bytes, summed over mipmap levels.
// Exact for the plain and normalized integer and float formats; block-compressed and
// video formats count one byte per channel (the driver's own layout is not public).
// The driver's allocation may be larger (alignment): the bytes asked for are counted,
// as for every allocation.
#include <cstdint>

#include "shim/intercept/cuda_api.hpp"

namespace computeprof::shim {

std::uint64_t array_bytes(const CUDA_ARRAY3D_DESCRIPTOR& desc, unsigned int mipmap_levels = 1);
std::uint64_t array_bytes(const CUDA_ARRAY_DESCRIPTOR& desc);

}  // namespace computeprof::shim
