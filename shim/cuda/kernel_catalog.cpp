#include "shim/cuda/kernel_catalog.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "logfmt/record_writer.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {
namespace detail {
std::atomic<std::uint64_t> g_kernel_generation{1};
constinit thread_local std::array<CachedKernel, kThreadCacheSize> t_kernels;
}  // namespace detail

namespace {
using detail::cache_slot;
using detail::CachedKernel;
using detail::describe_kernel;

struct RememberedName {
  std::string name;
  bool library_kernel = false;
  const void* owner = nullptr;  // module or library
};

struct Catalog {
  std::mutex mutex;
  std::map<const void*, RememberedName> remembered;
  std::map<const void*, KernelInfo*> infos;
  // Infos of handles forgotten: kept for the process's life, since records already
  // queued may still point at their names.
  std::vector<KernelInfo*> retired;
};

Catalog& catalog() {
  static Catalog* c = new Catalog;
  return *c;
}

int current_device(const DriverCalls& d) {
  CUdevice dev = 0;
  return d.ctx_get_device && d.ctx_get_device(&dev) == CUDA_SUCCESS ? dev : 0;
}

KernelInfo* build_info(const void* handle) {
  auto* info = new KernelInfo;
  std::optional<RememberedName> remembered;
  {
    auto& c = catalog();
    std::lock_guard lock(c.mutex);
    if (auto it = c.remembered.find(handle); it != c.remembered.end()) remembered = it->second;
  }
  const DriverCalls* d = driver_calls();
  auto f = static_cast<CUfunction>(const_cast<void*>(handle));
  auto k = static_cast<CUkernel>(const_cast<void*>(handle));
  const char* name = nullptr;
  if (remembered) {
    info->name = remembered->name;
    info->library_kernel = remembered->library_kernel;
  } else if (d && d->func_get_name && d->func_get_name(&name, f) == CUDA_SUCCESS && name) {
    info->name = name;
  } else if (d && d->kernel_get_name && d->kernel_get_name(&name, k) == CUDA_SUCCESS && name) {
    info->name = name;
    info->library_kernel = true;
  } else {
    info->name = fmt::format("unknown_kernel_{:x}", reinterpret_cast<std::uintptr_t>(handle));
  }
  info->plain_name = logfmt::is_plain_name(info->name);
  info->selection.verdict = kernel_name_verdict(info->name);
  if (!d) return info;
  int regs = 0, smem = 0;
  if (info->library_kernel) {
    const int dev = current_device(*d);
    if (d->kernel_get_attribute) {
      d->kernel_get_attribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k, dev);
      d->kernel_get_attribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k, dev);
    }
  } else if (d->func_get_attribute) {
    d->func_get_attribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    d->func_get_attribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
  }
  info->registers = static_cast<std::uint32_t>(regs);
  info->static_smem = static_cast<std::uint32_t>(smem);
  return info;
}

struct DeviceLimits {
  std::atomic<int> max_threads_per_sm{0};
  std::atomic<int> warp_size{0};
};
std::array<DeviceLimits, 64> g_device_limits;

bool device_limits(const DriverCalls& d, int device, int& max_threads, int& warp) {
  if (device < 0 || static_cast<std::size_t>(device) >= g_device_limits.size() || !d.device_get_attribute) return false;
  auto& limits = g_device_limits[static_cast<std::size_t>(device)];
  max_threads = limits.max_threads_per_sm.load(std::memory_order_relaxed);
  warp = limits.warp_size.load(std::memory_order_relaxed);
  if (max_threads > 0 && warp > 0) return true;
  if (d.device_get_attribute(&max_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device) != CUDA_SUCCESS ||
      d.device_get_attribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, device) != CUDA_SUCCESS || max_threads <= 0 ||
      warp <= 0) {
    return false;
  }
  limits.max_threads_per_sm.store(max_threads, std::memory_order_relaxed);
  limits.warp_size.store(warp, std::memory_order_relaxed);
  return true;
}

std::optional<float> compute_occupancy(CUfunction f, const KernelInfo& info, std::uint32_t block_threads,
                                        std::uint32_t dynamic_smem) {
  const DriverCalls* d = driver_calls();
  if (!d || !d->occupancy_max_blocks || block_threads == 0) return std::nullopt;
  CUfunction fn = f;
  if (info.library_kernel) {
    if (!d->kernel_get_function ||
        d->kernel_get_function(&fn, static_cast<CUkernel>(static_cast<void*>(f))) != CUDA_SUCCESS) {
      return std::nullopt;
    }
  }
  int blocks = 0, max_threads = 0, warp = 0;
  if (d->occupancy_max_blocks(&blocks, fn, static_cast<int>(block_threads), dynamic_smem) != CUDA_SUCCESS) {
    return std::nullopt;
  }
  if (!device_limits(*d, current_device(*d), max_threads, warp)) return std::nullopt;
  const int warps_per_block = (static_cast<int>(block_threads) + warp - 1) / warp;
  const double occupancy = static_cast<double>(blocks * warps_per_block) / (max_threads / warp);
  return static_cast<float>(occupancy > 1.0 ? 1.0 : occupancy);
}

}  // namespace

