#pragma once
// GPU times from CUPTI's activity records: each kernel's, copy's and memset's exact
// start and end on the GPU, tied to the shim's own record through an external
// correlation id pushed around the real call (activity_matcher.hpp). Used in both
// timing modes wherever CUPTI can trace; where it cannot (no libcupti, another CUPTI
// client, counters configured, the simulated driver) one line says why and event pairs
// time everything (docs/design.md, "Timing").
#include <atomic>
#include <cstdint>

#include "shim/activity/activity_matcher.hpp"

namespace computeprof::shim {

enum class ActivityTiming : std::uint8_t { undecided, tracing, off };
namespace detail {
extern std::atomic<ActivityTiming> g_activity_timing;
bool decide_activity_timing();
// CUPTI's, set before tracing starts; constant-initialised, so read inline per call.
extern constinit decltype(&::cuptiActivityPushExternalCorrelationId) g_push_external_id;
extern constinit decltype(&::cuptiActivityPopExternalCorrelationId) g_pop_external_id;
}  // namespace detail

// Decides once, thread-safe, before the first recorded CUDA operation: loads CUPTI,
// turns activity records on and starts the thread that collects them, or says why
// not. True when this call decided (it may take long: no operation's cputime). Inline:
// asked per operation, one load once decided.
inline bool start_activity_timing() {
  if (detail::g_activity_timing.load(std::memory_order_acquire) != ActivityTiming::undecided) return false;
  return detail::decide_activity_timing();
}
// Whether activity records time the operations.
inline bool activity_tracing() {
  return detail::g_activity_timing.load(std::memory_order_acquire) == ActivityTiming::tracing;
}

// Around the real call of the operation tagged `id` (while tracing).
inline void push_activity_id(std::uint64_t id) { detail::g_push_external_id(kShimCorrelationKind, id); }
inline void pop_activity_id() {
  std::uint64_t id = 0;
  detail::g_pop_external_id(kShimCorrelationKind, &id);
}

// The operation was made (and, serialized, waited for) by `made_ns` (the monotonic
// clock): its record is written once its activity records came, in the order
// operations were expected when serialized.
void expect_activities(const ExpectedOperation& operation, std::uint64_t made_ns);

// Flush points: every expected operation of `context` (of every context when null)
// gets its activity records, delivered by a flush of CUPTI's buffers, or comes out
// without them, and is handed to the record pipeline.
void settle_activities(const ProfiledContext* context);

}  // namespace computeprof::shim
