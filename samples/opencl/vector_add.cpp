// c = a + b on 4096 floats, on a queue created without profiling. Exactly these
// commands, in this order:
//   1. clEnqueueWriteBuffer a, blocking       (memcpyHtoD, 16384 bytes)
//   2. clEnqueueWriteBuffer b, non-blocking   (memcpyHtoDasync, 16384 bytes, pinned:
//                                              b is CL_MEM_ALLOC_HOST_PTR)
//   3. clEnqueueNDRangeKernel vec_add, global 4096, local 64
//   4. clEnqueueReadBuffer c, non-blocking    (memcpyDtoHasync), then clFinish
//   5. clEnqueueReadBuffer c, blocking        (memcpyDtoH)
// It checks that the queue still reports the properties it was created with and that
// its events carry no profiling times, as OpenCL says for such a queue.
#include <cstdio>
#include <vector>

#include "common/sample_outcome.hpp"
#include "opencl/opencl_support.hpp"

namespace {

constexpr const char* kSource = R"CL(
__kernel void vec_add(__global const float* a, __global const float* b, __global float* c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
)CL";

constexpr std::size_t kCount = 4096;
constexpr std::size_t kBytes = kCount * sizeof(float);

void run() {
  using samples::check;
  const samples::Device device = samples::first_device();
  cl_context context = samples::create_context(device);
  cl_int status = CL_SUCCESS;
  const cl_queue_properties no_properties[] = {0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device.device, no_properties, &status);
  check(status, "clCreateCommandQueueWithProperties");

  cl_command_queue_properties seen = ~cl_command_queue_properties{0};
  check(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof seen, &seen, nullptr), "clGetCommandQueueInfo");
  if (seen != 0) samples::fail("the queue reports properties %#llx, created with none", (unsigned long long)seen);
  std::printf("queue properties: %llu\n", (unsigned long long)seen);

  cl_program program = samples::build_program(context, device, kSource);
  cl_kernel kernel = samples::create_kernel(program, "vec_add");

  std::vector<float> a(kCount), b(kCount), c(kCount, 0.0f), c2(kCount, 0.0f);
  for (std::size_t i = 0; i < kCount; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
  }
  cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY, kBytes, nullptr, &status);
  check(status, "clCreateBuffer a");
  cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, kBytes, nullptr, &status);
  check(status, "clCreateBuffer b");
  cl_mem dc = clCreateBuffer(context, CL_MEM_WRITE_ONLY, kBytes, nullptr, &status);
  check(status, "clCreateBuffer c");

  check(clEnqueueWriteBuffer(queue, da, CL_TRUE, 0, kBytes, a.data(), 0, nullptr, nullptr), "write a");
  cl_event written = nullptr;
  check(clEnqueueWriteBuffer(queue, db, CL_FALSE, 0, kBytes, b.data(), 0, nullptr, &written), "write b");
  check(clSetKernelArg(kernel, 0, sizeof da, &da), "clSetKernelArg 0");
  check(clSetKernelArg(kernel, 1, sizeof db, &db), "clSetKernelArg 1");
  check(clSetKernelArg(kernel, 2, sizeof dc, &dc), "clSetKernelArg 2");
  const std::size_t global = kCount, local = 64;
  check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr), "vec_add");
  check(clEnqueueReadBuffer(queue, dc, CL_FALSE, 0, kBytes, c.data(), 0, nullptr, nullptr), "read c async");
  check(clFinish(queue), "clFinish");
  check(clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, kBytes, c2.data(), 0, nullptr, nullptr), "read c");

  cl_ulong start = 0;
  const cl_int profiling = clGetEventProfilingInfo(written, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
  if (profiling != CL_PROFILING_INFO_NOT_AVAILABLE) {
    samples::fail("profiling info of a queue without profiling: %d, expected CL_PROFILING_INFO_NOT_AVAILABLE",
                  profiling);
  }
  std::printf("profiling info: not available\n");

  for (std::size_t i = 0; i < kCount; ++i) {
    if (c[i] != a[i] + b[i] || c2[i] != c[i]) samples::fail("c[%zu] = %g, expected %g", i, c[i], a[i] + b[i]);
  }
  std::printf("vec_add: %zu sums correct\n", kCount);

  clReleaseEvent(written);
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseMemObject(dc);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

}  // namespace

int main() { return samples::run_sample(run); }
