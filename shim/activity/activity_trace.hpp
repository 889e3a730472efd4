#pragma once
// conckerneltrace with CUPTI: each launch's, copy's and memset's exact GPU start and
// end come from CUPTI's activity records, tied to the shim's own record through an
// external correlation id pushed around the real call (activity_matcher.hpp). The
// event pairs of conckerneltrace stay: they tell when an operation completed, and
// their times are the fallback. Where CUPTI cannot trace (no libcupti, another CUPTI
// client, the simulated driver) one line says why and event pairs time everything.
#include <cstdint>

#include "shim/activity/activity_matcher.hpp"

namespace computeprof::shim {

struct ProfiledContext;

// Decides once, thread-safe: loads CUPTI and turns activity records on. Call before
// the first operation under conckerneltrace (it may take long: not the operation's
// cputime).
void start_activity_tracing();
// Whether activity records are being collected; cheap (asked per operation).
bool activity_tracing();

// Around the real call of an operation tagged `id` (non-zero, unique in the process).
void push_activity_id(std::uint64_t id);
void pop_activity_id();

// An operation's end event completed; its record holds the event pair's times.
void expect_activities(ExpectedOperation operation);

// The resolver thread's poll: whether activities are awaited; if so, poll_activities
// delivers what CUPTI holds complete and ends a round of the matcher (at most every
// 5 ms).
bool activities_waiting();
void poll_activities();

// Flush points, once every tagged operation of `context` (of every context when null) has
// completed on the GPU: its records are written, from activities or event times.
void settle_activities(const ProfiledContext* context);

}  // namespace computeprof::shim
