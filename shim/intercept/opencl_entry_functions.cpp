#include <dlfcn.h>

#include <string>

#include "config/report.hpp"
#include "shim/intercept/opencl_api.hpp"
#include "shim/intercept/real_dlsym.hpp"

namespace computeprof::shim {

// Called from the shim, so RTLD_NEXT means "after libcomputeprof.so". A program that
// opened the loader itself (dlopen, RTLD_LOCAL) has it outside the global scope: then
// the loader's own handle.
void* find_real_opencl(const char* name) {
  if (void* fn = real_dlsym(RTLD_NEXT, name)) return fn;
  void* loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!loader) return nullptr;
  void* fn = real_dlsym(loader, name);
  dlclose(loader);  // the reference RTLD_NOLOAD took; the program's keeps it loaded
  return fn;
}

cl_int missing_opencl_function(const char* name) {
  config::warn_once(std::string("the OpenCL loader's ") + name + " was not found; returning CL_INVALID_OPERATION");
  return CL_INVALID_OPERATION;
}

}  // namespace computeprof::shim
