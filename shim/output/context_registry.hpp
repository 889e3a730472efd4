#pragma once
// Every context the process has produced records for, numbered from 1 in the order
// they were first seen (FORMAT.md). ContextLogs live as long as the process: records
// still on their way may point at them after the context is gone.
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "shim/output/context_log.hpp"

namespace computeprof::shim {

enum class ContextKind : std::uint8_t { cuda, opencl };

struct ContextKey {
  ContextKind kind;
  std::uint64_t id;  // the driver's unique id of the context
  friend auto operator<=>(const ContextKey&, const ContextKey&) = default;
};

struct ContextDescription {
  int device = 0;
  std::string device_name;
  const ApiProfile* profile = nullptr;
};

// The log of `key`, created from `describe()` the first time it is asked for.
// `describe` runs without the registry's lock held (it may call the driver).
ContextLog* find_or_create_context_log(const ContextKey& key, const std::function<ContextDescription()>& describe);

// The log of `key` if it exists; removes it so that a context reusing the id (never
// for CUDA ids, possible for OpenCL handles) starts a new log.
ContextLog* take_context_log(const ContextKey& key);

// Calls `fn` on every log (under the registry's lock).
void for_each_context_log(const std::function<void(ContextLog&)>& fn);

}  // namespace computeprof::shim
