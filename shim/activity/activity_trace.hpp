#pragma once
// GPU times from CUPTI's activity records: each kernel's, copy's and memset's exact
// start and end on the GPU, tied to the shim's own record through the correlation id
// CUPTI's callback of the real call tells (activity_matcher.hpp). Used in both
// timing modes wherever CUPTI can trace; where it cannot (no libcupti, another CUPTI
// client, counters configured, the simulated driver) one line says why and event pairs
// time everything (docs/design.md, "Timing").
#include <atomic>
#include <cstdint>

#include "shim/activity/activity_matcher.hpp"
#include "shim/process/internal_worker.hpp"
#include "shim/process/thread_rings.hpp"

namespace computeprof::shim {

enum class ActivityTiming : std::uint8_t { undecided, tracing, off };
namespace detail {
extern std::atomic<ActivityTiming> g_activity_timing;
bool decide_activity_timing();
// The correlation id of the wrapped call in progress on this thread, as CUPTI's callback
// of the call tells it; kCallArmed until then, 0 outside a traced call.
inline constexpr std::uint32_t kCallArmed = UINT32_MAX;
extern constinit thread_local std::uint32_t t_call_correlation;
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

// Around the real call of a traced operation: arm before, take after. The id is CUPTI's
// correlation id of the call, which its activity records carry; 0 if CUPTI's callback
// did not come (the operation then falls back as if its activities never came).
inline void arm_call_correlation() { detail::t_call_correlation = detail::kCallArmed; }
inline std::uint32_t take_call_correlation() {
  const std::uint32_t id = detail::t_call_correlation;
  detail::t_call_correlation = 0;
  return id == detail::kCallArmed ? 0 : id;
}

// An operation made, not yet handed to the matcher: the application's threads queue
// their own (no lock shared by all threads), filled in place; the collector moves them
// into the matcher.
struct PendingOperation : ExpectedOperation {
  std::uint64_t since_ns = 0;
};

namespace detail {
// 128 operations of about 210 bytes: 26 KiB per thread that makes operations. The
// collector is woken to make room when a ring is half full.
using PendingRings = ThreadRings<PendingOperation, 128>;
// What the application's threads touch: their queues. activity_trace.cpp owns the rest.
struct OperationQueue {
  PendingRings pending;
};
// The collector thread, which sleeps while nothing is awaited. What it works on is made
// before tracing starts (activity_tracing()).
extern constinit InternalWorker<OperationQueue> g_collector;
}  // namespace detail

// While activity_tracing(): the calling thread's place for the operation it is making,
// in its queue to the collector: filled there while the call runs, so that it is not
// copied in. Nothing else is queued on the thread until expect_activities() hands it
// over, or the call failed and the place is left as it is. Null when the queue is full.
inline ExpectedOperation* expected_operation_place() {
  return detail::g_collector.shared()->pending.this_thread_ring().next_place();
}
// The collector did not keep up: this thread empties its queue itself (nothing is
// dropped). Out of line: rare.
[[gnu::noinline]] void make_room_for_operations();

// The operation `placed` at expected_operation_place() was made (and, serialized, waited
// for) by `made_ns` (the monotonic clock): its record is written once its activity
// records came, in the order operations were expected when serialized. Inline: once
// per operation, on the application's thread.
inline void expect_activities(ExpectedOperation& placed, std::uint64_t made_ns) {
  detail::PendingRings::Ring& ring = detail::g_collector.shared()->pending.this_thread_ring();
  static_cast<PendingOperation&>(placed).since_ns = made_ns;
  ring.publish();
  published_to<detail::g_collector>(ring);
  detail::g_collector.wake_if_idle();
}

// Flush points: every expected operation of `context` (of every context when null)
// gets its activity records, delivered by a flush of CUPTI's buffers, or comes out
// without them, and is handed to the record pipeline.
void settle_activities(const ProfiledContext* context);

}  // namespace computeprof::shim
