#pragma once
// Programs that open libcuda themselves (dlopen) and look driver functions up with dlsym
// get the shim's wrappers, as linked programs do.

namespace computeprof::shim {

// For the exported dlsym, with a name starting with "cu": the wrapper of exactly that
// variant on a libcuda handle, or null to let glibc answer (any other handle, a name the
// shim does not wrap, a lookup by CUPTI or Perfworks: `caller` is the return address of
// the dlsym call). No allocation, not instrumented.
void* cuda_dlsym_substitute(void* handle, const char* name, const void* caller);

}  // namespace computeprof::shim
