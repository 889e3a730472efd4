// Entry points the shim wraps for what they tell, not to time them: kernel names
// (lookups), context lifetime (flush and close logs), the profiler switch.
#include <string>

#include "config/report.hpp"
#include "shim/activity/counter_session.hpp"
#include "shim/timing/thread_context.hpp"
#include "shim/timing/event_resolver.hpp"
#include "shim/cuda/kernel_catalog.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/cuda/recorded_call.hpp"

namespace computeprof::shim {

CUresult missing_driver_function(Entry e) {
  config::warn_once(std::string("the CUDA driver's ") + std::string(entry_info(e).symbol) +
                    " was not found; returning CUDA_ERROR_SHARED_OBJECT_INIT_FAILED");
  return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
}

}  // namespace computeprof::shim

using namespace computeprof::shim;

COMPUTEPROF_EXPORT CUresult cuModuleGetFunction(CUfunction* f, CUmodule module, const char* name) {
  COMPUTEPROF_REAL_OR_RETURN(cuModuleGetFunction);
  const CUresult r = real_fn(f, module, name);
  if (r == CUDA_SUCCESS && f) remember_function(*f, name, module);
  return r;
}

COMPUTEPROF_EXPORT CUresult cuLibraryGetKernel(CUkernel* k, CUlibrary library, const char* name) {
  COMPUTEPROF_REAL_OR_RETURN(cuLibraryGetKernel);
  const CUresult r = real_fn(k, library, name);
  if (r == CUDA_SUCCESS && k) remember_kernel(*k, name, library);
  return r;
}

COMPUTEPROF_EXPORT CUresult cuKernelGetFunction(CUfunction* f, CUkernel k) {
  COMPUTEPROF_REAL_OR_RETURN(cuKernelGetFunction);
  const CUresult r = real_fn(f, k);
  if (r == CUDA_SUCCESS && f) remember_kernel_function(*f, k);
  return r;
}

COMPUTEPROF_EXPORT CUresult cuModuleUnload(CUmodule module) {
  COMPUTEPROF_REAL_OR_RETURN(cuModuleUnload);
  const CUresult r = real_fn(module);
  if (r == CUDA_SUCCESS) forget_module(module);
  return r;
}

COMPUTEPROF_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
  COMPUTEPROF_REAL_OR_RETURN(cuLibraryUnload);
  const CUresult r = real_fn(library);
  if (r == CUDA_SUCCESS) forget_library(library);
  return r;
}

// The context's records are written and its file closed while it still exists.
COMPUTEPROF_EXPORT CUresult cuCtxDestroy_v2(CUcontext context) {
  COMPUTEPROF_REAL_OR_RETURN(cuCtxDestroy_v2);
  if (process_profile().cuda.settings.enabled) {
    context_ending(context, true);
    end_counter_session(context);
  }
  return real_fn(context);
}

namespace {
// The primary context may go with a release (the last one) or a reset: its outstanding
// operations are completed, its records written and its counter session stopped while
// it still exists; afterwards its handle may be reused.
template <typename Call>
CUresult primary_context_may_end(CUdevice device, Call&& call) {
  const bool profiling = process_profile().cuda.settings.enabled;
  if (profiling) {
    resolve_device_events(device);
    flush_records();
    end_counter_sessions_on_device(device);
  }
  const CUresult r = call();
  if (r == CUDA_SUCCESS && profiling) contexts_invalidated();
  return r;
}
}  // namespace

COMPUTEPROF_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  COMPUTEPROF_REAL_OR_RETURN(cuDevicePrimaryCtxRelease_v2);
  return primary_context_may_end(device, [&] { return real_fn(device); });
}

COMPUTEPROF_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) {
  COMPUTEPROF_REAL_OR_RETURN(cuDevicePrimaryCtxReset_v2);
  return primary_context_may_end(device, [&] { return real_fn(device); });
}

COMPUTEPROF_EXPORT CUresult cuProfilerStart() {
  COMPUTEPROF_REAL_OR_RETURN(cuProfilerStart);
  set_cuda_paused(false);
  return real_fn();
}

COMPUTEPROF_EXPORT CUresult cuProfilerStop() {
  COMPUTEPROF_REAL_OR_RETURN(cuProfilerStop);
  set_cuda_paused(true);
  if (process_profile().cuda.settings.enabled) {
    resolve_all_events();
    flush_records();
  }
  return real_fn();
}
