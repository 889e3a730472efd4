// apitrace's module loads (docs/format.md, "API calls"): loading a module or library
// compiles or copies code to the device while the GPU may sit idle, a cause the idle
// analysis names. Their unloads are traced where the shim forgets their kernels
// (kernel_lookup_wrappers.cpp).
#include "shim/cuda/api_call_trace.hpp"

using namespace computeprof::shim;
using computeprof::records::ApiCallKind;

COMPUTEPROF_API_WRAPPER(cuModuleLoad, (CUmodule * module, const char* path)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuModuleLoad, module, path);
  return traced_call("cuModuleLoad", ApiCallKind::module_load, {}, [&] { return real_fn(module, path); });
}

COMPUTEPROF_API_WRAPPER(cuModuleLoadData, (CUmodule * module, const void* image)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuModuleLoadData, module, image);
  return traced_call("cuModuleLoadData", ApiCallKind::module_load, {}, [&] { return real_fn(module, image); });
}

COMPUTEPROF_API_WRAPPER(cuModuleLoadDataEx, (CUmodule * module, const void* image, unsigned int options,
                                             CUjit_option* option_names, void** option_values)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuModuleLoadDataEx, module, image, options, option_names, option_values);
  return traced_call("cuModuleLoadDataEx", ApiCallKind::module_load, {},
                     [&] { return real_fn(module, image, options, option_names, option_values); });
}

COMPUTEPROF_API_WRAPPER(cuModuleLoadFatBinary, (CUmodule * module, const void* fat_binary)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuModuleLoadFatBinary, module, fat_binary);
  return traced_call("cuModuleLoadFatBinary", ApiCallKind::module_load, {}, [&] { return real_fn(module, fat_binary); });
}

COMPUTEPROF_API_WRAPPER(cuLibraryLoadData,
                        (CUlibrary * library, const void* code, CUjit_option* jit_options, void** jit_values,
                         unsigned int jit_count, CUlibraryOption* library_options, void** library_values,
                         unsigned int library_count)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuLibraryLoadData, library, code, jit_options, jit_values, jit_count, library_options,
                               library_values, library_count);
  return traced_call("cuLibraryLoadData", ApiCallKind::module_load, {}, [&] {
    return real_fn(library, code, jit_options, jit_values, jit_count, library_options, library_values, library_count);
  });
}

COMPUTEPROF_API_WRAPPER(cuLibraryLoadFromFile,
                        (CUlibrary * library, const char* path, CUjit_option* jit_options, void** jit_values,
                         unsigned int jit_count, CUlibraryOption* library_options, void** library_values,
                         unsigned int library_count)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuLibraryLoadFromFile, library, path, jit_options, jit_values, jit_count,
                               library_options, library_values, library_count);
  return traced_call("cuLibraryLoadFromFile", ApiCallKind::module_load, {}, [&] {
    return real_fn(library, path, jit_options, jit_values, jit_count, library_options, library_values, library_count);
  });
}
