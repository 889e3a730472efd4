#pragma once
// What the shim knows about each kernel handle a program launches: name, registers,
// static shared memory. Names come from the driver (cuFuncGetName / cuKernelGetName,
// 12.3+) or, for older drivers, from the lookups the program made
// (cuModuleGetFunction, cuLibraryGetKernel, cuKernelGetFunction), which the shim sees.
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "records/record.hpp"
#include "shim/intercept/cuda_api.hpp"
#include "shim/process/recorded_operation.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {

struct KernelInfo {
  std::string name;  // never freed: records point into it
  bool plain_name = false;  // logfmt::is_plain_name(name), for the records' writer
  std::uint32_t registers = 0;
  std::uint32_t static_smem = 0;
  bool library_kernel = false;  // the handle is a CUkernel
  // What the kernel filters keep (the verdict on the name, judged when the info is built).
  KernelSelectionState selection;
};

// The info of the handle given to a launch (a CUfunction, or a CUkernel cast to one).
// Cached per thread; the driver is asked once per handle per process.
const KernelInfo& kernel_info(CUfunction f);

namespace detail {
// A kernel handle as the calling thread last launched it.
struct CachedKernel {
  const void* handle = nullptr;
  std::uint64_t generation = 0;
  const KernelInfo* info = nullptr;
  // The last launch shape's occupancy: launches of one kernel mostly repeat it. A float,
  // as records hold it: copied into each record without a conversion.
  std::uint32_t block_threads = 0;
  std::uint32_t dynamic_smem = 0;
  std::optional<float> occupancy;
  bool occupancy_known = false;
};
inline constexpr std::size_t kThreadCacheSize = 64;
// Constant-initialised (constinit): read inline with no thread-local wrapper call.
extern constinit thread_local std::array<CachedKernel, kThreadCacheSize> t_kernels;
// Bumped when handles may have been reused; per-thread caches check it at every launch.
// Apart from the catalog: constant-initialised, read without the catalog's set-up.
extern std::atomic<std::uint64_t> g_kernel_generation;

inline CachedKernel& cache_slot(const void* handle) {
  const auto h = reinterpret_cast<std::uintptr_t>(handle);
  return t_kernels[(h >> 4 ^ h >> 12) % kThreadCacheSize];
}
inline void describe_kernel(records::Record& r, const KernelInfo& info, const std::optional<float>& occupancy) {
  r.method = info.name;
  r.method_is_plain = info.plain_name;
  r.static_smem = info.static_smem;
  r.registers = info.registers;
  r.occupancy = occupancy;
}
// describe_kernel_launch's rare paths, out of line so that its common case stays small
// where it is inlined: a kernel or shape not in the cache; the cache configuration
// (most logs lack it).
void describe_kernel_uncached(records::Record& r, CUfunction f, std::uint32_t block_threads, std::uint32_t dynamic_smem);
void describe_cache_config(records::Record& r);
}  // namespace detail

// Describes a launch of `f` in `r`: its kernel (name, registers, static shared memory),
// its shape, its theoretical occupancy at that shape (docs/counters.md, "Occupancy":
// active warps per SM over the SM's maximum; empty when the driver cannot tell) and,
// when the log has the columns, the cache configuration. Kernel and occupancy come from
// one lookup of the thread's cache (the occupancy of the kernel's last launch shape is
// kept: launches mostly repeat it), filled straight into the record. Inline, into the
// launch wrappers: a call would cost more than the common case itself.
inline void describe_kernel_launch(records::Record& r, CUfunction f, const records::Dim3& grid,
                                   const records::Dim3& block, std::uint32_t dynamic_smem) {
  r.kind = records::RecordKind::kernel;
  r.grid = grid;
  r.block = block;
  r.dynamic_smem = dynamic_smem;
  // The common case, a kernel launched again by this thread with the same shape, in a
  // few loads and compares.
  const std::uint32_t block_threads = block.x * block.y * block.z;
  const detail::CachedKernel& slot = detail::cache_slot(f);
  if (slot.handle == f && slot.generation == detail::g_kernel_generation.load(std::memory_order_acquire) &&
      slot.occupancy_known && slot.block_threads == block_threads && slot.dynamic_smem == dynamic_smem) {
    detail::describe_kernel(r, *slot.info, slot.occupancy);
  } else {
    detail::describe_kernel_uncached(r, f, block_threads, dynamic_smem);
  }
  if (process_profile().cuda.fields.cache_config) detail::describe_cache_config(r);
}

// What the program's own lookups told (called by the lookup wrappers).
void remember_function(CUfunction f, const char* name, CUmodule module);
void remember_kernel(CUkernel k, const char* name, CUlibrary library);
void remember_kernel_function(CUfunction f, CUkernel k);
// Handles of an unloaded module or library may be reused by the driver.
void forget_module(CUmodule module);
void forget_library(CUlibrary library);

}  // namespace computeprof::shim
