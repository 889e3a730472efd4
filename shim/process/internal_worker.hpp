#pragma once
// A thread of the shim's own that works for the application's threads (the record
// writer, the CUPTI activity collector, the event resolver): what it works on, made at
// the first use and never freed; its start, named and with every signal blocked, once;
// its wake-ups; its part's exit and fork handlers, in the part's lifecycle stage.
//
// The application's threads hand it work through rings of their own (thread_rings.hpp):
// a producer publishes into its ring and asks the worker for room when the ring has
// just become half full; a worker that sleeps while it has nothing to do is woken by
// the work published meanwhile (wake_if_idle). Forked children have no worker thread:
// started() is false there until the next start().
//
// Constant-initialised and never destroyed: usable from the first call into the shim
// to the last exit handler, whatever the order of static constructors and destructors.
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>

#include "shim/process/lifecycle.hpp"

namespace computeprof::shim {

// What a worker is.
struct WorkerSpec {
  const char* name;  // its thread's, 15 characters at most
  // The thread's body; the thread ends when it returns.
  void (*run)();
  // Said once when the thread cannot be started (the part then works at its flushes).
  const char* cannot_start;
  // Where its part's handlers run (lifecycle.hpp); the worker adds its own fork work.
  LifecycleStage stage;
  LifecycleHandlers handlers;
};

// The worker's thread and its wake-ups, whatever it works on (internal_worker.cpp).
class WorkerThread {
 public:
  constexpr explicit WorkerThread(const WorkerSpec& spec) : spec_(spec) {}
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  // Whether its thread was started in this process (it may have returned since).
  bool started() const { return started_.load(std::memory_order_acquire); }
  // Adds the part's handlers to its stage (once per process), then starts the thread
  // unless it was. False, said once, when it cannot be started: a later call tries
  // again.
  bool start();
  // Adds the part's handlers to its stage, once per process: for a part that has
  // work at exit and fork before its thread is needed. start() does it too.
  void add_stage_handlers();

  // Producer, after publishing work for a worker that sleeps when it has none: wakes it
  // if it sleeps. One fence and one load (the worker announces its sleep, fences, then
  // looks for work again: sleep_unless).
  [[gnu::always_inline]] void wake_if_idle() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (idle_.load(std::memory_order_relaxed)) [[unlikely]] wake_idle();
  }
  // Producer: wakes the worker (its wait returns).
  void wake();
  // Producer: wakes the worker, which makes room in the rings (its wait says so). The
  // way a ring's producer asks is published_to (below).
  void request_room();
  // Producer whose `ring` is full: asks for room and waits until the ring has room or
  // `timeout` passed (a notification may be missed: the caller looks again).
  template <typename Ring>
  void wait_for_room(const Ring& ring, std::chrono::nanoseconds timeout) {
    request_room();
    const auto due = std::chrono::steady_clock::now() + timeout;
    std::lock_guard lock(wake_mutex_);
    while (ring.full() && wait_on(drained_, due)) {
    }
  }

  // Worker: waits until woken or `due`. True when room was asked for since the last of
  // these waits returned (wake-ups are not counted: several may come as one).
  bool wait_until(std::chrono::steady_clock::time_point due);
  bool wait_for(std::chrono::nanoseconds timeout) { return wait_until(std::chrono::steady_clock::now() + timeout); }
  // Worker with nothing to do: announces that it sleeps, then sleeps until woken or
  // `timeout`, unless `has_work()`, asked after the announcement, finds work. Work a
  // producer publishes before its wake_if_idle() is found by one or the other. A
  // request for room stays for the next wait_until.
  template <typename HasWork>
  void sleep_unless(HasWork&& has_work, std::chrono::nanoseconds timeout) {
    idle_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (!has_work()) sleep(timeout);
    idle_.store(false, std::memory_order_relaxed);
  }
  // Worker (or whoever drains in its place): items were taken; producers waiting for
  // room look again.
  void notify_drained();

 private:
  friend struct WorkerStages;
  template <typename>
  friend class InternalWorker;

