#pragma once
// Whether the shim records, read once from the environment and the config file.
// The check on every wrapped call is one relaxed atomic load: with no variable set
// the wrappers go straight to the driver.
#include <atomic>
#include <cstdint>

#include "config/environment.hpp"
#include "shim/process/record_fields.hpp"

namespace computeprof::shim {

enum class RecordingState : std::uint8_t { unknown, off, paused, recording };

// memtrace: allocations and frees are traced whenever CUDA profiling is enabled and the
// config asks for it, paused or not (a picture of memory missing some allocations
// would be wrong). `calls`: apitrace without memtrace, the allocation calls are traced
// as API calls only (while apitrace traces).
enum class MemoryTracing : std::uint8_t { unknown, off, on, calls };

// apitrace: the calls that make no operation (synchronization, events) are traced while
// CUDA operations are recorded and the config asks for them (by default with an export).
enum class ApiTracing : std::uint8_t { unknown, off, on };

// What every operation asks of the settings, resolved once: the wrappers read these,
// not the settings' option lists.
struct OperationSettings {
  // conckerneltrace: operations are timed without waiting (docs/design.md, "Timing").
  bool concurrent = false;
  // Counters are configured and were not dropped: selected launches are counted.
  bool counters = false;
  // callstack: frames captured per operation, 0 for none.
  unsigned callstack_depth = 0;
};

// Settings of one kind of context, with what is derived from them once.
struct ApiProfile {
  config::Settings settings;
  RecordFields fields;
  OperationSettings operations;
  // No kernel filter and no counters: every launch is recorded, none counted. The
  // launch wrappers' one test for the common case, where the filters' and counters'
  // own take a dozen instructions.
  bool plain_launches = true;
};

struct ProcessProfile {
  ApiProfile cuda;
  ApiProfile opencl;
};

}  // namespace computeprof::shim

// Read by the trampolines of intercept/cuda_trampolines.S too: C linkage, and the
// values of RecordingState (off 1 and paused 2 let calls through to the driver).
extern "C" std::atomic<computeprof::shim::RecordingState> computeprof_cuda_state;
// Read by the allocation calls' trampolines: MemoryTracing's values (off 1 lets calls
// through to the driver).
extern "C" std::atomic<computeprof::shim::MemoryTracing> computeprof_memory_state;
// Read by apitrace's calls' trampolines: ApiTracing's values (off 1 lets calls through).
extern "C" std::atomic<computeprof::shim::ApiTracing> computeprof_api_state;

namespace computeprof::shim {

namespace detail {
extern std::atomic<RecordingState> g_opencl_state;
RecordingState initialise_profile();
// Set once, after everything it holds; read without pthread_once once set (asked
// several times per operation).
extern std::atomic<const ProcessProfile*> g_profile;
const ProcessProfile& load_process_profile();
}  // namespace detail

inline bool cuda_recording() {
  RecordingState s = computeprof_cuda_state.load(std::memory_order_relaxed);
  if (s == RecordingState::unknown) s = detail::initialise_profile();
  return s == RecordingState::recording;
}

inline MemoryTracing memory_tracing_state() {
  MemoryTracing s = computeprof_memory_state.load(std::memory_order_relaxed);
  if (s == MemoryTracing::unknown) {
    detail::initialise_profile();
    s = computeprof_memory_state.load(std::memory_order_acquire);
  }
  return s;
}

// memtrace: allocations and frees become memory events.
inline bool memory_tracing() { return memory_tracing_state() == MemoryTracing::on; }

// apitrace asked for and CUDA operations recorded now (not paused).
inline bool api_tracing() {
  ApiTracing s = computeprof_api_state.load(std::memory_order_relaxed);
  if (s == ApiTracing::unknown) {
    detail::initialise_profile();
    s = computeprof_api_state.load(std::memory_order_acquire);
  }
  return s == ApiTracing::on && cuda_recording();
}

// OpenCL contexts: there is no cuProfilerStart for them, so the state never changes
// after it is read.
inline bool opencl_recording() {
  RecordingState s = detail::g_opencl_state.load(std::memory_order_relaxed);
  if (s == RecordingState::unknown) {
    detail::initialise_profile();
    s = detail::g_opencl_state.load(std::memory_order_acquire);
  }
  return s == RecordingState::recording;
}

// OpenCL profiling is on (recording or paused): queues get profiling turned on.
inline bool opencl_enabled() {
  opencl_recording();
  return detail::g_opencl_state.load(std::memory_order_relaxed) != RecordingState::off;
}

// Read once; valid after the first cuda_recording() call. Inline: one load per use on
// the operations' path.
inline const ProcessProfile& process_profile() {
  if (const ProcessProfile* p = detail::g_profile.load(std::memory_order_acquire)) return *p;
  return detail::load_process_profile();
}

// The wall clock when the settings were read (the first wrapped call): no event the
// shim records is older. Time 0 of exports where no context was recorded yet.
std::uint64_t profile_loaded_wall_ns();

// cuProfilerStart / cuProfilerStop: no effect unless profiling is enabled.
void set_cuda_paused(bool paused);

}  // namespace computeprof::shim
