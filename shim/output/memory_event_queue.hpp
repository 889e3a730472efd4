#pragma once
// Memory events on their way to the writer (docs/design.md, "Memory tracing"): per
// thread, like records, but handed on in the order the program made the calls (their
// sequence numbers), not by time: a free must come after its allocation whichever
// threads made them, and an address the driver hands out again after a free must come
// after that free. Not thread-safe on the consumer's side: the record pipeline calls it
// under its drain lock.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "records/memory_event.hpp"
#include "shim/process/thread_rings.hpp"

namespace computeprof::shim {

// A queued event; `cancelled`: a free the driver refused, only its number counts.
struct QueuedMemoryEvent {
  records::MemoryEvent event;
  bool cancelled = false;
};

class MemoryEventQueue {
 public:
  // 512 events of about 140 bytes: 70 KiB per thread that allocates, with memtrace
  // only. A ring of 64 filled while the writer woke up (tens of µs), and a loop of
  // allocations waited for it: 430-670 ns per event, 160-200 ns with 512
  // (bench/launch_overhead --allocations).
  using Rings = ThreadRings<QueuedMemoryEvent, 512>;

  // The number of the next event: an allocation's after its call returned, a free's
  // before its call is made (the driver may hand the address out again as soon as it
  // returns).
  std::uint64_t next_sequence() { return sequence_.fetch_add(1, std::memory_order_relaxed) + 1; }

  Rings::Ring& this_thread_ring() { return rings_.this_thread_ring(); }

  // Hands events to `write(const MemoryEvent&)` in sequence order, up to the first
  // number not queued yet (its thread is between numbering and queueing it); the rest
  // wait for the next drain. `everything`: the process ends, gaps are passed over.
  // Returns the number of events handed on.
  template <typename Write>
  std::size_t drain(Write&& write, bool everything);

  void lock_for_fork() { rings_.lock_for_fork(); }
  void unlock_in_parent() { rings_.unlock_in_parent(); }
  // The child starts afresh: what the parent's threads numbered is not the child's.
  void reset_in_child() {
    rings_.reset_in_child();
    next_expected_ = sequence_.load(std::memory_order_relaxed) + 1;
  }

 private:
  Rings rings_;
  std::atomic<std::uint64_t> sequence_{0};
  std::uint64_t next_expected_ = 1;
  // The consumer's scratch.
  std::vector<Rings::Ring*> draining_;
  std::vector<QueuedMemoryEvent*> batch_;
};

template <typename Write>
std::size_t MemoryEventQueue::drain(Write&& write, bool everything) {
  rings_.snapshot(draining_);
  batch_.clear();
  for (Rings::Ring* ring : draining_) ring->read([&](QueuedMemoryEvent& q) { batch_.push_back(&q); });
  std::sort(batch_.begin(), batch_.end(),
            [](const QueuedMemoryEvent* a, const QueuedMemoryEvent* b) { return a->event.sequence < b->event.sequence; });
  std::size_t written = 0;
  std::uint64_t taken_up_to = 0;  // sequence numbers below this are consumed
  for (QueuedMemoryEvent* q : batch_) {
    if (q->event.sequence != next_expected_ && !everything) break;
    next_expected_ = q->event.sequence + 1;
    taken_up_to = next_expected_;
    if (!q->cancelled) {
      write(q->event);
      ++written;
    }
  }
  // Each ring is in sequence order (one thread numbers its own events in turn): its
  // consumed events are a prefix.
  for (Rings::Ring* ring : draining_) {
    std::size_t tail = ring->tail.load(std::memory_order_relaxed);
    const std::size_t head = ring->head.load(std::memory_order_acquire);
    while (tail != head && ring->slots[tail % Rings::Ring::kCapacity].event.sequence < taken_up_to) ++tail;
    ring->release(tail);
  }
  rings_.free_exited();
  return written;
}

}  // namespace computeprof::shim
