#pragma once
// How a CUDA operation is recorded: one timing chosen in one place (operation_timing),
// then the one sequence of every recorded operation (shim/process/recorded_operation.hpp):
// claim, describe, around the call, complete.
#include <cstdint>
#include <mutex>

#include "config/profile_config.hpp"
#include "config/report.hpp"
#include "records/record.hpp"
#include "shim/activity/activity_trace.hpp"
#include "shim/activity/counter_session.hpp"
#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/blank.hpp"
#include "shim/process/kernel_selection.hpp"
#include "shim/process/nested_call.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/process/recorded_operation.hpp"
#include "shim/timing/concurrent_operation.hpp"
#include "shim/timing/operation_timer.hpp"

namespace computeprof::shim {

// The wrapper of a RECORDED_ENTRY: its exported symbol NAME is a trampoline
// (intercept/cuda_trampolines.S) that jumps straight to the driver while CUDA operations
// are not recorded and calls this otherwise; the body follows the macro:
//   COMPUTEPROF_WRAPPER(cuMemsetD8_v2, (CUdeviceptr d, unsigned char v, size_t n)) { ... }
#define COMPUTEPROF_WRAPPER(NAME, PARAMS) \
  extern "C" __attribute__((visibility("hidden"))) CUresult computeprof_recorded_##NAME PARAMS

// How CUDA operations are timed (docs/design.md, "Timing").
enum class OperationTiming : std::uint8_t {
  serialized_events,      // an event pair around the call, waited for (OperationTimer)
  concurrent_events,      // conckerneltrace: an event pair in a slot of the thread's track
  serialized_activities,  // CUPTI's activity records; the shim waits for the stream
  concurrent_activities,  // conckerneltrace with CUPTI's activity records: nothing waits
  counted,                // a launch selected for counters: alone on its context, serialized
};

// The one place the timing of an operation is chosen. The settings' mode (resolved once:
// OperationSettings) and whether CUPTI traces (decided once, at the process's first
// recorded operation; never in a forked child) choose it for every operation of the
// process; a launch the kernel filters select for counters is counted. The one change
// left to an operation: under conckerneltrace with event pairs, one that finds no slot
// is timed serialized (run_recorded_with). Inline: asked per operation, two loads.
[[gnu::always_inline]] inline OperationTiming operation_timing(OperationTimer& timer, LaunchSelection selection) {
  // Deciding may take long: not the call's time.
  if (start_activity_timing()) timer.restart_cpu_clock();
  if (selection == LaunchSelection::counted) return OperationTiming::counted;
  const bool concurrent = process_profile().cuda.operations.concurrent;
  if (activity_tracing()) return concurrent ? OperationTiming::concurrent_activities : OperationTiming::serialized_activities;
  return concurrent ? OperationTiming::concurrent_events : OperationTiming::serialized_events;
}

// Serialized with an event pair (shim/timing/operation_timer): the record goes to the
// pipeline once the end event was waited for. The timings' steps are forced inline, as
// the paths they replaced were: the compiler would otherwise keep some out of line (a
// call and its frame: about 20 instructions per operation).
class EventPairOperation {
 public:
  [[gnu::always_inline]] explicit EventPairOperation(OperationTimer& timer)
      : timer_(timer), record_(blank<records::Record>()) {}
  [[gnu::always_inline]] records::Record& record() { return record_; }
  template <typename Call>
  [[gnu::always_inline]] CUresult around(Call& call) {
    timer_.start();
    return call();
  }
  [[gnu::always_inline]] void complete() {
    timer_.finish(record_);
    submit_record(timer_.profiled(), timer_.completed_ns(), record_);
  }

 protected:
  OperationTimer& timer_;
  records::Record record_;
};

// A kernel launch with counters configured: made alone on its context, serialized, its
// counter range collected into the record (n/a where counters cannot be collected on
// the context). Counted launches are replayed by CUPTI and cost milliseconds: out of
// line, and the session lookup's process-wide lock is immaterial there.
class CountedOperation : public EventPairOperation {
 public:
  [[gnu::noinline]] explicit CountedOperation(OperationTimer& timer)
      : EventPairOperation(timer), session_(counter_session(timer.context().context, timer.profiled()->device)) {
    if (session_) {
      lock_ = std::unique_lock(launch_mutex(*session_));
      prepare_counted_launch(*session_);
    }
    timer.restart_cpu_clock();  // not the call's time
  }
  [[gnu::noinline]] void complete() {
    timer_.finish(record_);
    if (session_) {
      collect_counters(*session_, record_);
    } else {
      mark_counters_unavailable(record_);
    }
    submit_record(timer_.profiled(), timer_.completed_ns(), record_);
  }

