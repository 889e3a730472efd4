#pragma once
// The shape every recording wrapper shares: time the real call (serialized, or under
// conckerneltrace without waiting), and when the driver accepted it, describe it and
// hand the record to the pipeline. A call the driver rejected executed nothing: its
// error goes back unchanged and nothing is recorded.
#include "config/profile_config.hpp"
#include "config/report.hpp"
#include "logfmt/record.hpp"
#include "shim/activity/activity_trace.hpp"
#include "shim/activity/counter_session.hpp"
#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/blank.hpp"
#include "shim/process/call_stacks.hpp"
#include "shim/process/operation_ids.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/timing/concurrent_operation.hpp"
#include "shim/timing/operation_timer.hpp"

namespace computeprof::shim {

// The wrapper of a RECORDED_ENTRY: its exported symbol NAME is a trampoline
// (intercept/cuda_trampolines.S) that jumps straight to the driver while CUDA operations
// are not recorded and calls this otherwise; the body follows the macro:
//   COMPUTEPROF_WRAPPER(cuMemsetD8_v2, (CUdeviceptr d, unsigned char v, size_t n)) { ... }
#define COMPUTEPROF_WRAPPER(NAME, PARAMS) \
  extern "C" __attribute__((visibility("hidden"))) CUresult computeprof_recorded_##NAME PARAMS

// Which call made the operation: `api` is the wrapper's entry point (a literal).
inline void identify(logfmt::Record& record, std::string_view api) {
  record.api = api;
  record.correlation_id = next_operation_id();
  record.thread_id = this_thread_id();
  const unsigned depth = process_profile().cuda.settings.config.callstack_depth;
  if (depth != 0) record.stack_id = capture_call_stack(depth);  // else 0: no stack
}

// `describe(record)` fills what the operation is (before the call: it may look at
// pointers the call is about to use); `call()` makes the real call; `complete(record)`
// adds what is known once the operation completed.
template <typename Describe, typename Call, typename Complete>
CUresult time_and_submit(std::string_view api, OperationTimer& timer, Describe&& describe, Call&& call,
                         Complete&& complete) {
  logfmt::Record record = blank<logfmt::Record>();
  identify(record, api);
  describe(record);
  timer.start();
  const CUresult result = call();
  if (result != CUDA_SUCCESS) return result;
  timer.finish(record);
  complete(record);
  submit_record(timer.profiled(), timer.completed_ns(), record);
  return result;
}

// An operation whose GPU times come from CUPTI's activity records: tagged with the
// correlation id CUPTI gives the real call. Serialized, the shim waits for its stream;
// under conckerneltrace nothing waits. No event is recorded in either: the activity
// records tell when it ran.
template <typename Describe, typename Call>
CUresult run_traced(std::string_view api, OperationTimer& timer, Describe&& describe, Call&& call) {
  ExpectedOperation* place = expected_operation_place();
  if (!place) {
    make_room_for_operations();
    timer.restart_cpu_clock();  // not the call's time
    place = expected_operation_place();
  }
  ExpectedOperation& operation = *place;
  operation = blank<ExpectedOperation>();
  identify(operation.record, api);
  operation.external_id = operation.record.correlation_id;
  operation.context = timer.profiled();
  operation.device_context = timer.context().context;
  describe(operation.record);
  operation.waited = !process_profile().cuda.settings.config.has(config::Option::conckerneltrace);
  arm_call_correlation();
  const CUresult result = call();
  operation.correlation_id = take_call_correlation();
  if (result != CUDA_SUCCESS) return result;
  if (operation.waited) {
    timer.finish_waited(operation.record);
  } else {
    timer.finish_cpu_side(operation.record);
  }
  expect_activities(operation, timer.completed_ns());
  return result;
}

// `timer` made for the operation and active.
template <typename Describe, typename Call>
CUresult run_recorded_with(std::string_view api, OperationTimer& timer, Describe&& describe, Call&& call) {
  if (start_activity_timing()) timer.restart_cpu_clock();
  if (activity_tracing()) return run_traced(api, timer, describe, call);
  if (concurrent_tracing()) {
    ConcurrentOperation operation(timer);
    if (operation.claimed()) {
      identify(operation.record(), api);
      describe(operation.record());
      operation.start();
      const CUresult result = call();
      if (result == CUDA_SUCCESS) operation.finish();
      return result;
    }
  }
  return time_and_submit(api, timer, describe, call, [](logfmt::Record&) {});
}

template <typename Describe, typename Call>
CUresult run_recorded(std::string_view api, CUstream stream, bool per_thread, Describe&& describe, Call&& call) {
  OperationTimer timer(stream, per_thread);
  if (!timer.active()) return call();
  return run_recorded_with(api, timer, describe, call);
}

// A kernel launch with counters configured: made alone on its context, serialized,
// its counter range collected into the record. Counted launches are replayed by CUPTI
// and cost milliseconds; the session lookup's process-wide lock is immaterial there.
// `timer` made for the operation and active.
template <typename Describe, typename Call>
CUresult run_counted_with(std::string_view api, OperationTimer& timer, Describe&& describe, Call&& call) {
  start_activity_timing();
  CounterSession* session = counter_session(timer.context().context, timer.profiled()->device);
  if (!session) {
    timer.restart_cpu_clock();
    return time_and_submit(api, timer, describe, call, mark_counters_unavailable);
  }
  std::lock_guard lock(launch_mutex(*session));
  prepare_counted_launch(*session);
  timer.restart_cpu_clock();
  return time_and_submit(api, timer, describe, call,
                         [session](logfmt::Record& r) { collect_counters(*session, r); });
}

}  // namespace computeprof::shim