  void wake_idle();
  void sleep(std::chrono::nanoseconds timeout);
  // Caller holds wake_mutex_: until a wake-up (taken) or `due`.
  void await_wake_locked(std::chrono::steady_clock::time_point due);
  // Caller holds wake_mutex_. False at `due`.
  bool wait_on(pthread_cond_t& condition, std::chrono::steady_clock::time_point due);
  static void* thread_main(void* worker);
  void before_fork();
  void after_fork_in_parent();
  void after_fork_in_child();

  const WorkerSpec spec_;
  std::atomic<bool> started_{false};
  std::atomic<bool> idle_{false};
  std::atomic<bool> stages_added_{false};
  std::mutex setup_mutex_;  // the stage handlers being added, what it works on being made
  // Held across fork by the forking thread: the child finds it free.
  std::mutex wake_mutex_;
  bool wake_requested_ = false;  // under wake_mutex_
  bool room_requested_ = false;  // under wake_mutex_
  // Waited on with wake_mutex_, on the monotonic clock. Not std::condition_variable,
  // whose constructor is not constexpr.
  pthread_cond_t wake_ = PTHREAD_COND_INITIALIZER;
  pthread_cond_t drained_ = PTHREAD_COND_INITIALIZER;
};

// A worker and what it works on, `Shared`: the part the application's threads see (in
// the part's header; its own file may make a type derived from it).
template <typename Shared>
class InternalWorker : public WorkerThread {
 public:
  using WorkerThread::WorkerThread;

  // Null until made. One load.
  Shared* shared() const { return shared_.load(std::memory_order_acquire); }
  // Made at the first use as a `Made` (Shared or a type derived from it, always the
  // same), never freed: exit handlers use it after static destructors could have run.
  template <typename Made = Shared>
  Made& shared_or_make() {
    if (Shared* s = shared()) return static_cast<Made&>(*s);
    return make<Made>();
  }

 private:
  // Out of line: the first use only.
  template <typename Made>
  [[gnu::noinline]] Made& make() {
    std::lock_guard lock(setup_mutex_);
    if (Shared* s = shared_.load(std::memory_order_relaxed)) return static_cast<Made&>(*s);
    Made* made = new Made;
    shared_.store(made, std::memory_order_release);
    return *made;
  }

  std::atomic<Shared*> shared_{nullptr};
};

// The producers' side, the same for every worker. `Worker` is the worker (a variable at
// namespace scope) as a template argument: asking it for room is then a call with no
// argument, and the common path keeps no register for it across a first use of the
// thread's ring.

// Out of line: once per half ring.
template <auto& Worker>
[[gnu::noinline]] void ask_for_room() {
  Worker.request_room();
}

// The item is published into `ring`: the worker is asked for room when the ring has
// just become half full. Inline: once per item.
template <auto& Worker, typename Ring>
[[gnu::always_inline]] inline void published_to(const Ring& ring) {
  if (ring.size() == Ring::kCapacity / 2) [[unlikely]] ask_for_room<Worker>();
}

// `fill` pushes one item into the calling thread's ring of `rings` when the worker runs
// and the ring has room; false otherwise, nothing pushed (the caller's slow way). The
// thread's ring is looked up only when the worker runs.
template <auto& Worker, typename Rings, typename Fill>
[[gnu::always_inline]] inline bool try_submit_to(Rings& rings, Fill&& fill) {
  if (!Worker.started()) return false;
  auto& ring = rings.this_thread_ring();
  if (!ring.try_push(fill)) return false;
  published_to<Worker>(ring);
  return true;
}

// As try_submit_to, `n` items at once into `ring`, all or none: `fill(i, Item&)` writes
// the i-th.
template <auto& Worker, typename Ring, typename Fill>
bool try_submit_all_to(Ring& ring, std::size_t n, Fill&& fill) {
  const std::size_t before = ring.size();
  if (!Worker.started() || !ring.try_push_all(n, fill)) return false;
  if (before < Ring::kCapacity / 2 && before + n >= Ring::kCapacity / 2) ask_for_room<Worker>();
  return true;
}

}  // namespace computeprof::shim
