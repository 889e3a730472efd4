#pragma once
// Serialized timing of one driver operation, as the old profiler did it: an event
// before and after the real call on the operation's own stream, then a wait for the
// second. gputime is the events' elapsed time; cputime everything from entry to the
// end of the wait.
#include <cstdint>

#include "records/record.hpp"
#include "shim/intercept/cuda_api.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/process/clock.hpp"
#include "shim/timing/thread_context.hpp"

namespace computeprof::shim {

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

}  // namespace computeprof::shim
