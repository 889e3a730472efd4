#include <dlfcn.h>

#include <string>

#include "config/report.hpp"
#include "shim/opencl_api.hpp"
#include "shim/real_dlsym.hpp"

namespace computeprof::shim {

// Called from the shim, so RTLD_NEXT means "after libcomputeprof.so".
void* find_real_opencl(const char* name) { return real_dlsym(RTLD_NEXT, name); }

cl_int missing_opencl_function(const char* name) {
  config::warn_once(std::string("the OpenCL loader's ") + name + " was not found; returning CL_INVALID_OPERATION");
  return CL_INVALID_OPERATION;
}

}  // namespace computeprof::shim
