#pragma once
// The driver's ids of the streams that calls name (apitrace's calls, memtrace's
// stream-ordered allocations), from a small per-thread cache of its answers: asking the
// driver was a third of apitrace's cost a call. Destroying a stream or a context makes
// every cache stale, as a handle may come back as another stream.
#include <cstdint>

#include "shim/intercept/cuda_api.hpp"
#include "shim/intercept/driver_calls.hpp"

namespace computeprof::shim {

// The id of `stream` as the calling thread's current context `context` sees it (the null
// and per-thread streams are that context's own); 0 when the driver cannot tell.
std::uint64_t stream_id(const DriverCalls& d, CUcontext context, CUstream stream);

// Around the driver's destruction of a stream (the wrapper of cuStreamDestroy_v2): from
// the start of one until the end of the last, every thread asks the driver, and no
// answer cached before the end is used after it.
void stream_destruction_begins();
void stream_destruction_ends();

}  // namespace computeprof::shim
