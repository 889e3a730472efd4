// Builds one kernel with options of its own ("-cl-mad-enable", plus -cl-nv-verbose
// when run with "verbose") and prints what clGetProgramBuildInfo tells of the build:
// the options, and whether the log holds ptxas's lines. The shim must not change
// either.
#include <cstdio>
#include <cstring>
#include <string>

#include "opencl/opencl_support.hpp"

namespace {

constexpr const char* kSource = R"CL(
__kernel void scale(__global float* x) { x[get_global_id(0)] *= 2.0f; }
)CL";

std::string build_info(cl_program program, cl_device_id device, cl_program_build_info name) {
  std::size_t size = 0;
  samples::check(clGetProgramBuildInfo(program, device, name, 0, nullptr, &size), "clGetProgramBuildInfo size");
  std::string text(size, '\0');
  samples::check(clGetProgramBuildInfo(program, device, name, size, text.data(), nullptr), "clGetProgramBuildInfo");
  text.resize(std::strlen(text.c_str()));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const bool verbose = argc > 1 && std::strcmp(argv[1], "verbose") == 0;
  const samples::Device device = samples::first_device();
  cl_context context = samples::create_context(device);
  cl_int status = CL_SUCCESS;
  const char* source = kSource;
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &status);
  samples::check(status, "clCreateProgramWithSource");
  const char* options = verbose ? "-cl-mad-enable -cl-nv-verbose" : "-cl-mad-enable";
  samples::check(clBuildProgram(program, 1, &device.device, options, nullptr, nullptr), "clBuildProgram");
  std::printf("options: %s\n", build_info(program, device.device, CL_PROGRAM_BUILD_OPTIONS).c_str());
  const std::string log = build_info(program, device.device, CL_PROGRAM_BUILD_LOG);
  std::printf("ptxas lines in the log: %s\n", log.find("ptxas info") != std::string::npos ? "yes" : "no");
  clReleaseProgram(program);
  clReleaseContext(context);
  std::printf("PASS\n");
  return 0;
}
