#pragma once
// How one CUDA operation is timed on the thread that makes it (docs/design.md, "Timing"):
// the timing chosen in one place (operation_timing), then the one sequence of every
// recorded operation (shim/process/recorded_operation.hpp): claim, describe, around the
// call, complete. The timings: an event pair waited for (OperationTimer, serialized), a
// slot of the thread's track that the resolver completes (ConcurrentOperation,
// conckerneltrace; shim/timing/event_resolver), CUPTI's activity records
// (ActivityOperation), and a launch collected for counters (CountedOperation).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "config/profile_config.hpp"
#include "config/report.hpp"
#include "records/record.hpp"
#include "shim/activity/activity_trace.hpp"
#include "shim/activity/counter_session.hpp"
#include "shim/intercept/cuda_api.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/blank.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/nested_call.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/process/recorded_operation.hpp"
#include "shim/timing/event_resolver.hpp"
#include "shim/timing/event_track.hpp"
#include "shim/timing/thread_context.hpp"

namespace computeprof::shim {

// Serialized timing of one driver operation, as the old profiler did it: an event
// before and after the real call on the operation's own stream, then a wait for the
// second. gputime is the events' elapsed time; cputime everything from entry to the
// end of the wait.
class OperationTimer {
 public:
  // `stream` as the program passed it; `per_thread_variant`: it called a _ptds/_ptsz
  // entry point, where the NULL stream means the per-thread default stream.
  // Inline: made at every operation, where a call and its frame would cost a dozen
  // instructions more.
  OperationTimer(CUstream stream, bool per_thread_variant)
      : cpu_start_ns_(monotonic_ns()),
        stream_(stream == nullptr && per_thread_variant ? CU_STREAM_PER_THREAD : stream) {
    const DriverCalls* d = driver_calls();
    if (!d || !d->can_time()) return;
    CUcontext context = nullptr;
    if (d->stream_get_ctx(stream_, &context) != CUDA_SUCCESS || !context) return;
    if (d->stream_is_capturing) {
      CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
      // An error here (e.g. the legacy stream while another stream captures) means the
      // operation cannot execute either.
      if (d->stream_is_capturing(stream_, &status) != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE) return;
    }
    context_ = thread_context(context);
  }

  // False when this operation is not to be recorded: no usable context, or a stream
  // being captured (the operation does not execute; waiting on an event there would
  // break the capture).
  bool active() const { return context_ != nullptr; }

  // The stream the operation really runs on (CU_STREAM_PER_THREAD made explicit).
  CUstream stream() const { return stream_; }

  // Restarts the cpu clock: what the shim did for itself since construction (setting
  // up counters) is not time spent in the driver call.
  void restart_cpu_clock();
  // Just before the real call. Inline: one driver call, which a call of its own would
  // make half again as costly.
  void start() { started_ = driver_calls()->event_record(context_->start, stream_) == CUDA_SUCCESS; }
  // After the real call succeeded: waits, then fills the record's times and stream.
  void finish(records::Record& record);
  // After the real call succeeded, when something else gives the GPU times (CUPTI's
  // activity records), serialized: waits for the operation's stream, as the old
  // profiler did, then finish_cpu_side(). No event: a pair costs a launch more than
  // the wait itself on a GPU (docs/validation/2026-11-26-h200.md).
  void finish_waited(records::Record& record);
  // After the real call succeeded (and any wait), when something else gives the GPU
  // times: the CPU side of the record and its stream; its GPU start and end are this
  // moment on the wall clock until then. Inline: a few stores, for which a call and its
  // frame would cost a third more.
  void finish_cpu_side(records::Record& record) {
    completed_ns_ = monotonic_ns();
    const ContextOrigin& origin = context_->profiled->origin;
    record.cputime_ns = completed_ns_ - cpu_start_ns_;
    record.timestamp_ns = cpu_start_ns_ >= origin.monotonic_ns ? cpu_start_ns_ - origin.monotonic_ns : 0;
    record.gpu_end_ns = record.gpu_start_ns = origin.wall_ns + (completed_ns_ - origin.monotonic_ns);
    describe_stream(record);
  }
  const ProfiledContext* profiled() const { return context_->profiled; }
  ThreadContext& context() const { return *context_; }
  // The record's stream id, when the log has the column (a driver call: only then).
  void describe_stream(records::Record& record) const {
    if (context_->profiled->profile->fields.stream_id) record_stream_id(record);
  }
  std::uint64_t cpu_start_ns() const { return cpu_start_ns_; }
  std::uint64_t completed_ns() const { return completed_ns_; }

 private:
  void record_stream_id(records::Record& record) const;

  std::uint64_t cpu_start_ns_;
  std::uint64_t completed_ns_ = 0;
  CUstream stream_;
  ThreadContext* context_ = nullptr;
  bool started_ = false;
};

// One operation under conckerneltrace, on the application's thread: a start and an end
// event around the real call in a slot of the thread's track for the context, the
// record filled but for its GPU times, the slot published. Nothing waits for the GPU
// but a track's first operation (it anchors the track's GPU times) and a thread whose
// track is full (it completes a batch of its oldest slots itself; nothing is dropped).
class ConcurrentOperation {
 public:
  // Claims a slot of the calling thread's track in the timer's context. Inline, its
  // rare paths out of line: made at every operation.
  explicit ConcurrentOperation(const OperationTimer& timer) : timer_(timer) {
    ThreadContext& tc = timer.context();
    EventTrack* track = tc.track;
    if (!track || track->context_gone.load(std::memory_order_relaxed)) track = find_track(tc);
    if (!track) return;
    const std::size_t h = track->head.load(std::memory_order_relaxed);
    while (!track->slot_free(h)) make_room(*track);
    EventSlot& slot = track->slots[h % EventTrack::kSlots];
    if (!slot.start && !give_events(tc, *track, h)) return;
    slot.record = blank<records::Record>();
    slot.waited_wall_ns = 0;
    track_ = track;
    slot_ = &slot;
    index_ = h;
  }

  // False when no slot could be had (no events): time the operation serialized.
  bool claimed() const { return slot_ != nullptr; }
  // The steps of record_operation (shim/process/recorded_operation.hpp), once claimed.
  // The slot's record, to be described before the call.
  [[gnu::always_inline]] records::Record& record() { return slot_->record; }
  // The start event just before the real call.
  template <typename Call>
  [[gnu::always_inline]] CUresult around(Call& call) {
    started_ = driver_calls()->event_record(slot_->start, timer_.stream()) == CUDA_SUCCESS;
    return call();
  }
  // After the real call succeeded: the end event, the CPU side of the record, publish.
  void complete();

 private:
  // The view's track, found in the thread's tracks (made when it has none) and kept in
  // the view. Null when none can be had.
  static EventTrack* find_track(ThreadContext& tc);
  // Slot `h` has no events: a thread with few operations in flight lends it those of a
  // slot it no longer uses (lend_events), others create a pair. False (said once) when
  // they cannot be made.
  static bool give_events(const ThreadContext& tc, EventTrack& track, std::size_t h);
  // complete()'s rare paths, out of its frame. Not timed: the record is written now, as
  // serialized mode writes such records.
  [[gnu::noinline]] void submit_untimed(std::uint64_t cpu_end_ns);
  // The track's GPU times need an anchor: this operation's end, waited for.
  [[gnu::noinline]] void anchor();

  const OperationTimer& timer_;
  EventTrack* track_ = nullptr;
  EventSlot* slot_ = nullptr;
  std::size_t index_ = 0;
  bool started_ = false;
};

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

// Serialized with an event pair (OperationTimer): the record goes to the
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
