#include "opencl/opencl_support.hpp"

#include <string>

#include "common/sample_outcome.hpp"

namespace samples {

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) fail("%s returned %d", what, status);
}

Device first_device() {
  Device d;
  cl_uint count = 0;
  check(clGetPlatformIDs(1, &d.platform, &count), "clGetPlatformIDs");
  if (count == 0) fail("no OpenCL platform");
  check(clGetDeviceIDs(d.platform, CL_DEVICE_TYPE_ALL, 1, &d.device, nullptr), "clGetDeviceIDs");
  return d;
}

cl_context create_context(const Device& device) {
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device.device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  return context;
}

cl_program build_program(cl_context context, const Device& device, const char* source) {
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &status);
  check(status, "clCreateProgramWithSource");
  if (clBuildProgram(program, 1, &device.device, "", nullptr, nullptr) != CL_SUCCESS) {
    std::size_t size = 0;
    clGetProgramBuildInfo(program, device.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, device.device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    fail("clBuildProgram failed: %s", log.c_str());
  }
  return program;
}

cl_kernel create_kernel(cl_program program, const char* name) {
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, name, &status);
  check(status, "clCreateKernel");
  return kernel;
}

}  // namespace samples
