#include "shim/timing/event_resolver.hpp"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "config/report.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/internal_worker.hpp"
#include "shim/process/lifecycle.hpp"
#include "shim/intercept/capture_mode.hpp"
#include "shim/timing/elapsed_time.hpp"

namespace computeprof::shim {

// Read at every operation: constant-initialised, so that the reads need not see to
// the registry's creation.
std::atomic<std::uint64_t> detail::g_fork_generation{0};

// Lock order: registry_mutex, then a track's resolve_mutex, then the resolver's wake-up.
struct detail::TrackRegistry {
  std::mutex registry_mutex;
  std::vector<EventTrack*> tracks;
};

namespace {

using detail::g_resolver;
using detail::TrackRegistry;

// The resolver's: made at the first use, then one load per use.
TrackRegistry& resolver() { return g_resolver.shared_or_make(); }

constexpr auto kPollInterval = std::chrono::milliseconds(1);
// A sleeping resolver also wakes this often, should a wake-up have been missed.
constexpr auto kIdleInterval = std::chrono::milliseconds(100);

// Slots are completed in batches of at most this many, their records handed to the
// pipeline together. A thread whose ring is full completes one batch of its oldest:
// the track's lock and the capture mode exchange are paid once per batch, not once
// per operation, and the GPU still has the rest of the ring queued while it waits.
constexpr std::size_t kBatch = EventTrack::kSlots / 4;

// GPU times: gputime is the slot's own pair. The end's absolute time is chained from
// the previous slot's: end(k) = end(k-1) + elapsed(end event k-1, end event k), which
// may be negative across streams. The chain starts at an operation the owner waited
// for (its end is the wall time at wake, as in serialized mode); when the chain is
// broken (a failed event call) the slot's end is the wall time its completion was
// seen, and the owner waits for its next operation to anchor the chain again.
// Completes slot `index`, the one after the last completed: its record's GPU times,
// and the track's anchor. Returns false when it is not complete yet. The pair's
// elapsed time is also the test of completion (CUDA_ERROR_NOT_READY until both events
// completed): no query of its own. Caller holds the track's resolve_mutex and, to
// wait, a RelaxedCaptureMode. Inlined into its loop, which completes many slots in a
// row.
[[gnu::always_inline]] inline bool complete_slot(EventTrack& t, std::size_t index, bool wait) {
  EventSlot& slot = t.slots[index % EventTrack::kSlots];
  const DriverCalls& d = *driver_calls();
  float ms = 0.0f;
  CUresult done = d.event_elapsed(&ms, slot.start, slot.end);
  if (done == CUDA_ERROR_NOT_READY) {
    if (!wait) return false;
    done = d.event_synchronize(slot.end);
    if (done == CUDA_SUCCESS) done = d.event_elapsed(&ms, slot.start, slot.end);
  }

  const bool timed = done == CUDA_SUCCESS;
  std::uint64_t gpu_end_ns = 0;
  bool chained = false;
  if (timed && slot.waited_wall_ns != 0) {
    gpu_end_ns = slot.waited_wall_ns;
    chained = true;
  } else if (timed && t.anchored) {
    float gap_ms = 0.0f;
    const EventSlot& previous = t.slots[(index - 1) % EventTrack::kSlots];
    if (d.event_elapsed(&gap_ms, previous.end, slot.end) == CUDA_SUCCESS) {
      gpu_end_ns = t.anchor_end_ns + static_cast<std::uint64_t>(ms_to_ns(gap_ms));
      chained = true;
    }
  }
  if (!timed) config::warn_once("timing events failed; gputime of such records is 0");
  if (!chained) {
    // When the completion was seen: the clock is read only here, not per operation.
    gpu_end_ns = wall_ns();
    t.needs_anchor.store(true, std::memory_order_release);
  }
  t.anchored = chained;
  t.anchor_end_ns = gpu_end_ns;

  records::Record& r = slot.record;
  r.gputime_ns = timed ? elapsed_ns(ms) : 0;
  r.gpu_end_ns = gpu_end_ns;
  r.gpu_start_ns = gpu_end_ns - r.gputime_ns;
  return true;
}

// Completes up to kBatch of the track's oldest slots, in order, stopping at the first
// not complete yet (`wait`: waiting for each instead), and hands their records to the
// pipeline. Returns how many. Caller holds the track's resolve_mutex and, to wait, a
// RelaxedCaptureMode.
std::size_t resolve_oldest(EventTrack& t, bool wait) {
  const std::size_t tail = t.tail.load(std::memory_order_relaxed);
  const std::size_t slots = std::min(t.head.load(std::memory_order_acquire) - tail, kBatch);
  if (slots == 0) return 0;
  // Waiting, the batch's last first: every slot of the batch is waited for anyway, and
  // the slots before it on its stream then need no wait of their own.
  if (wait) driver_calls()->event_synchronize(t.slots[(tail + slots - 1) % EventTrack::kSlots].end);
  std::array<Submission, kBatch> batch;
  std::size_t n = 0;
  for (; n < slots && complete_slot(t, tail + n, wait); ++n) {
    const records::Record& r = t.slots[(tail + n) % EventTrack::kSlots].record;
    batch[n] = {t.profiled, t.profiled->origin.monotonic_at(r.gpu_end_ns), &r};
  }
  if (n == 0) return 0;
  submit_records({batch.data(), n});
  // Only now may the owner fill these slots again: their records were copied.
  t.tail.store(tail + n, std::memory_order_release);
  return n;
}

void resolve_everything_of(EventTrack& t) {
  std::lock_guard lock(t.resolve_mutex);
  const RelaxedCaptureMode relaxed(*driver_calls());
  while (resolve_oldest(t, true) != 0) {
  }
}

// One round over every track: completes what is done. Returns whether any track still
// has outstanding slots.
bool resolve_completed(TrackRegistry& r) {
  std::lock_guard lock(r.registry_mutex);
  bool pending = false;
  for (EventTrack* t : r.tracks) {
    // A track whose owner is resolving (its ring is full) is left to it this round.
    if (t->resolve_mutex.try_lock()) {
      while (resolve_oldest(*t, false) == kBatch) {
      }
      t->resolve_mutex.unlock();
    }
    pending |= t->outstanding() != 0;
  }
  std::erase_if(r.tracks, [](EventTrack* t) {
    if (!t->retired || !t->context_gone.load(std::memory_order_relaxed) || t->outstanding() != 0) return false;
    delete t;
    return true;
  });
  return pending;
}

// The resolver thread: every millisecond while slots are outstanding; asleep otherwise,
// until a slot is published (notify_resolver).
void run_resolver() {
  auto& r = resolver();
  // Event queries are not part of any capture the program makes.
  const DriverCalls* d = driver_calls();
  if (d && d->exchange_capture_mode) {
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    d->exchange_capture_mode(&mode);
  }
  prepare_to_submit_records();
  for (;;) {
    if (resolve_completed(r)) {
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    g_resolver.sleep_unless([&] { return resolve_completed(r); }, kIdleInterval);
  }
}

void resolve_at_exit() {
  auto& r = resolver();
  std::lock_guard lock(r.registry_mutex);
  for (EventTrack* t : r.tracks) resolve_everything_of(*t);
}

void before_fork() {
  auto& r = resolver();
  r.registry_mutex.lock();
  for (EventTrack* t : r.tracks) resolve_everything_of(*t);
}

void after_fork_in_parent() { resolver().registry_mutex.unlock(); }

// Only resets state: the tracks belong to the parent's threads and contexts. The
// resolver starts again with the child's first track.
void after_fork_in_child() {
  auto& r = resolver();
  r.tracks.clear();
  detail::g_fork_generation.fetch_add(1, std::memory_order_relaxed);
  r.registry_mutex.unlock();
}

// Completes every outstanding operation of the tracks `pred` selects.
template <typename Pred>
void resolve_tracks_where(Pred&& pred) {
  auto& r = resolver();
  std::lock_guard lock(r.registry_mutex);
  for (EventTrack* t : r.tracks) {
    if (pred(*t)) resolve_everything_of(*t);
  }
}

}  // namespace

constinit InternalWorker<detail::TrackRegistry> detail::g_resolver{{
    .name = "cprof-resolver",
    .run = run_resolver,
    .cannot_start = "cannot start the event resolver thread; concurrent records are completed at flushes only",
    .stage = LifecycleStage::operations,
    .handlers = {resolve_at_exit, before_fork, after_fork_in_parent, after_fork_in_child},
}};

void set_up_event_resolver() { g_resolver.add_stage_handlers(); }

EventTrack* acquire_track(const ThreadContext& tc) {
  set_up_event_resolver();
  auto& r = resolver();
  EventTrack* track = nullptr;
  {
    std::lock_guard lock(r.registry_mutex);
    for (EventTrack* t : r.tracks) {
      if (t->retired && t->context_id == tc.context_id && !t->context_gone.load(std::memory_order_relaxed)) {
        t->retired = false;
        return t;
      }
    }
    track = new EventTrack;
    track->context = tc.context;
    track->context_id = tc.context_id;
    track->device = tc.profiled->device;
    track->profiled = tc.profiled;
    r.tracks.push_back(track);
  }
  g_resolver.start();
  return track;
}

void release_track(EventTrack* track) {
  std::lock_guard lock(resolver().registry_mutex);
  track->retired = true;
}

void make_room(EventTrack& track) {
  std::lock_guard lock(track.resolve_mutex);
  const RelaxedCaptureMode relaxed(*driver_calls());
  resolve_oldest(track, true);
}

void resolve_done_now(EventTrack& track) {
  if (!track.resolve_mutex.try_lock()) return;
  {
    // Event queries are not part of any capture the program makes.
    const RelaxedCaptureMode relaxed(*driver_calls());
    resolve_oldest(track, false);
  }
  track.resolve_mutex.unlock();
}

void resolve_all_events() {
  resolve_tracks_where([](const EventTrack&) { return true; });
}

void resolve_context_events(std::uint64_t context_id) {
  resolve_tracks_where([&](EventTrack& t) {
    if (t.context_id != context_id) return false;
    t.context_gone.store(true, std::memory_order_relaxed);
    return true;
  });
}

void resolve_device_events(int device) {
  resolve_tracks_where([&](const EventTrack& t) { return t.device == device; });
}

void forget_gone_contexts() {
  const DriverCalls* d = driver_calls();
  if (!d || !d->ctx_get_id) return;
  auto& r = resolver();
  std::lock_guard lock(r.registry_mutex);
  for (EventTrack* t : r.tracks) {
    unsigned long long id = 0;
    if (d->ctx_get_id(t->context, &id) != CUDA_SUCCESS || id != t->context_id) {
      t->context_gone.store(true, std::memory_order_relaxed);
    }
  }
}

}  // namespace computeprof::shim
