#pragma once
// The OpenCL API as the shim sees it: the 3.0 headers for every prototype the shim
// defines (1.2's clCreateCommandQueue included).
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#define COMPUTEPROF_CL_EXPORT extern "C" __attribute__((visibility("default")))
