#pragma once
// What the OpenCL samples share: the first device of the first platform, a program
// built from source, and a check that turns an OpenCL error into the sample's FAIL line.
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

namespace samples {

// Throws a SampleFailure naming `what` and the code when `status` is not CL_SUCCESS.
void check(cl_int status, const char* what);

struct Device {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
};

// The first device of the first platform (PoCL's CPU device where PoCL is installed).
Device first_device();

cl_context create_context(const Device& device);

// Builds `source` for the device; a build failure carries the build log.
cl_program build_program(cl_context context, const Device& device, const char* source);

cl_kernel create_kernel(cl_program program, const char* name);

}  // namespace samples
