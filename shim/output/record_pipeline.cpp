#include "shim/output/record_pipeline.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "config/report.hpp"
#include "shim/output/record_outputs.hpp"
#include "shim/output/sink_factory.hpp"
#include "shim/process/lifecycle.hpp"

namespace computeprof::shim {
namespace {

struct QueuedRecord {
  const ProfiledContext* context;
  std::uint64_t completed_ns;
  logfmt::Record record;
};

// Single producer (its thread), single consumer (whoever holds the drain lock). 128
// records of 184 bytes: 23 KiB per thread that makes operations.
struct RecordRing {
  static constexpr std::size_t kCapacity = 128;
  std::atomic<std::size_t> head{0};  // next to write, producer
  std::atomic<std::size_t> tail{0};  // next to read, consumer
  std::atomic<bool> owner_exited{false};
  std::uint64_t fork_generation = 0;
  std::array<QueuedRecord, kCapacity> slots;

  bool try_push(const ProfiledContext* context, std::uint64_t completed_ns, const logfmt::Record& r) {
    const std::size_t h = head.load(std::memory_order_relaxed);
    if (h - tail.load(std::memory_order_acquire) == kCapacity) return false;
    slots[h % kCapacity] = QueuedRecord{context, completed_ns, r};
    head.store(h + 1, std::memory_order_release);
    return true;
  }
  std::size_t size() const { return head.load(std::memory_order_acquire) - tail.load(std::memory_order_acquire); }
  bool full() const { return size() == kCapacity; }
};

// A queued record's place, for ordering a batch without copying records.
struct Queued {
  std::uint64_t completed_ns;
  QueuedRecord* record;
};

struct Pipeline {
  std::mutex drain_mutex;  // held by whoever drains: the writer or a flush
  std::mutex rings_mutex;  // guards `rings`
  std::vector<RecordRing*> rings;
  // The drain holder's scratch.
  std::vector<RecordRing*> draining;
  std::vector<std::size_t> heads;
  std::vector<Queued> batch;
  RecordOutputs outputs{make_context_sinks, make_process_sinks};  // drain holder's only

  std::mutex wake_mutex;
  std::condition_variable wake;
  bool wake_requested = false;
  // A thread whose ring is full waits here for the writer to free it.
  std::condition_variable drained;

