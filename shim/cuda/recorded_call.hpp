#pragma once
// The shape every recording wrapper shares: time the real call (serialized, or under
// conckerneltrace without waiting), and when the driver accepted it, describe it and
// hand the record to the pipeline. A call the driver rejected executed nothing: its
// error goes back unchanged and nothing is recorded.
#include "config/report.hpp"
#include "logfmt/record.hpp"
#include "shim/activity/counter_session.hpp"
#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/timing/concurrent_operation.hpp"
#include "shim/timing/operation_timer.hpp"

namespace computeprof::shim {

// `describe(record)` fills what the operation is (before the call: it may look at
// pointers the call is about to use); `call()` makes the real call; `complete(record)`
// adds what is known once the operation completed.
template <typename Describe, typename Call, typename Complete>
CUresult time_and_submit(OperationTimer& timer, Describe&& describe, Call&& call, Complete&& complete) {
  logfmt::Record record;
  describe(record);
  timer.start();
  const CUresult result = call();
  if (result != CUDA_SUCCESS) return result;
  timer.finish(record);
  complete(record);
  submit_record(timer.profiled(), timer.completed_ns(), record);
  return result;
}

template <typename Describe, typename Call>
CUresult run_recorded(CUstream stream, bool per_thread, Describe&& describe, Call&& call) {
  OperationTimer timer(stream, per_thread);
  if (!timer.active()) return call();
  if (concurrent_tracing()) {
    if (set_up_concurrent_tracing()) timer.restart_cpu_clock();
    ConcurrentOperation operation(timer);
    if (operation.claimed()) {
      describe(operation.record());
      operation.start();
      const CUresult result = call();
      operation.called();
      if (result == CUDA_SUCCESS) operation.finish();
      return result;
    }
  }
  return time_and_submit(timer, describe, call, [](logfmt::Record&) {});
}

// A kernel launch with counters configured: made alone on its context, serialized,
// its counter range collected into the record. Counted launches are replayed by CUPTI
// and cost milliseconds; the session lookup's process-wide lock is immaterial there.
template <typename Describe, typename Call>
CUresult run_counted(CUstream stream, bool per_thread, Describe&& describe, Call&& call) {
  OperationTimer timer(stream, per_thread);
  if (!timer.active()) return call();
  CounterSession* session = counter_session(timer.context().context, timer.profiled()->device);
  if (!session) {
    timer.restart_cpu_clock();
    return time_and_submit(timer, describe, call, mark_counters_unavailable);
  }
  std::lock_guard lock(launch_mutex(*session));
  prepare_counted_launch(*session);
  timer.restart_cpu_clock();
  return time_and_submit(timer, describe, call, [session](logfmt::Record& r) { collect_counters(*session, r); });
}

}  // namespace computeprof::shim
