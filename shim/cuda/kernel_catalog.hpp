#pragma once
// What the shim knows about each kernel handle a program launches: name, registers,
// static shared memory. Names come from the driver (cuFuncGetName / cuKernelGetName,
// 12.3+) or, for older drivers, from the lookups the program made
// (cuModuleGetFunction, cuLibraryGetKernel, cuKernelGetFunction), which the shim sees.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "logfmt/kernel_match.hpp"
#include "logfmt/record.hpp"
#include "shim/intercept/cuda_api.hpp"

namespace computeprof::shim {

struct KernelInfo {
  std::string name;  // never freed: records point into it
  bool plain_name = false;  // logfmt::is_plain_name(name), for the records' writer
  std::uint32_t registers = 0;
  std::uint32_t static_smem = 0;
  bool library_kernel = false;  // the handle is a CUkernel
  // The kernel filters' verdict on the name, judged when the info is built.
  logfmt::KernelNameVerdict verdict;
  // Launches of this kernel so far (counted only when a filter needs it).
  mutable std::atomic<std::uint64_t> launches{0};
};

// The info of the handle given to a launch (a CUfunction, or a CUkernel cast to one).
// Cached per thread; the driver is asked once per handle per process.
const KernelInfo& kernel_info(CUfunction f);

// Describes a launch of `f` in `r`: its kernel (name, registers, static shared memory),
// its shape, its theoretical occupancy at that shape (docs/counters.md, "Occupancy":
// active warps per SM over the SM's maximum; empty when the driver cannot tell) and,
// when the log has the columns, the cache configuration. Kernel and occupancy come from
// one lookup of the thread's cache (the occupancy of the kernel's last launch shape is
// kept: launches mostly repeat it), filled straight into the record.
void describe_kernel_launch(logfmt::Record& r, CUfunction f, const logfmt::Dim3& grid, const logfmt::Dim3& block,
                            std::uint32_t dynamic_smem);

// What the program's own lookups told (called by the lookup wrappers).
void remember_function(CUfunction f, const char* name, CUmodule module);
void remember_kernel(CUkernel k, const char* name, CUlibrary library);
void remember_kernel_function(CUfunction f, CUkernel k);
// Handles of an unloaded module or library may be reused by the driver.
void forget_module(CUmodule module);
void forget_library(CUlibrary library);

}  // namespace computeprof::shim
