#pragma once
// Where the ends of a copy live, asked of the driver (cuPointerGetAttributes reports
// memory type 0 for plain malloc memory instead of failing).
#include <cstddef>

#include "records/copy_kind.hpp"
#include "shim/intercept/cuda_api.hpp"

namespace computeprof::shim {

// A unified address: device (managed included), page-locked host or pageable host.
records::MemorySide side_of_address(CUdeviceptr address);
// A host pointer: page-locked or pageable.
records::MemorySide side_of_host(const void* host);
// An end of a 2D/3D copy, by its declared memory type.
records::MemorySide side_of_operand(CUmemorytype type, const void* host, CUdeviceptr device);
// Bytes per element of an array (1 when the driver cannot tell).
std::size_t array_element_bytes(CUarray array);

}  // namespace computeprof::shim
