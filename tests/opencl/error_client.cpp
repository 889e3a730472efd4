// OpenCL calls the runtime rejects, made the same way with and without the shim; it
// prints each error code. Then one command that succeeds (a fill: `memset`), so that a
// log exists and must hold exactly that one record.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdio>

namespace {

const char* kSource = R"CL(
__kernel void needs_args(__global int* x, int n) { x[get_global_id(0)] = n; }
)CL";

int run() {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) {
    std::printf("FAIL: no OpenCL device\n");
    return 1;
  }
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &status);
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &status);
  if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) {
    std::printf("FAIL: build\n");
    return 1;
  }
  cl_kernel kernel = clCreateKernel(program, "needs_args", &status);
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, nullptr, &status);

  const cl_int bad_index = clSetKernelArg(kernel, 7, sizeof buffer, &buffer);
  std::printf("clSetKernelArg index 7: %d\n", bad_index);
  const cl_int bad_size = clSetKernelArg(kernel, 1, 1, &status);
  std::printf("clSetKernelArg int of 1 byte: %d\n", bad_size);
  const std::size_t global = 16;
  cl_event event = nullptr;
  const cl_int no_args = clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, &event);
  std::printf("clEnqueueNDRangeKernel without arguments: %d event %s\n", no_args, event ? "set" : "untouched");
  int host[32] = {};
  const cl_int out_of_range = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 32, sizeof host, host, 0, nullptr, nullptr);
  std::printf("clEnqueueReadBuffer past the end: %d\n", out_of_range);
  const cl_int bad_queue = clEnqueueReadBuffer(nullptr, buffer, CL_TRUE, 0, 4, host, 0, nullptr, nullptr);
  std::printf("clEnqueueReadBuffer on no queue: %d\n", bad_queue);
  const int zero = 0;
  const cl_int fill = clEnqueueFillBuffer(queue, buffer, &zero, sizeof zero, 0, 64, 0, nullptr, nullptr);
  std::printf("clEnqueueFillBuffer: %d\n", fill);
  clFinish(queue);

  const bool as_expected = bad_index == CL_INVALID_ARG_INDEX && bad_size == CL_INVALID_ARG_SIZE &&
                           no_args == CL_INVALID_KERNEL_ARGS && out_of_range == CL_INVALID_VALUE &&
                           bad_queue == CL_INVALID_COMMAND_QUEUE && fill == CL_SUCCESS && !event;
  clReleaseMemObject(buffer);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  std::printf(as_expected ? "PASS\n" : "FAIL: unexpected codes\n");
  return as_expected ? 0 : 1;
}

}  // namespace

int main() { return run(); }
