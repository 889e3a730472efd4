#include "shim/intercept/opencl_entry_functions.hpp"

#include <dlfcn.h>

#include <atomic>
#include <string>

#include "config/report.hpp"
#include "shim/intercept/real_dlsym.hpp"

namespace computeprof::shim {
namespace {

constexpr const char* kNames[] = {
#define OPENCL_WRAPPED(name, version) #name,
#define OPENCL_CALLED(name) #name,
#include "shim/intercept/opencl_entries.def"
#undef OPENCL_WRAPPED
#undef OPENCL_CALLED
};
constexpr std::size_t kEntryCount = std::size(kNames);

// Zero-initialised: constant initialisation, usable before any constructor ran.
std::atomic<void*> g_real[kEntryCount];

// Called from the shim, so RTLD_NEXT means "after libcomputeprof.so". A program that
// opened the loader itself (dlopen, RTLD_LOCAL) has it outside the global scope: then
// the loader's own handle.
void* find_real(const char* name) {
  if (void* fn = next_definition(name)) return fn;
  void* loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!loader) return nullptr;
  void* fn = real_dlsym(loader, name);
  dlclose(loader);  // the reference RTLD_NOLOAD took; the program's keeps it loaded
  return fn;
}

}  // namespace

void* real_opencl_entry(OpenCLEntry e) {
  auto& slot = g_real[static_cast<std::size_t>(e)];
  void* fn = slot.load(std::memory_order_acquire);
  if (!fn) {
    // A racing second resolution finds the same address.
    fn = find_real(kNames[static_cast<std::size_t>(e)]);
    slot.store(fn, std::memory_order_release);
  }
  return fn;
}

cl_int missing_opencl_function(const char* name) {
  config::warn_once(std::string("the OpenCL loader's ") + name + " was not found; returning CL_INVALID_OPERATION");
  return CL_INVALID_OPERATION;
}

}  // namespace computeprof::shim
