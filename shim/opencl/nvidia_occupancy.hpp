#pragma once
// Occupancy of OpenCL kernels on NVIDIA GPUs. NVIDIA's OpenCL tells a device's compute
// capability (cl_nv_device_attribute_query) but not a kernel's registers: the shim
// builds programs for NVIDIA devices with -cl-nv-verbose, reads the registers from
// ptxas's lines in the build log, and keeps both the option and those lines from the
// program (clGetProgramBuildInfo answers as without the shim). Other devices are left
// alone: their occupancy stays empty.
#include <optional>

#include "records/record.hpp"
#include "shim/intercept/opencl_api.hpp"

namespace computeprof::shim {

// The occupancy of `kernel` launched on `device` with work-groups of `group_items`
// work-items; empty unless the device is an NVIDIA GPU and the kernel's program was
// built through the shim.
// No lock once a thread has seen the kernel on the device.
std::optional<double> nvidia_kernel_occupancy(cl_device_id device, cl_kernel kernel, std::uint32_t group_items);

// Kernels were created: their handles may be ones the runtime reused.
void nvidia_kernels_created();

}  // namespace computeprof::shim
