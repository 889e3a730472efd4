#include "shim/timing/operation_timing.hpp"

#include <array>
#include <atomic>

#include "config/profile_config.hpp"
#include "config/report.hpp"
#include "shim/intercept/capture_mode.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/timing/elapsed_time.hpp"
#include "shim/timing/event_lending.hpp"
#include "shim/timing/event_resolver.hpp"

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

namespace {

// The calling thread's tracks, one per context it used lately (as its ThreadContexts).
struct ThreadTracks {
  static constexpr std::size_t kTracks = 8;
  std::array<EventTrack*, kTracks> tracks{};
  std::size_t next_victim = 0;
  std::uint64_t fork_generation = 0;
};
thread_local ThreadTracks t_tracks;

// Releases the thread's tracks, dropped from its views, when it exits. Apart from
// t_tracks, so that the emptied cache stays readable: a late operation of this thread
// (an exit handler) starts afresh.
struct ThreadTracksOwner {
  bool armed = false;
  ~ThreadTracksOwner() {
    for (EventTrack*& t : t_tracks.tracks) {
      if (t) {
        forget_thread_track(t);
        release_track(t);
      }
      t = nullptr;
    }
  }
};
thread_local ThreadTracksOwner t_tracks_owner;

// A context this thread has no track for lately, or its first operation since a fork.
EventTrack* new_thread_track(const ThreadContext& tc) {
  ThreadTracks& cache = t_tracks;
  const std::uint64_t generation = resolver_fork_generation();
  if (cache.fork_generation != generation) {
    // A forked child: these were the parent's.
    cache.tracks.fill(nullptr);
    cache.fork_generation = generation;
  }
  for (EventTrack* t : cache.tracks) {
    if (t && t->context_id == tc.context_id && !t->context_gone.load(std::memory_order_relaxed)) return t;
  }
  // Prefer an empty entry or one whose context has gone; otherwise round-robin.
  EventTrack** entry = nullptr;
  for (EventTrack*& t : cache.tracks) {
    if (!t || t->context_gone.load(std::memory_order_relaxed)) {
      entry = &t;
      break;
    }
  }
  if (!entry) entry = &cache.tracks[cache.next_victim++ % ThreadTracks::kTracks];
  if (*entry) {
    forget_thread_track(*entry);
    release_track(*entry);
  }
  *entry = acquire_track(tc);
  t_tracks_owner.armed = true;
  return *entry;
}

}  // namespace

EventTrack* ConcurrentOperation::find_track(ThreadContext& tc) {
  tc.track = new_thread_track(tc);
  return tc.track;
}

bool ConcurrentOperation::give_events(const ThreadContext& tc, EventTrack& track, std::size_t h) {
  if (lend_events(track, h)) return true;
  // The resolver thread polls: what completed since may not be resolved yet.
  resolve_done_now(track);
  if (take_parked_events(track, h)) return true;
  EventSlot& slot = track.slots[h % EventTrack::kSlots];
  if (create_event_pair(tc.context, slot.start, slot.end)) return true;
  config::warn_once("cannot create timing events; such operations are timed serialized");
  return false;
}

void ConcurrentOperation::complete() {
  const std::uint64_t cpu_end_ns = monotonic_ns();
  records::Record& r = slot_->record;
  const ContextOrigin& origin = track_->profiled->origin;
  const std::uint64_t cpu_start_ns = timer_.cpu_start_ns();
  r.cputime_ns = cpu_end_ns - cpu_start_ns;
  r.timestamp_ns = cpu_start_ns >= origin.monotonic_ns ? cpu_start_ns - origin.monotonic_ns : 0;
  timer_.describe_stream(r);

  if (!started_ || driver_calls()->event_record(slot_->end, timer_.stream()) != CUDA_SUCCESS) {
    submit_untimed(cpu_end_ns);
    return;
  }
  if (track_->needs_anchor.load(std::memory_order_relaxed)) anchor();
  track_->head.store(index_ + 1, std::memory_order_release);
  notify_resolver();
}

void ConcurrentOperation::submit_untimed(std::uint64_t cpu_end_ns) {
  config::warn_once("timing events failed; gputime of such records is 0");
  records::Record& r = slot_->record;
  const ContextOrigin& origin = track_->profiled->origin;
  r.gpu_end_ns = r.gpu_start_ns = origin.wall_ns + (cpu_end_ns - origin.monotonic_ns);
  submit_record(track_->profiled, cpu_end_ns, r);
}

void ConcurrentOperation::anchor() {
  if (!track_->needs_anchor.exchange(false, std::memory_order_acq_rel)) return;
  const DriverCalls& d = *driver_calls();
  const RelaxedCaptureMode relaxed(d);
  if (d.event_synchronize(slot_->end) == CUDA_SUCCESS) slot_->waited_wall_ns = wall_ns();
}

}  // namespace computeprof::shim
