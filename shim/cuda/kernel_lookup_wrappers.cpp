// The lookups that tell kernels' names, for drivers older than 12.3 that have no
// cuFuncGetName, and the unloads after which handles may be reused (apitrace's calls, as
// the loads are: module_load_wrappers.cpp).
#include "shim/cuda/api_call_trace.hpp"
#include "shim/cuda/kernel_catalog.hpp"
#include "shim/intercept/cuda_entry_functions.hpp"

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
  const CUresult r = api_tracing() && !inside_recorded_call()
                         ? traced_call("cuModuleUnload", computeprof::records::ApiCallKind::module_load, {},
                                       [&] { return real_fn(module); })
                         : real_fn(module);
  if (r == CUDA_SUCCESS) forget_module(module);
  return r;
}

COMPUTEPROF_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
  COMPUTEPROF_REAL_OR_RETURN(cuLibraryUnload);
  const CUresult r = api_tracing() && !inside_recorded_call()
                         ? traced_call("cuLibraryUnload", computeprof::records::ApiCallKind::module_load, {},
                                       [&] { return real_fn(library); })
                         : real_fn(library);
  if (r == CUDA_SUCCESS) forget_library(library);
  return r;
}
