// A program that passes its own events and waits on them, on a queue it created with
// profiling. Exactly these commands:
//   1. clEnqueueWriteBuffer x, non-blocking, held back by a user event the program sets
//      after the enqueue                                  (memcpyHtoDasync, 1024 bytes)
//   2. clEnqueueTask doubling x, waiting on 1             (kernel `double_all`)
//   3. clEnqueueReadBuffer x, non-blocking, waiting on 2  (memcpyDtoHasync, 1024 bytes)
// It registers a CL_COMPLETE callback on events 2 and 3 and checks that each fires
// exactly once, and reads its own profiling times of command 2.
#include <time.h>

#include <atomic>
#include <cstdio>
#include <vector>

#include "common/sample_outcome.hpp"
#include "opencl/opencl_support.hpp"

namespace {

constexpr const char* kSource = R"CL(
__kernel void double_all(__global int* x, int n) {
  for (int i = 0; i < n; ++i) x[i] = 2 * x[i];
}
)CL";

constexpr int kCount = 256;
constexpr std::size_t kBytes = kCount * sizeof(int);

std::atomic<int> g_callbacks[2];

void CL_CALLBACK on_complete(cl_event, cl_int, void* user_data) {
  g_callbacks[*static_cast<int*>(user_data)].fetch_add(1);
}

void sleep_ms(long ms) {
  const timespec pause{ms / 1000, (ms % 1000) * 1'000'000};
  nanosleep(&pause, nullptr);
}

void run() {
  using samples::check;
  const samples::Device device = samples::first_device();
  cl_context context = samples::create_context(device);
  cl_int status = CL_SUCCESS;
  const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device.device, properties, &status);
  check(status, "clCreateCommandQueueWithProperties");
  cl_program program = samples::build_program(context, device, kSource);
  cl_kernel kernel = samples::create_kernel(program, "double_all");

  std::vector<int> input(kCount), output(kCount, 0);
  for (int i = 0; i < kCount; ++i) input[i] = i;
  cl_mem x = clCreateBuffer(context, CL_MEM_READ_WRITE, kBytes, nullptr, &status);
  check(status, "clCreateBuffer");
  const int n = kCount;
  check(clSetKernelArg(kernel, 0, sizeof x, &x), "clSetKernelArg 0");
  check(clSetKernelArg(kernel, 1, sizeof n, &n), "clSetKernelArg 1");

  cl_event gate = clCreateUserEvent(context, &status);
  check(status, "clCreateUserEvent");
  cl_event written = nullptr, doubled = nullptr, read = nullptr;
  check(clEnqueueWriteBuffer(queue, x, CL_FALSE, 0, kBytes, input.data(), 1, &gate, &written), "write");
  check(clEnqueueTask(queue, kernel, 1, &written, &doubled), "double_all");
  check(clEnqueueReadBuffer(queue, x, CL_FALSE, 0, kBytes, output.data(), 1, &doubled, &read), "read");
  static int ids[2] = {0, 1};
  check(clSetEventCallback(doubled, CL_COMPLETE, on_complete, &ids[0]), "clSetEventCallback doubled");
  check(clSetEventCallback(read, CL_COMPLETE, on_complete, &ids[1]), "clSetEventCallback read");
  check(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
  check(clWaitForEvents(1, &read), "clWaitForEvents");

  cl_ulong start = 0, end = 0;
  check(clGetEventProfilingInfo(doubled, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), "START");
  check(clGetEventProfilingInfo(doubled, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "END");
  if (end < start) samples::fail("double_all ends before it starts");
  std::printf("own profiling times: ordered\n");

  // Callbacks run on the runtime's thread, possibly after the wait returned.
  for (int waited = 0; waited < 5000 && (g_callbacks[0] < 1 || g_callbacks[1] < 1); ++waited) sleep_ms(1);
  sleep_ms(50);
  if (g_callbacks[0] != 1 || g_callbacks[1] != 1) {
    samples::fail("callbacks fired %d and %d times, expected once each", g_callbacks[0].load(), g_callbacks[1].load());
  }
  std::printf("callbacks: once each\n");

  for (int i = 0; i < kCount; ++i) {
    if (output[i] != 2 * i) samples::fail("x[%d] = %d, expected %d", i, output[i], 2 * i);
  }
  std::printf("double_all: %d values correct\n", kCount);

  for (cl_event e : {gate, written, doubled, read}) clReleaseEvent(e);
  clReleaseMemObject(x);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

}  // namespace

int main() { return samples::run_sample(run); }
