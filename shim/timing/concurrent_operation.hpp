#pragma once
// One operation under conckerneltrace, on the application's thread: a start and an end
// event around the real call in a slot of the thread's track for the context, the
// record filled but for its GPU times, the slot published. Nothing waits for the GPU
// but a track's first operation (it anchors the track's GPU times) and a thread whose
// track is full (it completes a batch of its oldest slots itself; nothing is dropped).
#include <cstddef>
#include <cstdint>

#include "logfmt/record.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/timing/event_track.hpp"
#include "shim/timing/operation_timer.hpp"

namespace computeprof::shim {

// The config asks for conckerneltrace and the driver has what it needs. Asked per
// operation.
inline bool concurrent_tracing() {
  if (!process_profile().cuda.settings.config.has(config::Option::conckerneltrace)) return false;
  const DriverCalls* d = driver_calls();
  return d && d->event_query;
}

class ConcurrentOperation {
 public:
  // Claims a slot of the calling thread's track in the timer's context.
  explicit ConcurrentOperation(const OperationTimer& timer);

  // False when no slot could be had (no events): time the operation serialized.
  bool claimed() const { return slot_ != nullptr; }
  // To be described before the call.
  logfmt::Record& record() { return slot_->record; }

  // Just before the real call.
  void start() { started_ = driver_calls()->event_record(slot_->start, timer_.stream()) == CUDA_SUCCESS; }
  // After the real call succeeded: the end event, the CPU side of the record, publish.
  void finish();

 private:
  const OperationTimer& timer_;
  EventTrack* track_ = nullptr;
  EventSlot* slot_ = nullptr;
  std::size_t index_ = 0;
  bool started_ = false;
};

}  // namespace computeprof::shim
