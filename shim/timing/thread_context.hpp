#pragma once
// A CUDA context as one thread of the shim uses it: the context as records know it
// and the thread's own pair of timing events in it. Looked up on every timed operation, so
// it is a per-thread cache; the process-wide registry is consulted on a miss only.
#include <cstdint>

#include "shim/intercept/cuda_api.hpp"
#include "shim/process/context_registry.hpp"

namespace computeprof::shim {

struct EventTrack;

struct ThreadContext {
  CUcontext context = nullptr;
  std::uint64_t context_id = 0;
  std::uint64_t generation = 0;
  const ProfiledContext* profiled = nullptr;
  CUevent start = nullptr;
  CUevent end = nullptr;
  // The thread's conckerneltrace track in the context (operation_timing.cpp owns
  // it), kept here so that an operation finds it without a search; null until then,
  // and again once the view is checked anew.
  EventTrack* track = nullptr;
};

// The calling thread's view of `context`; null when the driver cannot give what
// timing needs (the operation then runs untimed and unrecorded).
ThreadContext* thread_context(CUcontext context);

// The context as records know it (created at its first use, as for an operation),
// without the thread's timing events; null when the driver cannot describe it.
const ProfiledContext* profiled_context(CUcontext context);

// Creates two timing events in `context` (made current for the call if it is not).
bool create_event_pair(CUcontext context, CUevent& start, CUevent& end);

// A context was destroyed, or a primary context released or reset: every thread's
// cached view is checked again before its next use (the handle may come back as
// another context, and the context's events are gone).
void forget_thread_contexts();
// The calling thread let go of `track`: none of its views keeps it.
void forget_thread_track(const EventTrack* track);

// Changes whenever forget_thread_contexts() is called: what a thread caches about a
// context handle is good while this stays the same.
std::uint64_t thread_contexts_generation();

}  // namespace computeprof::shim