  std::atomic<std::uint64_t> fork_generation{0};
  std::atomic<bool> writer_started{false};
};

// Leaked on purpose: the exit flush runs after static destructors could have.
Pipeline& pipeline() {
  static Pipeline* p = new Pipeline;
  return *p;
}

void drain_locked(Pipeline& p) {
  {
    std::lock_guard lock(p.rings_mutex);
    p.draining.assign(p.rings.begin(), p.rings.end());
  }
  // The records stay in their rings' slots, which their producers do not reuse until
  // the tails move: only their places are gathered and ordered.
  p.batch.clear();
  p.heads.clear();
  for (RecordRing* ring : p.draining) {
    const std::size_t head = ring->head.load(std::memory_order_acquire);
    for (std::size_t t = ring->tail.load(std::memory_order_relaxed); t != head; ++t) {
      QueuedRecord& q = ring->slots[t % RecordRing::kCapacity];
      p.batch.push_back({q.completed_ns, &q});
    }
    p.heads.push_back(head);
  }
  // Each ring is in completion order already: a batch of one ring, or of rings that did
  // not overlap, needs no sort.
  auto earlier = [](const Queued& a, const Queued& b) { return a.completed_ns < b.completed_ns; };
  if (!std::is_sorted(p.batch.begin(), p.batch.end(), earlier)) std::stable_sort(p.batch.begin(), p.batch.end(), earlier);
  for (const Queued& q : p.batch) {
    p.outputs.write(*q.record->context, q.record->record);
    delete q.record->record.counters;  // the record's own (logfmt/record.hpp)
  }
  for (std::size_t i = 0; i < p.draining.size(); ++i) p.draining[i]->tail.store(p.heads[i], std::memory_order_release);
  // Written through at once: a process killed later keeps what was done.
  if (!p.batch.empty()) {
    p.outputs.flush();
    p.drained.notify_all();
  }

  std::lock_guard lock(p.rings_mutex);
  std::erase_if(p.rings, [](RecordRing* ring) {
    if (!ring->owner_exited.load(std::memory_order_acquire) || ring->size() != 0) return false;
    delete ring;
    return true;
  });
}

void* writer_main(void*) {
  auto& p = pipeline();
  for (;;) {
    {
      std::unique_lock lock(p.wake_mutex);
      p.wake.wait_for(lock, std::chrono::milliseconds(20), [&] { return p.wake_requested; });
      p.wake_requested = false;
    }
    std::lock_guard lock(p.drain_mutex);
    drain_locked(p);
  }
  return nullptr;
}

void wake_writer() {
  auto& p = pipeline();
  {
    std::lock_guard lock(p.wake_mutex);
    p.wake_requested = true;
  }
  p.wake.notify_one();
}

void flush_at_exit() {
  flush_records();
  auto& p = pipeline();
  std::lock_guard lock(p.drain_mutex);
  p.outputs.end_process();
}

void before_fork() {
  auto& p = pipeline();
  p.drain_mutex.lock();
  drain_locked(p);
  p.rings_mutex.lock();
}

void after_fork_in_parent() {
  auto& p = pipeline();
  p.rings_mutex.unlock();
  p.drain_mutex.unlock();
}

// Only resets state: no driver calls, no waiting (the driver forks helpers too).
void after_fork_in_child() {
  auto& p = pipeline();
  // The other threads' rings belong to threads the child does not have.
  p.rings.clear();
  p.fork_generation.fetch_add(1, std::memory_order_relaxed);
  p.writer_started.store(false, std::memory_order_relaxed);
  p.wake_requested = false;
  p.outputs.abandon();
  p.rings_mutex.unlock();
  p.drain_mutex.unlock();
}

void start_writer() {
  auto& p = pipeline();
  if (p.writer_started.exchange(true, std::memory_order_acq_rel)) return;
  if (!start_internal_thread("cprof-writer", writer_main, nullptr)) {
    p.writer_started.store(false, std::memory_order_relaxed);
    config::warn_once("cannot start the log writer thread; records are written at flushes only");
  }
}

pthread_once_t g_hooks_once = PTHREAD_ONCE_INIT;

// The process ends without its exit handlers: what the rings hold is written now.
void write_out_at_abrupt_end() { flush_at_exit(); }

// Added at the first record, which comes after the driver's initialisation, so that
// the exit flush runs before CUDA tears down.
void add_pipeline_lifecycle() {
  add_lifecycle_handlers(LifecycleStage::records, {flush_at_exit, before_fork, after_fork_in_parent,
                                                   after_fork_in_child, write_out_at_abrupt_end});
}

// The thread's ring. Kept apart from the object whose destructor lets go of it: a
// store into an object being destroyed is dead to the compiler, and the pointer must
// read null afterwards (a late record, from an exit handler on this thread, gets a new
// ring while the drain frees the old one).
thread_local RecordRing* t_ring = nullptr;
struct ThreadRingOwner {
  bool armed = false;
  ~ThreadRingOwner() {
    if (t_ring) t_ring->owner_exited.store(true, std::memory_order_release);
    t_ring = nullptr;
  }
};
thread_local ThreadRingOwner t_ring_owner;

RecordRing* this_thread_ring() {
  auto& p = pipeline();
  const std::uint64_t generation = p.fork_generation.load(std::memory_order_relaxed);
  RecordRing* ring = t_ring;
  if (ring && ring->fork_generation == generation) return ring;
  ring = new RecordRing;
  ring->fork_generation = generation;
  {
    std::lock_guard lock(p.rings_mutex);
    p.rings.push_back(ring);
  }
  t_ring = ring;
  t_ring_owner.armed = true;
  return ring;
}

}  // namespace

void submit_record(const ProfiledContext* context, std::uint64_t completed_ns, const logfmt::Record& record) {
  pthread_once(&g_hooks_once, add_pipeline_lifecycle);
  auto& p = pipeline();
  if (!p.writer_started.load(std::memory_order_acquire)) start_writer();
  RecordRing* ring = this_thread_ring();
  // A full ring waits for the writer, a millisecond at a time (a wake-up may be
  // missed): records are never dropped.
  while (!ring->try_push(context, completed_ns, record)) {
    if (p.writer_started.load(std::memory_order_acquire)) {
      wake_writer();
      std::unique_lock lock(p.wake_mutex);
      p.drained.wait_for(lock, std::chrono::milliseconds(1), [&] { return !ring->full(); });
    } else {
      std::lock_guard lock(p.drain_mutex);
      drain_locked(p);
    }
  }
  if (ring->size() == RecordRing::kCapacity / 2) wake_writer();
}

void flush_records() {
  auto& p = pipeline();
  std::lock_guard lock(p.drain_mutex);
  drain_locked(p);
  p.outputs.flush();
}

void retire_context(const ProfiledContext* context) {
  auto& p = pipeline();
  std::lock_guard lock(p.drain_mutex);
  drain_locked(p);
  p.outputs.end_context(*context);
}

}  // namespace computeprof::shim
