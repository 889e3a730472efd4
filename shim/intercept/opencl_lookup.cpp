// Programs that open the OpenCL loader themselves (dlopen, not linked) and look its
// functions up with dlsym get the shim's wrappers, as linked programs do. Reached
// from the exported dlsym: no allocation, not instrumented (see CMakeLists.txt).
#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <string_view>

#include "shim/intercept/opencl_api.hpp"

namespace {

struct Wrapper {
  const char* name;
  void* address;
};

#define COMPUTEPROF_WRAPPER(name) Wrapper{#name, reinterpret_cast<void*>(&::name)}
const Wrapper kWrappers[] = {
    COMPUTEPROF_WRAPPER(clBuildProgram),
    COMPUTEPROF_WRAPPER(clCloneKernel),
    COMPUTEPROF_WRAPPER(clCreateCommandQueue),
    COMPUTEPROF_WRAPPER(clCreateCommandQueueWithProperties),
    COMPUTEPROF_WRAPPER(clCreateContext),
    COMPUTEPROF_WRAPPER(clCreateContextFromType),
    COMPUTEPROF_WRAPPER(clCreateKernel),
    COMPUTEPROF_WRAPPER(clCreateKernelsInProgram),
    COMPUTEPROF_WRAPPER(clEnqueueCopyBuffer),
    COMPUTEPROF_WRAPPER(clEnqueueCopyBufferRect),
    COMPUTEPROF_WRAPPER(clEnqueueCopyBufferToImage),
    COMPUTEPROF_WRAPPER(clEnqueueCopyImage),
    COMPUTEPROF_WRAPPER(clEnqueueCopyImageToBuffer),
    COMPUTEPROF_WRAPPER(clEnqueueFillBuffer),
    COMPUTEPROF_WRAPPER(clEnqueueNDRangeKernel),
    COMPUTEPROF_WRAPPER(clEnqueueReadBuffer),
    COMPUTEPROF_WRAPPER(clEnqueueReadBufferRect),
    COMPUTEPROF_WRAPPER(clEnqueueReadImage),
    COMPUTEPROF_WRAPPER(clEnqueueTask),
    COMPUTEPROF_WRAPPER(clEnqueueWriteBuffer),
    COMPUTEPROF_WRAPPER(clEnqueueWriteBufferRect),
    COMPUTEPROF_WRAPPER(clEnqueueWriteImage),
    COMPUTEPROF_WRAPPER(clGetCommandQueueInfo),
    COMPUTEPROF_WRAPPER(clGetEventProfilingInfo),
    COMPUTEPROF_WRAPPER(clGetProgramBuildInfo),
};
#undef COMPUTEPROF_WRAPPER

bool is_opencl_loader(void* handle) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) return false;
  std::string_view path(map->l_name);
  const auto slash = path.rfind('/');
  return (slash == std::string_view::npos ? path : path.substr(slash + 1)).starts_with("libOpenCL.so");
}

}  // namespace

// Called by the exported dlsym for names starting with "cl": the wrapper to return,
// or null to let glibc answer.
extern "C" __attribute__((visibility("hidden"))) void* computeprof_opencl_substitute(void* handle, const char* name) {
  for (const Wrapper& w : kWrappers) {
    if (std::strcmp(w.name, name) == 0) return is_opencl_loader(handle) ? w.address : nullptr;
  }
  return nullptr;
}
