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

// Settings of one kind of context, with what is derived from them once.
struct ApiProfile {
  config::Settings settings;
  RecordFields fields;
};

struct ProcessProfile {
  ApiProfile cuda;
  ApiProfile opencl;
};

namespace detail {
extern std::atomic<RecordingState> g_cuda_state;
extern std::atomic<RecordingState> g_opencl_state;
RecordingState initialise_profile();
}  // namespace detail

inline bool cuda_recording() {
  RecordingState s = detail::g_cuda_state.load(std::memory_order_relaxed);
  if (s == RecordingState::unknown) s = detail::initialise_profile();
  return s == RecordingState::recording;
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

// Read once; valid after the first cuda_recording() call.
const ProcessProfile& process_profile();

// cuProfilerStart / cuProfilerStop: no effect unless profiling is enabled.
void set_cuda_paused(bool paused);

}  // namespace computeprof::shim
