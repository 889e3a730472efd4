#pragma once
// The OpenCL API as the shim sees it: the 3.0 headers for every prototype the shim
// defines (1.2's clCreateCommandQueue included), and the loader's real functions,
// found lazily behind the shim (no DT_NEEDED on libOpenCL: every preloaded process
// would load it).
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <atomic>

#define COMPUTEPROF_CL_EXPORT extern "C" __attribute__((visibility("default")))

namespace computeprof::shim {

// The next definition of `name` after the shim (the OpenCL loader's), or null.
void* find_real_opencl(const char* name);

// Resolved once per call site; a racing second resolution finds the same address.
template <typename Fn>
Fn resolve_real_opencl(std::atomic<void*>& slot, const char* name) {
  void* fn = slot.load(std::memory_order_acquire);
  if (!fn) {
    fn = find_real_opencl(name);
    slot.store(fn, std::memory_order_release);
  }
  return reinterpret_cast<Fn>(fn);
}

// What a wrapper returns when no OpenCL loader is behind the shim (it cannot happen to
// a program linked with libOpenCL; it says so once on stderr).
cl_int missing_opencl_function(const char* name);

}  // namespace computeprof::shim

// The real function `name`, typed as the header declares it.
#define COMPUTEPROF_CL_REAL(name)                                                              \
  ([] {                                                                                        \
    static constinit std::atomic<void*> slot{nullptr};                                         \
    return ::computeprof::shim::resolve_real_opencl<decltype(&::name)>(slot, #name);           \
  }())

// In a wrapper: `real_fn`, or return the error above. Wrappers that return an object
// instead of a cl_int report the error through their errcode_ret.
#define COMPUTEPROF_CL_REAL_OR_RETURN(name)                                   \
  auto* real_fn = COMPUTEPROF_CL_REAL(name);                                  \
  if (!real_fn) return ::computeprof::shim::missing_opencl_function(#name)