 private:
  CounterSession* session_;
  std::unique_lock<std::mutex> lock_;
};

// GPU times from CUPTI's activity records (shim/activity/activity_trace): the operation
// is made in place in the thread's queue to the collector and tagged with the
// correlation id CUPTI gives the real call. Serialized (`waited`), the shim waits for
// the operation's stream; under conckerneltrace nothing waits. No event is recorded in
// either: the activity records tell when it ran.
class ActivityOperation {
 public:
  [[gnu::always_inline]] ActivityOperation(OperationTimer& timer, bool waited) : timer_(timer) {
    ExpectedOperation* place = expected_operation_place();
    if (!place) {
      make_room_for_operations();
      timer.restart_cpu_clock();  // not the call's time
      place = expected_operation_place();
    }
    operation_ = place;
    *place = blank<ExpectedOperation>();
    place->context = timer.profiled();
    place->device_context = timer.context().context;
    place->waited = waited;
  }
  [[gnu::always_inline]] records::Record& record() { return operation_->record; }
  template <typename Call>
  [[gnu::always_inline]] CUresult around(Call& call) {
    operation_->external_id = operation_->record.correlation_id;
    arm_call_correlation();
    const CUresult result = call();
    operation_->correlation_id = take_call_correlation();
    return result;
  }
  [[gnu::always_inline]] void complete() {
    if (operation_->waited) {
      timer_.finish_waited(operation_->record);
    } else {
      timer_.finish_cpu_side(operation_->record);
    }
    expect_activities(*operation_, timer_.completed_ns());
  }

 private:
  OperationTimer& timer_;
  ExpectedOperation* operation_;
};

// callstack: read where each timing's record is identified, not once before the switch,
// whose value would then be kept across the timing's set-up (measured: an instruction
// less per launch under conckerneltrace).
inline unsigned stack_depth() { return process_profile().cuda.operations.callstack_depth; }

// An operation whose `timer` is made and active, `selection` as the kernel filters
// said (recorded or counted). Every operation of a wrapper goes through one call of this,
// which the compiler then inlines: a second call site would keep it out of line, its
// frame and call costing about 40 instructions per launch.
template <typename Describe, typename Call>
CUresult run_recorded_with(std::string_view api, OperationTimer& timer, LaunchSelection selection,
                           Describe&& describe, Call&& real_call) {
  // A call that comes back into the shim from inside this one is this operation again.
  auto call = [&real_call] {
    RecordedCallScope inside;
    return real_call();
  };
  const OperationTiming timing = operation_timing(timer, selection);
  switch (timing) {
    case OperationTiming::serialized_activities:
    case OperationTiming::concurrent_activities: {
      ActivityOperation operation(timer, timing == OperationTiming::serialized_activities);
      return record_operation(operation, api, stack_depth(), describe, call);
    }
    case OperationTiming::concurrent_events: {
      ConcurrentOperation operation(timer);
      if (operation.claimed()) return record_operation(operation, api, stack_depth(), describe, call);
      break;  // no slot could be had: timed serialized
    }
    case OperationTiming::counted: {
      CountedOperation operation(timer);
      return record_operation(operation, api, stack_depth(), describe, call);
    }
    case OperationTiming::serialized_events:
      break;
  }
  EventPairOperation operation(timer);
  return record_operation(operation, api, stack_depth(), describe, call);
}

// A copy, a memset or a graph launch: always recorded (the kernel filters choose among
// kernels launched directly and graphs' kernel nodes only).
template <typename Describe, typename Call>
CUresult run_recorded(std::string_view api, CUstream stream, bool per_thread, Describe&& describe, Call&& call) {
  if (inside_recorded_call()) return call();
  OperationTimer timer(stream, per_thread);
  if (!timer.active()) return call();
  return run_recorded_with(api, timer, LaunchSelection::recorded, describe, call);
}

}  // namespace computeprof::shim
