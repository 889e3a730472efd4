#pragma once
// Kernel names (clGetKernelInfo(CL_KERNEL_FUNCTION_NAME)), asked once per kernel
// handle and kept for the life of the process: records point into them.
#include <string_view>

#include "shim/intercept/opencl_api.hpp"

namespace computeprof::shim {

// The kernel's function name; cached per thread. Empty when the runtime cannot tell.
std::string_view opencl_kernel_name(cl_kernel kernel);

// Kernels were just created: their handles may be ones the runtime reused.
void opencl_kernels_created(const cl_kernel* kernels, cl_uint count);

}  // namespace computeprof::shim
