#pragma once
// A CUDA context as one thread of the shim uses it: the context's log and the
// thread's own pair of timing events in it. Looked up on every timed operation, so
// it is a per-thread cache; the process-wide registry is consulted on a miss only.
#include <cstdint>

#include "shim/output/context_log.hpp"
#include "shim/intercept/cuda_api.hpp"

namespace computeprof::shim {

struct ThreadContext {
  CUcontext context = nullptr;
  std::uint64_t context_id = 0;
  std::uint64_t generation = 0;
  ContextLog* log = nullptr;
  CUevent start = nullptr;
  CUevent end = nullptr;
};

// The calling thread's view of `context`; null when the driver cannot give what
// timing needs (the operation then runs untimed and unrecorded).
ThreadContext* thread_context(CUcontext context);

// Creates two timing events in `context` (made current for the call if it is not).
bool create_event_pair(CUcontext context, CUevent& start, CUevent& end);

// Called before a context is destroyed or a primary context released or reset: every
// record so far is written; `destroyed` contexts' files are closed.
void context_ending(CUcontext context, bool destroyed);
// A primary context reset: the device's contexts are gone, their handles may return.
void contexts_invalidated();

}  // namespace computeprof::shim
