#pragma once
// Per-thread queues from the application's threads to one consumer: each thread writes
// into a ring of its own (no lock shared by all threads, no allocation after its
// first use); whoever holds the consumer's side reads every ring. Used for records on
// their way to the writer and for operations awaiting CUPTI's activity records.
//
// One ThreadRings per Item type and capacity (the thread's ring is a thread-local of
// the type). A thread that exits leaves its ring to the consumer, which frees it once
// read; a forked child forgets the other threads' rings (their threads are not in it).
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace computeprof::shim {

template <typename Item, std::size_t Capacity>
class ThreadRings {
 public:
  // Single producer (its thread), single consumer (the holder of the consumer's side).
  struct Ring {
    static constexpr std::size_t kCapacity = Capacity;
    std::atomic<std::size_t> head{0};  // next to write, producer
    std::atomic<std::size_t> tail{0};  // next to read, consumer
    std::atomic<bool> owner_exited{false};
    std::uint64_t fork_generation = 0;
    std::array<Item, Capacity> slots;

    // `fill(Item&)` writes the item in place; false when the ring is full.
    template <typename Fill>
    bool try_push(Fill&& fill) {
      Item* place = next_place();
      if (!place) return false;
      fill(*place);
      publish();
      return true;
    }
    // Producer: the place the next item goes, to be filled in place and then published;
    // null when the ring is full. Nothing else may be pushed meanwhile.
    Item* next_place() {
      const std::size_t h = head.load(std::memory_order_relaxed);
      if (h - tail.load(std::memory_order_acquire) == Capacity) return nullptr;
      return &slots[h % Capacity];
    }
    // Producer: the item at next_place() is filled.
    void publish() { head.store(head.load(std::memory_order_relaxed) + 1, std::memory_order_release); }
    // `fill(i, Item&)` writes the i-th of `n` items in place, all published at once;
    // false, nothing written, when fewer than `n` places are free.
    template <typename Fill>
    bool try_push_all(std::size_t n, Fill&& fill) {
      const std::size_t h = head.load(std::memory_order_relaxed);
      if (Capacity - (h - tail.load(std::memory_order_acquire)) < n) return false;
      for (std::size_t i = 0; i < n; ++i) fill(i, slots[(h + i) % Capacity]);
      head.store(h + n, std::memory_order_release);
      return true;
    }
    std::size_t size() const { return head.load(std::memory_order_acquire) - tail.load(std::memory_order_acquire); }
    bool full() const { return size() == Capacity; }

    // Consumer: the items from `tail` up to the head read now stay valid until
    // release(); `visit(Item&)` may move from them.
    template <typename Visit>
    std::size_t read(Visit&& visit) {
      const std::size_t h = head.load(std::memory_order_acquire);
      read_up_to(h, visit);
      return h;
    }
    // Consumer: the items from `tail` up to `h`, a head read() returned. In at most two
    // runs of adjacent slots: a pointer step per item, not a slot's index and address.
    template <typename Visit>
    void read_up_to(std::size_t h, Visit&& visit) {
      for (std::size_t t = tail.load(std::memory_order_relaxed); t != h;) {
        const std::size_t first = t % Capacity;
        const std::size_t run = std::min(h - t, Capacity - first);
        for (Item *item = &slots[first], *end = item + run; item != end; ++item) visit(*item);
        t += run;
      }
    }
    void release(std::size_t up_to) { tail.store(up_to, std::memory_order_release); }
  };

  // The calling thread's ring, made and registered at its first use (and again in a
  // forked child).
  Ring& this_thread_ring() {
    const std::uint64_t generation = fork_generation_.load(std::memory_order_relaxed);
    Ring* ring = t_ring;
    if (ring && ring->fork_generation == generation) return *ring;
    return new_thread_ring(generation);
  }

  // Consumer: the rings registered now. Copied under the registry's lock only when a
  // ring came or went since this list was last given them: the consumer asks every round.
  void snapshot(std::vector<Ring*>& rings) {
    const std::uint64_t version = version_.load(std::memory_order_acquire);
    if (&rings == given_to_ && version == given_version_) return;
    std::lock_guard lock(mutex_);
    rings.assign(rings_.begin(), rings_.end());
    given_to_ = &rings;
    given_version_ = version_.load(std::memory_order_relaxed);
  }

  // Consumer: frees the rings whose threads exited once nothing is left in them. Looks
  // only when a thread exited since every exited thread's ring was freed.
  void free_exited() {
    const std::uint64_t exits = exited_threads_.load(std::memory_order_acquire);
    if (exits == exits_freed_) return;
    std::lock_guard lock(mutex_);
    bool kept = false;
    std::erase_if(rings_, [&](Ring* ring) {
      if (!ring->owner_exited.load(std::memory_order_acquire)) return false;
      if (ring->size() != 0) {
        kept = true;
        return false;
      }
      delete ring;
      return true;
    });
    changed();
    if (!kept) exits_freed_ = exits;
  }

  // Around fork: the registry is held so that no ring is registered half-way.
  void lock_for_fork() { mutex_.lock(); }
  void unlock_in_parent() { mutex_.unlock(); }
  // Only the forking thread exists in the child: the other rings are forgotten (left
  // allocated: their items belong to the parent), and every thread of the child gets a
  // new ring at its next push.
  void reset_in_child() {
    rings_.clear();
    changed();
    fork_generation_.fetch_add(1, std::memory_order_relaxed);
    mutex_.unlock();
  }

 private:
  // Out of line: a thread's first push (and a forked child's), not every push's frame.
  [[gnu::noinline]] Ring& new_thread_ring(std::uint64_t generation) {
    Ring* ring = new Ring;
    ring->fork_generation = generation;
    {
      std::lock_guard lock(mutex_);
      rings_.push_back(ring);
      changed();
    }
    t_ring = ring;
    t_owner.armed = true;
    return *ring;
  }

  // Kept apart from the object whose destructor lets go of it: a store into an object
  // being destroyed is dead to the compiler, and the pointer must read null afterwards
  // (an item pushed later on this thread, from an exit handler, gets a new ring while
  // the consumer frees the old one).
  static inline thread_local Ring* t_ring = nullptr;
  struct Owner {
    bool armed = false;
    ~Owner() {
      if (t_ring) {
        t_ring->owner_exited.store(true, std::memory_order_release);
        exited_threads_.fetch_add(1, std::memory_order_acq_rel);
      }
      t_ring = nullptr;
    }
  };
  static inline thread_local Owner t_owner;
  // Threads whose ring was left to the consumer (one ThreadRings per type: see above).
  static inline std::atomic<std::uint64_t> exited_threads_{0};

  // Under mutex_: rings_ changed.
  void changed() { version_.fetch_add(1, std::memory_order_release); }

  std::mutex mutex_;  // guards rings_
  std::vector<Ring*> rings_;
  std::atomic<std::uint64_t> version_{0};  // of rings_
  // The consumer's: the list snapshot() last filled, and the version it holds.
  const std::vector<Ring*>* given_to_ = nullptr;
  std::uint64_t given_version_ = 0;
  std::uint64_t exits_freed_ = 0;  // exited_threads_ when no exited thread's ring was left
  std::atomic<std::uint64_t> fork_generation_{0};
};

}  // namespace computeprof::shim
