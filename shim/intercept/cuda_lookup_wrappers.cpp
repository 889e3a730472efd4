// The two ways a program looks up driver functions by name: dlsym on a libcuda handle
// and cuGetProcAddress. Both hand out the shim's wrapper of exactly the variant the
// driver chose, and the driver's own function for everything else.
#include <string_view>

#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/intercept/cuda_lookup.hpp"
#include "shim/intercept/library_names.hpp"
#include "shim/intercept/real_dlsym.hpp"
#include "shim/process/cuda_runtime_presence.hpp"

namespace computeprof::shim {
namespace {

bool is_driver_handle(void* handle) {
  return handle == loaded_driver_handle() || handle_names_library(handle, "libcuda.so");
}

// NVIDIA's profiling libraries (CUPTI, Perfworks) look driver functions up for their
// own use: kernel replay saves and restores memory with copies the application never
// made. They get the driver's functions, never the wrappers.
bool called_by_profiler_library(const void* caller) {
  return address_in_library(caller, "libcupti") || address_in_library(caller, "libnvperf");
}

// The wrapped variant whose exported address the driver handed out, if any: when the
// driver's table and its exports agree, this is exact whatever our version table says.
std::optional<Entry> variant_at_address(std::string_view base, void* fn) {
  void* driver = loaded_driver_handle();
  if (!driver) return std::nullopt;
  for (std::size_t i = 0; i < kEntryCount; ++i) {
    if (kEntries[i].base != base) continue;
    if (real_dlsym(driver, kEntries[i].symbol.data()) == fn) return static_cast<Entry>(i);
  }
  return std::nullopt;
}

void substitute_wrapper(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  if (!symbol || !pfn || !*pfn) return;
  if (std::string_view(symbol) == "cuGetProcAddress") note_cuda_runtime();
  auto entry = variant_at_address(symbol, *pfn);
  if (!entry) entry = select_variant(symbol, version, flags);
  if (!entry) return;
  note_real_entry(*entry, *pfn);
  *pfn = wrapper_of(*entry);
}

}  // namespace

void* cuda_dlsym_substitute(void* handle, const char* name, const void* caller) {
  const auto entry = find_entry(name);
  if (!entry || !is_driver_handle(handle) || called_by_profiler_library(caller)) return nullptr;
  void* real = real_dlsym(handle, name);
  if (!real) return nullptr;
  note_real_entry(*entry, real);
  return wrapper_of(*entry);
}

}  // namespace computeprof::shim

using namespace computeprof::shim;

COMPUTEPROF_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                                CUdriverProcAddressQueryResult* symbolStatus) {
  COMPUTEPROF_REAL_OR_RETURN(cuGetProcAddress_v2);
  const CUresult result = real_fn(symbol, pfn, cudaVersion, flags, symbolStatus);
  if (result == CUDA_SUCCESS && !called_by_profiler_library(__builtin_return_address(0))) {
    substitute_wrapper(symbol, pfn, cudaVersion, flags);
  }
  return result;
}

COMPUTEPROF_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  COMPUTEPROF_REAL_OR_RETURN(cuGetProcAddress);
  const CUresult result = real_fn(symbol, pfn, cudaVersion, flags);
  if (result == CUDA_SUCCESS && !called_by_profiler_library(__builtin_return_address(0))) {
    substitute_wrapper(symbol, pfn, cudaVersion, flags);
  }
  return result;
}
