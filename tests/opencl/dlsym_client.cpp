// An OpenCL program that is not linked with the loader: it opens libOpenCL.so.1 itself
// and looks every function up with dlsym, as plugins and language bindings do. Then
// exactly: a blocking write of a (memcpyHtoD), vec_add over 4096 floats, a blocking
// read of c (memcpyDtoH).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr const char* kSource = R"CL(
__kernel void vec_add(__global const float* a, __global const float* b, __global float* c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
)CL";
constexpr std::size_t kCount = 4096;
constexpr std::size_t kBytes = kCount * sizeof(float);

void* g_loader = nullptr;

// Fn is the function type the header declares (decltype names it without referring to
// the symbol, which nothing here links).
template <typename Fn>
Fn* look_up(const char* name) {
  void* fn = dlsym(g_loader, name);
  if (!fn) {
    std::printf("FAIL: dlsym %s\n", name);
    std::exit(1);
  }
  return reinterpret_cast<Fn*>(fn);
}
#define LOOK_UP(name) look_up<decltype(::name)>(#name)

void check(cl_int status, const char* what) {
  if (status == CL_SUCCESS) return;
  std::printf("FAIL: %s: %d\n", what, status);
  std::exit(1);
}

}  // namespace

int main() {
  g_loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!g_loader) {
    std::printf("FAIL: dlopen libOpenCL.so.1: %s\n", dlerror());
    return 1;
  }
  auto* get_platforms = LOOK_UP(clGetPlatformIDs);
  auto* get_devices = LOOK_UP(clGetDeviceIDs);
  auto* create_context = LOOK_UP(clCreateContext);
  auto* create_queue = LOOK_UP(clCreateCommandQueueWithProperties);
  auto* create_program = LOOK_UP(clCreateProgramWithSource);
  auto* build_program = LOOK_UP(clBuildProgram);
  auto* create_kernel = LOOK_UP(clCreateKernel);
  auto* create_buffer = LOOK_UP(clCreateBuffer);
  auto* set_arg = LOOK_UP(clSetKernelArg);
  auto* write_buffer = LOOK_UP(clEnqueueWriteBuffer);
  auto* launch = LOOK_UP(clEnqueueNDRangeKernel);
  auto* read_buffer = LOOK_UP(clEnqueueReadBuffer);
  auto* release_mem = LOOK_UP(clReleaseMemObject);
  auto* release_kernel = LOOK_UP(clReleaseKernel);
  auto* release_program = LOOK_UP(clReleaseProgram);
  auto* release_queue = LOOK_UP(clReleaseCommandQueue);
  auto* release_context = LOOK_UP(clReleaseContext);

  cl_platform_id platform = nullptr;
  check(get_platforms(1, &platform, nullptr), "clGetPlatformIDs");
  cl_device_id device = nullptr;
  check(get_devices(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  cl_int status = CL_SUCCESS;
  cl_context context = create_context(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = create_queue(context, device, nullptr, &status);
  check(status, "clCreateCommandQueueWithProperties");
  const char* source = kSource;
  cl_program program = create_program(context, 1, &source, nullptr, &status);
  check(status, "clCreateProgramWithSource");
  check(build_program(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel kernel = create_kernel(program, "vec_add", &status);
  check(status, "clCreateKernel");

  std::vector<float> a(kCount), c(kCount, 0.0f);
  for (std::size_t i = 0; i < kCount; ++i) a[i] = static_cast<float>(i);
  cl_mem da = create_buffer(context, CL_MEM_READ_ONLY, kBytes, nullptr, &status);
  check(status, "clCreateBuffer a");
  cl_mem dc = create_buffer(context, CL_MEM_WRITE_ONLY, kBytes, nullptr, &status);
  check(status, "clCreateBuffer c");
  check(write_buffer(queue, da, CL_TRUE, 0, kBytes, a.data(), 0, nullptr, nullptr), "write a");
  check(set_arg(kernel, 0, sizeof da, &da), "clSetKernelArg 0");
  check(set_arg(kernel, 1, sizeof da, &da), "clSetKernelArg 1");
  check(set_arg(kernel, 2, sizeof dc, &dc), "clSetKernelArg 2");
  const std::size_t global = kCount, local = 64;
  check(launch(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr), "vec_add");
  check(read_buffer(queue, dc, CL_TRUE, 0, kBytes, c.data(), 0, nullptr, nullptr), "read c");
  for (std::size_t i = 0; i < kCount; ++i) {
    if (c[i] != 2 * a[i]) {
      std::printf("FAIL: c[%zu] = %g\n", i, c[i]);
      return 1;
    }
  }
  std::printf("vec_add: %zu sums correct\n", kCount);
  release_mem(da);
  release_mem(dc);
  release_kernel(kernel);
  release_program(program);
  release_queue(queue);
  release_context(context);
  return 0;
}
