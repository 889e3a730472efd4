#include "shim/intercept/opencl_entry_functions.hpp"
#include "shim/opencl/kernel_names.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "shim/opencl/handle_cache.hpp"
#include "shim/opencl/info_text.hpp"

namespace computeprof::shim {
namespace {

struct Names {
  std::mutex mutex;
  std::unordered_set<std::string> interned;  // nodes never move: views stay valid
  std::unordered_map<cl_kernel, std::string_view> by_kernel;
  std::atomic<std::uint64_t> generation{1};
};

// Leaked: records are written until the very end of the process.
Names& names() {
  static Names* n = new Names;
  return *n;
}

thread_local HandleCache<cl_kernel, std::string_view, 32> t_names;

}  // namespace

std::string_view opencl_kernel_name(cl_kernel kernel) {
  auto& n = names();
  const std::uint64_t generation = n.generation.load(std::memory_order_acquire);
  if (const std::string_view* cached = t_names.find(kernel, generation)) return *cached;
  std::string_view name;
  {
    std::lock_guard lock(n.mutex);
    if (auto it = n.by_kernel.find(kernel); it != n.by_kernel.end()) name = it->second;
  }
  if (name.empty()) {
    std::string asked = opencl_info_text(COMPUTEPROF_CL_REAL(clGetKernelInfo), kernel, CL_KERNEL_FUNCTION_NAME);
    std::lock_guard lock(n.mutex);
    name = *n.interned.insert(std::move(asked)).first;
    n.by_kernel[kernel] = name;
  }
  t_names.put(kernel, generation, name);
  return name;
}

void opencl_kernels_created(const cl_kernel* kernels, cl_uint count) {
  auto& n = names();
  std::lock_guard lock(n.mutex);
  for (cl_uint i = 0; i < count; ++i) n.by_kernel.erase(kernels[i]);
  n.generation.fetch_add(1, std::memory_order_release);
}

}  // namespace computeprof::shim
