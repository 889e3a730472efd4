#pragma once
// The calling thread's current CUDA context as records know it, for the calls that make
// no operation (memtrace's allocations, apitrace's calls): a per-thread cache of the
// last one, looked up again only when the thread's context changed or a context went
// (the handle may come back as another).
#include "shim/intercept/driver_calls.hpp"
#include "shim/process/context_registry.hpp"

namespace computeprof::shim {

// Null when the thread has no current context or the driver cannot describe it; the
// context's handle in `*handle` where asked for (null when the thread has none).
const ProfiledContext* current_profiled_context(const DriverCalls& d, CUcontext* handle = nullptr);

}  // namespace computeprof::shim
