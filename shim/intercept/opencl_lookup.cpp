#include "shim/intercept/opencl_lookup.hpp"

#include <cstring>

#include "shim/intercept/library_names.hpp"
#include "shim/intercept/opencl_api.hpp"

namespace computeprof::shim {

void* opencl_dlsym_substitute(void* handle, const char* name) {
  void* wrapper = nullptr;
#define OPENCL_WRAPPED(wrapped, version) \
  if (!wrapper && std::strcmp(name, #wrapped) == 0) wrapper = reinterpret_cast<void*>(&::wrapped);
#define OPENCL_CALLED(called)
#include "shim/intercept/opencl_entries.def"
#undef OPENCL_WRAPPED
#undef OPENCL_CALLED
  return wrapper && handle_names_library(handle, "libOpenCL.so") ? wrapper : nullptr;
}

}  // namespace computeprof::shim
