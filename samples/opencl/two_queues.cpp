// Two queues, used in turn: `two_queues` puts both in one context, `two_queues contexts`
// gives each its own context. The first queue comes from clCreateCommandQueue with
// profiling asked for by the program, the second from clCreateCommandQueueWithProperties
// with no properties. On each queue, in this order:
//   1. clEnqueueFillBuffer x with 1.5f       (memset, 4096 bytes)
//   2. clEnqueueNDRangeKernel scale, global 1024, local size left to the runtime
//   3. clEnqueueCopyBuffer x -> y            (memcpyDtoDasync, 4096 bytes)
//   4. clEnqueueReadBuffer y, blocking       (memcpyDtoH, 4096 bytes)
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/sample_outcome.hpp"
#include "opencl/opencl_support.hpp"

namespace {

constexpr const char* kSource = R"CL(
__kernel void scale(__global float* x, float factor) {
  size_t i = get_global_id(0);
  x[i] = x[i] * factor;
}
)CL";

constexpr std::size_t kCount = 1024;
constexpr std::size_t kBytes = kCount * sizeof(float);

struct Lane {
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem x = nullptr;
  cl_mem y = nullptr;
  std::vector<float> result = std::vector<float>(kCount, 0.0f);
};

void prepare(Lane& lane, const samples::Device& device, float factor) {
  cl_int status = CL_SUCCESS;
  lane.program = samples::build_program(lane.context, device, kSource);
  lane.kernel = samples::create_kernel(lane.program, "scale");
  lane.x = clCreateBuffer(lane.context, CL_MEM_READ_WRITE, kBytes, nullptr, &status);
  samples::check(status, "clCreateBuffer x");
  lane.y = clCreateBuffer(lane.context, CL_MEM_READ_WRITE, kBytes, nullptr, &status);
  samples::check(status, "clCreateBuffer y");
  samples::check(clSetKernelArg(lane.kernel, 0, sizeof lane.x, &lane.x), "clSetKernelArg 0");
  samples::check(clSetKernelArg(lane.kernel, 1, sizeof factor, &factor), "clSetKernelArg 1");
}

void release(Lane& lane, bool own_context) {
  clReleaseMemObject(lane.x);
  clReleaseMemObject(lane.y);
  clReleaseKernel(lane.kernel);
  clReleaseProgram(lane.program);
  clReleaseCommandQueue(lane.queue);
  if (own_context) clReleaseContext(lane.context);
}

void run(bool separate_contexts) {
  using samples::check;
  const samples::Device device = samples::first_device();
  Lane lanes[2];
  lanes[0].context = samples::create_context(device);
  lanes[1].context = separate_contexts ? samples::create_context(device) : lanes[0].context;
  cl_int status = CL_SUCCESS;
  lanes[0].queue = clCreateCommandQueue(lanes[0].context, device.device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "clCreateCommandQueue");
  lanes[1].queue = clCreateCommandQueueWithProperties(lanes[1].context, device.device, nullptr, &status);
  check(status, "clCreateCommandQueueWithProperties");
  prepare(lanes[0], device, 2.0f);
  prepare(lanes[1], device, 3.0f);

  const float pattern = 1.5f;
  const std::size_t global = kCount;
  for (Lane& lane : lanes) {
    check(clEnqueueFillBuffer(lane.queue, lane.x, &pattern, sizeof pattern, 0, kBytes, 0, nullptr, nullptr), "fill");
  }
  for (Lane& lane : lanes) {
    check(clEnqueueNDRangeKernel(lane.queue, lane.kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "scale");
  }
  for (Lane& lane : lanes) {
    check(clEnqueueCopyBuffer(lane.queue, lane.x, lane.y, 0, 0, kBytes, 0, nullptr, nullptr), "copy");
  }
  for (Lane& lane : lanes) {
    check(clEnqueueReadBuffer(lane.queue, lane.y, CL_TRUE, 0, kBytes, lane.result.data(), 0, nullptr, nullptr),
          "read");
  }

  const float expected[2] = {3.0f, 4.5f};
  for (int q = 0; q < 2; ++q) {
    for (std::size_t i = 0; i < kCount; ++i) {
      if (lanes[q].result[i] != expected[q]) {
        samples::fail("queue %d: y[%zu] = %g, expected %g", q + 1, i, lanes[q].result[i], expected[q]);
      }
    }
    std::printf("queue %d: %zu values correct\n", q + 1, kCount);
  }
  release(lanes[0], true);
  release(lanes[1], separate_contexts);
}

}  // namespace

int main(int argc, char** argv) {
  const bool separate = argc > 1 && std::strcmp(argv[1], "contexts") == 0;
  return samples::run_sample([&] { run(separate); });
}
