#pragma once
// Where a slot of a conckerneltrace track gets its events without creating a pair: from
// the slots before the reference (tail - 2 and older), which no resolver reads any
// more. Only the owning thread moves events, so these need no lock; the tail it reads
// only grows, which only adds slots that may give.
#include <cstddef>
#include <utility>

#include "shim/timing/event_track.hpp"

namespace computeprof::shim {

// A thread with at most this many operations in flight lends its slots' events on;
// one with more keeps a pair per slot (128), all of them in flight.
inline constexpr std::size_t kLendingDepth = EventTrack::kSlots / 8;

inline void move_events(EventSlot& from, EventSlot& to) {
  to.start = std::exchange(from.start, nullptr);
  to.end = std::exchange(from.end, nullptr);
}

// Moves to slot `h` the events of the slot before the reference (tail - 2), when the
// thread has few operations in flight and that slot has events. The lent slot gets
// events again at its next use.
inline bool lend_events(EventTrack& track, std::size_t h) {
  const std::size_t tail = track.tail.load(std::memory_order_acquire);
  if (tail < 2 || h - tail >= kLendingDepth) return false;
  EventSlot& unused = track.slots[(tail - 2) % EventTrack::kSlots];
  if (!unused.start) return false;
  move_events(unused, track.slots[h % EventTrack::kSlots]);
  return true;
}

// Moves to slot `h` the events left in any slot before the reference, the nearest
// first (tail - 2, at any depth): a slot the tail passed in a jump of more than one was
// never lent from. For where a pair would be created otherwise: then a pair is created only while every pair the thread has is in
// a slot from the reference on, so it keeps at most as many pairs as it has operations
// in flight, plus two (the reference's and slot h's).
inline bool take_parked_events(EventTrack& track, std::size_t h) {
  const std::size_t tail = track.tail.load(std::memory_order_acquire);
  if (tail < 2) return false;
  // Slot h - kSlots is slot h itself; the slots after it, up to tail - 2, may give.
  const std::size_t oldest = h >= EventTrack::kSlots ? h - EventTrack::kSlots + 1 : 0;
  for (std::size_t k = tail - 2; k + 1 > oldest; --k) {
    EventSlot& parked = track.slots[k % EventTrack::kSlots];
    if (parked.start) {
      move_events(parked, track.slots[h % EventTrack::kSlots]);
      return true;
    }
  }
  return false;
}

}  // namespace computeprof::shim
