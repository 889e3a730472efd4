#pragma once
// Every context the process has recorded in, CUDA and OpenCL alike, numbered from 1 in
// the order they were first seen (docs/format.md, "Header"), with what records know of
// them (records/context.hpp). ProfiledContexts live as long as the process: records
// still on their way may point at one after its context is gone.
#include <cstdint>
#include <functional>
#include <string>

#include "config/environment.hpp"
#include "records/context.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {

using records::ContextOrigin;
using records::DeviceProperties;

// A context as records know it, and the settings of its kind.
struct ProfiledContext : records::ContextInfo {
  const ApiProfile* profile = nullptr;  // the settings of its kind of context
};

struct ContextKey {
  config::Api api;
  std::uint64_t id;  // the driver's unique id of the context (CUDA), its handle (OpenCL)
  friend auto operator<=>(const ContextKey&, const ContextKey&) = default;
};

struct ContextDescription {
  int device = 0;
  std::string device_name;
  DeviceProperties device_properties;
};

// The context of `key`, created from `describe()` the first time it is asked for.
// `describe` runs without the registry's lock held (it may call the driver).
const ProfiledContext* find_or_create_context(const ContextKey& key,
                                              const std::function<ContextDescription()>& describe);

// The origin of the first context the process recorded in (of this process: a forked
// child's first own); no operation of the process started before it. Zero before the
// first context.
ContextOrigin first_context_origin();

// The context of `key` if it is known; forgets it, so that a context reusing the id
// (never for CUDA ids, possible for OpenCL handles) is a new one.
const ProfiledContext* take_context(const ContextKey& key);

}  // namespace computeprof::shim
