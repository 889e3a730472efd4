#include "shim/output/context_registry.hpp"

#include <map>
#include <vector>

#include "shim/process/clock.hpp"
#include "shim/process/lifecycle.hpp"
#include "shim/output/log_paths.hpp"

namespace computeprof::shim {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<ContextKey, ContextLog*> logs;
  // Logs of contexts that ended: records on their way may still point at them.
  std::vector<ContextLog*> ended;
  int next_number = 1;
  logfmt::LogPathRegistry paths;
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

// The parent's contexts are not the child's: their files stay the parent's.
void reset_registry_in_child() {
  auto& r = registry();
  for (auto& [key, log] : r.logs) {
    log->abandon();
    r.ended.push_back(log);
  }
  r.logs.clear();
  r.next_number = 1;
  r.paths.clear();
  r.mutex.unlock();
}

}  // namespace

logfmt::LogPathRegistry& log_paths() { return registry().paths; }

ContextLog* find_or_create_context_log(const ContextKey& key, const std::function<ContextDescription()>& describe) {
  auto& r = registry();
  {
    std::lock_guard lock(r.mutex);
    if (auto it = r.logs.find(key); it != r.logs.end()) return it->second;
  }
  ContextDescription d = describe();
  const ContextOrigin origin{monotonic_ns(), wall_ns()};
  std::lock_guard lock(r.mutex);
  // Another thread of the same context may have won the race.
  if (auto it = r.logs.find(key); it != r.logs.end()) return it->second;
  auto* log = new ContextLog(r.next_number++, d.device, std::move(d.device_name), *d.profile, origin);
  r.logs.emplace(key, log);
  return log;
}

ContextLog* take_context_log(const ContextKey& key) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.logs.find(key);
  if (it == r.logs.end()) return nullptr;
  ContextLog* log = it->second;
  r.logs.erase(it);
  r.ended.push_back(log);
  return log;
}

void for_each_context_log(const std::function<void(ContextLog&)>& fn) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  for (auto& [key, log] : r.logs) fn(*log);
}


}  // namespace computeprof::shim
