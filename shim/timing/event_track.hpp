#pragma once
// The operations one thread made in one context under conckerneltrace that still wait
// for their GPU times: a fixed ring of slots, each with a pair of timing events and its
// record. The owning thread fills a slot and publishes it (head); resolvers
// complete slots in order (tail) under the track's mutex: the resolver thread, or any
// thread at a flush point or when the ring is full (event_resolver.hpp).
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "records/record.hpp"
#include "shim/intercept/cuda_api.hpp"
#include "shim/process/context_registry.hpp"

namespace computeprof::shim {

struct EventSlot {
  // Created at the slot's use, or lent by a slot no longer used (operation_timing.cpp,
  // lend_events); kept with the context.
  CUevent start = nullptr;
  CUevent end = nullptr;
  // Wall time at which the owner saw `end` complete when it waited for it to anchor
  // the track's GPU times; 0 when it did not wait.
  std::uint64_t waited_wall_ns = 0;
  records::Record record;  // all but the GPU times, filled by the owner
};

struct EventTrack {
  // Bounds what a thread may have in flight before it waits for the oldest.
  static constexpr std::size_t kSlots = 128;

  CUcontext context = nullptr;
  std::uint64_t context_id = 0;
  int device = 0;
  const ProfiledContext* profiled = nullptr;

  std::atomic<std::size_t> head{0};  // slots published, written by the owner
  std::atomic<std::size_t> tail{0};  // slots resolved, written under resolve_mutex
  // The chain of GPU times has no anchor (a new track, or a failed event): the owner
  // waits for its next operation, whose wall time at completion anchors the chain.
  std::atomic<bool> needs_anchor{true};
  // The context was destroyed: the track is never used again (its events went with it).
  std::atomic<bool> context_gone{false};
  bool retired = false;  // no owner thread; under the registry's lock

  std::mutex resolve_mutex;
  // Under resolve_mutex: the GPU end time of the last resolved slot (tail - 1), whose
  // end event is kept untouched as the reference of the next slot's end.
  bool anchored = false;
  std::uint64_t anchor_end_ns = 0;

  std::array<EventSlot, kSlots> slots;

  std::size_t outstanding() const {
    return head.load(std::memory_order_acquire) - tail.load(std::memory_order_acquire);
  }
  // Whether the owner may fill slot `h`: slots tail .. h-1 and the reference slot
  // tail-1 must stay as they are.
  bool slot_free(std::size_t h) const { return h - tail.load(std::memory_order_acquire) < kSlots - 1; }
};

}  // namespace computeprof::shim
