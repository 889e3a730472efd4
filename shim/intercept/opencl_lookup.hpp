#pragma once
// Programs that open the OpenCL loader themselves (dlopen, not linked) and look its
// functions up with dlsym get the shim's wrappers, as linked programs do.

namespace computeprof::shim {

// For the exported dlsym, with a name starting with "cl": the wrapper to return, or
// null to let glibc answer. No allocation, not instrumented.
void* opencl_dlsym_substitute(void* handle, const char* name);

}  // namespace computeprof::shim
