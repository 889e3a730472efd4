#pragma once
// One operation under conckerneltrace, on the application's thread: a start and an end
// event around the real call in a slot of the thread's track for the context, the
// record filled but for its GPU times, the slot published. Nothing waits for the GPU
// but a track's first operation (it anchors the track's GPU times) and a thread whose
// track is full (it completes a batch of its oldest slots itself; nothing is dropped).
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "records/record.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/process/blank.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/timing/event_resolver.hpp"
#include "shim/timing/event_track.hpp"
#include "shim/timing/operation_timer.hpp"

namespace computeprof::shim {

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

}  // namespace computeprof::shim
