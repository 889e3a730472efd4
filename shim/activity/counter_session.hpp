#pragma once
// Hardware counters of kernel launches with the CUPTI Range Profiler (docs/counters.md):
// per context, AutoRange + KernelReplay, started once; each counted launch is made
// alone on its context, then the range it produced is decoded, evaluated and
// attached to its record. When counters cannot be collected the reason is said once
// and every configured counter column reads n/a.
#include <mutex>

#include "records/record.hpp"
#include "shim/intercept/cuda_api.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {

// One context's range profiler (opaque: CUPTI types stay in the .cpp).
struct CounterSession;

// Whether the configuration asks for counters at all (and did not drop them).
inline bool counters_configured() { return process_profile().cuda.operations.counters; }

// The session of `context` (created at its first counted launch, on the launching
// thread), or null when counters cannot be collected there.
CounterSession* counter_session(CUcontext context, int device);

// Every configured counter of `record` reads n/a.
void mark_counters_unavailable(records::Record& record);

// Held from before a counted launch until its values are collected: ranges are
// numbered per context in launch order, so nothing else may launch on it in between.
std::mutex& launch_mutex(CounterSession& session);
// Before the launch: discards ranges of launches the shim did not count.
void prepare_counted_launch(CounterSession& session);
// After the launch completed: its values into `record` (n/a where unknown). The record
// owns them until it is written.
void collect_counters(CounterSession& session, records::Record& record);

// Before `context` is destroyed (or its primary context released or reset): its
// session is stopped and disabled while the context still exists.
void end_counter_session(CUcontext context);
// The same for every session on `device` (a primary context released or reset: the
// shim cannot tell whether this release destroys it). A session ended while its
// context lives on starts again at the next counted launch.
void end_counter_sessions_on_device(int device);

}  // namespace computeprof::shim
