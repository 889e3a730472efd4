#pragma once
// What NVIDIA's OpenCL compiler reports per kernel with -cl-nv-verbose
// (cl_nv_compiler_options in the Khronos registry: passed to ptxas as --verbose, whose
// output goes to the build log), e.g.
//   ptxas info    : Compiling entry function 'vec_add' for 'sm_90'
//   ptxas info    : Function properties for vec_add
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 8 registers, 380 bytes cmem[0]
// The occupancy of OpenCL kernels on NVIDIA GPUs needs the register count.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace computeprof::shim {

// Registers per thread of each kernel the log reports.
std::map<std::string, std::uint32_t, std::less<>> kernel_registers(std::string_view build_log);

// The log without the lines -cl-nv-verbose added (ptxas's and their continuation lines).
std::string without_verbose_lines(std::string_view build_log);

}  // namespace computeprof::shim
