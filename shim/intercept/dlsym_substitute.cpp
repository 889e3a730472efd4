// What the exported dlsym (dlsym_thunk.S) answers itself: wrapped functions looked up on
// a handle of the driver or of the OpenCL loader. Each half of the shim answers for its
// own names; a build without the CUDA toolkit has only the OpenCL half, one without
// OpenCL only the CUDA half (shim/CMakeLists.txt).
#include <dlfcn.h>

#include "shim/intercept/real_dlsym.hpp"
#ifdef COMPUTEPROF_WITH_CUDA
#include "shim/intercept/cuda_lookup.hpp"
#endif
#ifdef COMPUTEPROF_WITH_OPENCL
#include "shim/intercept/opencl_lookup.hpp"
#endif

using namespace computeprof::shim;

// Called by the dlsym thunk: the wrapper to return, or null to let glibc answer. The
// thunk then jumps to glibc's dlsym, found here first.
extern "C" __attribute__((visibility("hidden"))) void* computeprof_dlsym_substitute(
    void* handle, const char* name, [[maybe_unused]] const void* caller) {
  resolve_real_dlsym();
  if (!name || name[0] != 'c' || handle == RTLD_DEFAULT || handle == RTLD_NEXT) return nullptr;
#ifdef COMPUTEPROF_WITH_OPENCL
  if (name[1] == 'l') return opencl_dlsym_substitute(handle, name);
#endif
#ifdef COMPUTEPROF_WITH_CUDA
  if (name[1] == 'u') return cuda_dlsym_substitute(handle, name, caller);
#endif
  return nullptr;
}
