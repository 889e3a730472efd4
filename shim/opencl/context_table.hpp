#pragma once
// An OpenCL context as the shim records it: its log, and how its device's clock maps
// onto the host's. Looked up on every recorded command, so a per-thread cache sits in
// front of the process-wide map.
#include <atomic>
#include <cstdint>

#include "shim/intercept/opencl_api.hpp"
#include "shim/process/context_registry.hpp"

namespace computeprof::shim {

struct OpenCLContext {
  const ProfiledContext* profiled = nullptr;
  // Device timestamps plus this offset are CLOCK_MONOTONIC nanoseconds. Set by the
  // context's first timed command, from its QUEUED time (taken inside the enqueue call).
  std::atomic<bool> calibrated{false};
  std::atomic<std::int64_t> device_to_monotonic_ns{0};
};

// The context `queue` belongs to; null when the runtime cannot tell (the command then
// runs unrecorded). Lives as long as the process.
OpenCLContext* opencl_context_of(cl_command_queue queue);

// A context was just created: a context that had the same handle is gone, so its
// records are written and its file closed.
void opencl_context_created(cl_context context);

}  // namespace computeprof::shim
