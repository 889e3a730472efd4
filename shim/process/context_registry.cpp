#include "shim/process/context_registry.hpp"

#include <map>
#include <mutex>
#include <vector>

#include "shim/process/clock.hpp"
#include "shim/process/lifecycle.hpp"

namespace computeprof::shim {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<ContextKey, ProfiledContext*> known;
  // Contexts that ended, and a forked child's parent's: records may still point at them.
  std::vector<ProfiledContext*> ended;
  int next_number = 1;
  ContextOrigin first_origin;
};

void lock_registry();
void unlock_registry();
void reset_registry_in_child();

// Leaked on purpose: records may be written from an atexit handler, after static
// destructors would have run.
Registry& registry() {
  static Registry* r = [] {
    add_lifecycle_handlers(LifecycleStage::contexts, {nullptr, lock_registry, unlock_registry, reset_registry_in_child});
    return new Registry;
  }();
  return *r;
}

void lock_registry() { registry().mutex.lock(); }
void unlock_registry() { registry().mutex.unlock(); }

// The child numbers its own contexts from 1 again.
void reset_registry_in_child() {
  auto& r = registry();
  for (auto& [key, context] : r.known) r.ended.push_back(context);
  r.known.clear();
  r.next_number = 1;
  r.first_origin = {};
  r.mutex.unlock();
}

const ApiProfile& profile_of(config::Api api) {
  return api == config::Api::cuda ? process_profile().cuda : process_profile().opencl;
}

}  // namespace

const ProfiledContext* find_or_create_context(const ContextKey& key,
                                              const std::function<ContextDescription()>& describe) {
  auto& r = registry();
  {
    std::lock_guard lock(r.mutex);
    if (auto it = r.known.find(key); it != r.known.end()) return it->second;
  }
  ContextDescription d = describe();
  const ContextOrigin origin{monotonic_ns(), wall_ns()};
  std::lock_guard lock(r.mutex);
  // Another thread of the same context may have won the race.
  if (auto it = r.known.find(key); it != r.known.end()) return it->second;
  if (r.next_number == 1) r.first_origin = origin;
  auto* context = new ProfiledContext{
      {r.next_number++, d.device, std::move(d.device_name), key.api, origin, d.device_properties}, &profile_of(key.api)};
  r.known.emplace(key, context);
  return context;
}

ContextOrigin first_context_origin() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  return r.first_origin;
}

const ProfiledContext* take_context(const ContextKey& key) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.known.find(key);
  if (it == r.known.end()) return nullptr;
  ProfiledContext* context = it->second;
  r.known.erase(it);
  r.ended.push_back(context);
  return context;
}

}  // namespace computeprof::shim
