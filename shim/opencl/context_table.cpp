#include "shim/intercept/opencl_entry_functions.hpp"
#include "shim/opencl/context_table.hpp"

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "shim/opencl/handle_cache.hpp"
#include "shim/opencl/info_text.hpp"
#include "shim/opencl/queue_registry.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/context_registry.hpp"

namespace computeprof::shim {
namespace {

struct Contexts {
  std::mutex mutex;
  std::unordered_map<cl_context, OpenCLContext*> known;
  // Bumped when a handle is retired; per-thread caches check it.
  std::atomic<std::uint64_t> generation{1};
};

// Leaked: records may still point at these when the process exits.
Contexts& contexts() {
  static Contexts* c = new Contexts;
  return *c;
}

ContextKey key_of(cl_context context) {
  return ContextKey{config::Api::opencl, static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(context))};
}

// %d and OPENCL_DEVICE: the device's index among all devices of its platform.
int device_number(cl_device_id device) {
  auto* get_info = COMPUTEPROF_CL_REAL(clGetDeviceInfo);
  auto* get_ids = COMPUTEPROF_CL_REAL(clGetDeviceIDs);
  cl_platform_id platform = nullptr;
  cl_uint count = 0;
  if (!get_info || !get_ids ||
      get_info(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) != CL_SUCCESS ||
      get_ids(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0) {
    return 0;
  }
  std::vector<cl_device_id> devices(count);
  if (get_ids(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr) != CL_SUCCESS) return 0;
  for (cl_uint i = 0; i < count; ++i) {
    if (devices[i] == device) return static_cast<int>(i);
  }
  return 0;
}

OpenCLContext* lookup(cl_context context, cl_command_queue queue) {
  auto& c = contexts();
  {
    std::lock_guard lock(c.mutex);
    if (auto it = c.known.find(context); it != c.known.end()) return it->second;
  }
  // The file names the device of the queue that first records into the context.
  const ProfiledContext* profiled = find_or_create_context(key_of(context), [&] {
    ContextDescription d;
    cl_device_id device = nullptr;
    if (auto* get_info = COMPUTEPROF_CL_REAL(clGetCommandQueueInfo);
        get_info && get_info(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) == CL_SUCCESS && device) {
      d.device = device_number(device);
      d.device_name = opencl_info_text(COMPUTEPROF_CL_REAL(clGetDeviceInfo), device, CL_DEVICE_NAME);
    }
    return d;
  });
  std::lock_guard lock(c.mutex);
  auto [it, inserted] = c.known.try_emplace(context, nullptr);
  if (inserted) {
    it->second = new OpenCLContext;
    it->second->profiled = profiled;
  }
  return it->second;
}

thread_local HandleCache<cl_command_queue, OpenCLContext*, 8> t_contexts;

}  // namespace

OpenCLContext* opencl_context_of(cl_command_queue queue) {
  // A queue's context changes when either handle is reused. Both generations only grow,
  // so their sum changes whenever one of them does.
  const std::uint64_t generation = contexts().generation.load(std::memory_order_acquire) + queue_generation();
  if (OpenCLContext* const* cached = t_contexts.find(queue, generation)) return *cached;
  cl_context context = nullptr;
  auto* get_info = COMPUTEPROF_CL_REAL(clGetCommandQueueInfo);
  if (!get_info || get_info(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr) != CL_SUCCESS || !context) {
    return nullptr;
  }
  OpenCLContext* found = lookup(context, queue);
  t_contexts.put(queue, generation, found);
  return found;
}

void opencl_context_created(cl_context context) {
  auto& c = contexts();
  {
    std::lock_guard lock(c.mutex);
    if (c.known.erase(context) == 0) return;
    c.generation.fetch_add(1, std::memory_order_release);
  }
  if (const ProfiledContext* old = take_context(key_of(context))) retire_context(old);
}

}  // namespace computeprof::shim
