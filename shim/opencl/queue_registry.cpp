#include "shim/opencl/queue_registry.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "shim/opencl/handle_cache.hpp"

namespace computeprof::shim {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<cl_command_queue, ProgramQueueProperties> queues;
  std::uint64_t next_number = 1;
  // Bumped on every creation: a handle may have been reused; per-thread caches check it.
  std::atomic<std::uint64_t> generation{1};
};

// Leaked: records may be completed from an atexit handler.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

thread_local HandleCache<cl_command_queue, std::uint64_t, 8> t_numbers;

}  // namespace

void remember_queue(cl_command_queue queue, ProgramQueueProperties properties) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  properties.number = r.next_number++;
  r.queues[queue] = std::move(properties);
  r.generation.fetch_add(1, std::memory_order_release);
}

std::optional<ProgramQueueProperties> program_queue_properties(cl_command_queue queue) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.queues.find(queue);
  if (it == r.queues.end()) return std::nullopt;
  return it->second;
}

std::uint64_t queue_generation() { return registry().generation.load(std::memory_order_acquire); }

std::uint64_t queue_number(cl_command_queue queue) {
  auto& r = registry();
  const std::uint64_t generation = queue_generation();
  if (const std::uint64_t* cached = t_numbers.find(queue, generation)) return *cached;
  std::uint64_t number = 0;
  {
    std::lock_guard lock(r.mutex);
    if (auto it = r.queues.find(queue); it != r.queues.end()) number = it->second.number;
  }
  t_numbers.put(queue, generation, number);
  return number;
}

}  // namespace computeprof::shim
