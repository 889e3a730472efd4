#include "shim/timing/operation_timer.hpp"

#include "config/report.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/process/clock.hpp"
#include "shim/intercept/capture_mode.hpp"
#include "shim/timing/elapsed_time.hpp"

namespace computeprof::shim {

void OperationTimer::restart_cpu_clock() { cpu_start_ns_ = monotonic_ns(); }

void OperationTimer::finish(records::Record& record) {
  const DriverCalls& d = *driver_calls();
  float ms = 0.0f;
  bool timed = started_ && d.event_record(context_->end, stream_) == CUDA_SUCCESS;
  if (timed) {
    const RelaxedCaptureMode relaxed(d);
    timed = d.event_synchronize(context_->end) == CUDA_SUCCESS &&
            d.event_elapsed(&ms, context_->start, context_->end) == CUDA_SUCCESS;
  }
  completed_ns_ = monotonic_ns();
  if (!timed) config::warn_once("timing events failed; gputime of such records is 0");

  const ContextOrigin& origin = context_->profiled->origin;
  record.gputime_ns = timed ? elapsed_ns(ms) : 0;
  record.cputime_ns = completed_ns_ - cpu_start_ns_;
  record.timestamp_ns = cpu_start_ns_ >= origin.monotonic_ns ? cpu_start_ns_ - origin.monotonic_ns : 0;
  // The end event completed just before the wait returned.
  record.gpu_end_ns = origin.wall_ns + (completed_ns_ - origin.monotonic_ns);
  record.gpu_start_ns = record.gpu_end_ns - record.gputime_ns;
  describe_stream(record);
}

void OperationTimer::finish_waited(records::Record& record) {
  const DriverCalls& d = *driver_calls();
  {
    const RelaxedCaptureMode relaxed(d);
    // A failed wait is the program's error to see at its next call, as without the
    // shim; the record stands, and CUPTI's times (or none) follow as ever.
    d.stream_synchronize(stream_);
  }
  finish_cpu_side(record);
}

void OperationTimer::record_stream_id(records::Record& record) const {
  const DriverCalls& d = *driver_calls();
  unsigned long long stream_id = 0;
  if (d.stream_get_id && d.stream_get_id(stream_, &stream_id) == CUDA_SUCCESS) {
    record.stream_id = stream_id;
  }
}

}  // namespace computeprof::shim