namespace {

// The calling thread's cache slot of `f`, holding its info (built once per process).
CachedKernel& cached_kernel(CUfunction f) {
  const std::uint64_t generation = detail::g_kernel_generation.load(std::memory_order_acquire);
  CachedKernel& slot = cache_slot(f);
  if (slot.handle == f && slot.generation == generation) return slot;

  auto& c = catalog();
  KernelInfo* info = nullptr;
  {
    std::lock_guard lock(c.mutex);
    if (auto it = c.infos.find(f); it != c.infos.end()) info = it->second;
  }
  if (!info) {
    // Built without the lock held: it calls the driver.
    KernelInfo* built = build_info(f);
    std::lock_guard lock(c.mutex);
    auto [it, inserted] = c.infos.emplace(f, built);
    if (!inserted) delete built;
    info = it->second;
  }
  slot = CachedKernel{};
  slot.handle = f;
  slot.generation = generation;
  slot.info = info;
  return slot;
}

}  // namespace

const KernelInfo& kernel_info(CUfunction f) { return *cached_kernel(f).info; }

namespace detail {
void describe_kernel_uncached(records::Record& r, CUfunction f, std::uint32_t block_threads,
                              std::uint32_t dynamic_smem) {
  CachedKernel& slot = cached_kernel(f);
  const KernelInfo& info = *slot.info;
  if (slot.occupancy_known && slot.block_threads == block_threads && slot.dynamic_smem == dynamic_smem) {
    describe_kernel(r, info, slot.occupancy);
    return;
  }
  const std::optional<float> occupancy = compute_occupancy(f, info, block_threads, dynamic_smem);
  // The driver calls made meanwhile may have let this thread reuse the slot (a signal
  // handler's launch): kept only if it is still this kernel's.
  if (slot.handle == f && slot.info == &info) {
    slot.block_threads = block_threads;
    slot.dynamic_smem = dynamic_smem;
    slot.occupancy = occupancy;
    slot.occupancy_known = true;
  }
  describe_kernel(r, info, occupancy);
}

// Volta and later pick the L1/shared split themselves; without CUPTI the shim can only
// report the preference in force, for both columns.
void describe_cache_config(records::Record& r) {
  CUfunc_cache config = CU_FUNC_CACHE_PREFER_NONE;
  const DriverCalls* d = driver_calls();
  if (d && d->ctx_get_cache_config) d->ctx_get_cache_config(&config);
  r.cache_config_requested = static_cast<std::uint8_t>(config);
  r.cache_config_executed = static_cast<std::uint8_t>(config);
}
}  // namespace detail

void remember_function(CUfunction f, const char* name, CUmodule module) {
  if (!f || !name) return;
  auto& c = catalog();
  std::lock_guard lock(c.mutex);
  c.remembered[f] = RememberedName{name, false, module};
}

void remember_kernel(CUkernel k, const char* name, CUlibrary library) {
  if (!k || !name) return;
  auto& c = catalog();
  std::lock_guard lock(c.mutex);
  c.remembered[k] = RememberedName{name, true, library};
}

void remember_kernel_function(CUfunction f, CUkernel k) {
  if (!f || !k) return;
  auto& c = catalog();
  std::lock_guard lock(c.mutex);
  auto it = c.remembered.find(k);
  if (it == c.remembered.end()) return;
  c.remembered[f] = RememberedName{it->second.name, false, it->second.owner};
}

namespace {
void forget_owner(const void* owner) {
  auto& c = catalog();
  std::lock_guard lock(c.mutex);
  std::erase_if(c.remembered, [&](const auto& entry) { return entry.second.owner == owner; });
  for (auto& [handle, info] : c.infos) c.retired.push_back(info);
  c.infos.clear();
  detail::g_kernel_generation.fetch_add(1, std::memory_order_acq_rel);
}
}  // namespace

void forget_module(CUmodule module) { forget_owner(module); }
void forget_library(CUlibrary library) { forget_owner(library); }

}  // namespace computeprof::shim
