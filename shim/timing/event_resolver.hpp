#pragma once
// Completes conckerneltrace records timed by event pairs (where CUPTI's activity
// records cannot be had) off the application's threads. Every track is
// registered here (at its creation only); a resolver thread, started with the first
// track, looks at the oldest outstanding slots of each track every millisecond while
// work is pending and sleeps otherwise. A completed slot gets its GPU times
// from its event pair and from the previous slot's end event (see event_resolver.cpp)
// and goes to the record pipeline, ordered by its GPU end time.
// Flush points complete outstanding operations synchronously, waiting for the GPU.
#include <atomic>
#include <cstdint>

#include "shim/process/internal_worker.hpp"
#include "shim/timing/event_track.hpp"
#include "shim/timing/thread_context.hpp"

namespace computeprof::shim {

// Once per process, before the first track: the exit and fork handlers. Thread-safe.
void set_up_event_resolver();

// A track for the calling thread in `tc`'s context: a retired one of that context
// (with its events) when there is one, else a new one. Null when none can be made.
EventTrack* acquire_track(const ThreadContext& tc);
// The owner thread is done with `track` (it exits, or uses its cache entry for
// another context); its outstanding slots are still resolved.
void release_track(EventTrack* track);

namespace detail {
struct TrackRegistry;  // event_resolver.cpp
// The resolver thread, which sleeps while no track has outstanding slots, and the
// registry of tracks.
extern constinit InternalWorker<TrackRegistry> g_resolver;
// Bumped in a forked child: the threads' caches of tracks are the parent's.
extern std::atomic<std::uint64_t> g_fork_generation;
}  // namespace detail

// After a slot is published: wakes the resolver thread if it sleeps. Inline: one
// fence and one load per operation while it polls.
inline void notify_resolver() { detail::g_resolver.wake_if_idle(); }
// The owner's ring is full: completes its oldest slots now, waiting for the GPU (a
// batch of them, so that the next operations find room).
void make_room(EventTrack& track);
// The owner needs events for a slot: completes, without waiting, its oldest slots that
// are done, which the resolver thread may not have come by yet. Nothing when another
// thread is completing the track.
void resolve_done_now(EventTrack& track);

// Flush points: every outstanding operation is completed and handed to the pipeline.
void resolve_all_events();
// Before a context is destroyed (its events go with it).
void resolve_context_events(std::uint64_t context_id);
// Before a device's primary context is released or reset.
void resolve_device_events(int device);
// After a context was destroyed, or a primary context released or reset: tracks of
// contexts that no longer exist are dropped once empty.
void forget_gone_contexts();

// Bumped in a forked child: the threads' cached tracks belong to the parent.
inline std::uint64_t resolver_fork_generation() { return detail::g_fork_generation.load(std::memory_order_relaxed); }

}  // namespace computeprof::shim
