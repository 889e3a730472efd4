#include "shim/process/internal_worker.hpp"

#include <time.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <utility>

#include "config/report.hpp"

namespace computeprof::shim {

// The lifecycle calls plain functions: each worker that added its handlers has a slot,
// and the slot's functions call that worker's.
struct WorkerStages {
  // The shim has a handful of workers: more is a programming error.
  static constexpr std::size_t kSlots = 8;
  static constinit inline std::array<std::atomic<WorkerThread*>, kSlots> workers{};
  static constinit inline std::atomic<std::size_t> used{0};

  template <std::size_t Slot>
  static WorkerThread& worker() {
    return *workers[Slot].load(std::memory_order_acquire);
  }
  struct Fork {
    void (*before)();
    void (*in_parent)();
    void (*in_child)();
  };
  template <std::size_t... Slot>
  static constexpr std::array<Fork, kSlots> fork_handlers(std::index_sequence<Slot...>) {
    return {{{[] { worker<Slot>().before_fork(); }, [] { worker<Slot>().after_fork_in_parent(); },
              [] { worker<Slot>().after_fork_in_child(); }}...}};
  }

  static void add(WorkerThread& w) {
    static constexpr std::array<Fork, kSlots> kFork = fork_handlers(std::make_index_sequence<kSlots>{});
    const std::size_t slot = used.fetch_add(1, std::memory_order_relaxed);
    if (slot >= kSlots) std::abort();
    workers[slot].store(&w, std::memory_order_release);
    LifecycleHandlers handlers = w.spec_.handlers;
    handlers.before_fork = kFork[slot].before;
    handlers.after_fork_in_parent = kFork[slot].in_parent;
    handlers.after_fork_in_child = kFork[slot].in_child;
    add_lifecycle_handlers(w.spec_.stage, handlers);
  }
};

void WorkerThread::add_stage_handlers() {
  if (stages_added_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(setup_mutex_);
  if (stages_added_.load(std::memory_order_relaxed)) return;
  WorkerStages::add(*this);
  stages_added_.store(true, std::memory_order_release);
}

void* WorkerThread::thread_main(void* worker) {
  static_cast<WorkerThread*>(worker)->spec_.run();
  return nullptr;
}

bool WorkerThread::start() {
  if (started()) return true;
  add_stage_handlers();
  if (started_.exchange(true, std::memory_order_acq_rel)) return true;
  if (start_internal_thread(spec_.name, thread_main, this)) return true;
  started_.store(false, std::memory_order_relaxed);
  config::warn_once(spec_.cannot_start);
  return false;
}

void WorkerThread::wake() {
  {
    std::lock_guard lock(wake_mutex_);
    wake_requested_ = true;
  }
  pthread_cond_signal(&wake_);
}

void WorkerThread::request_room() {
  {
    std::lock_guard lock(wake_mutex_);
    wake_requested_ = true;
    room_requested_ = true;
  }
  pthread_cond_signal(&wake_);
}

void WorkerThread::wake_idle() {
  if (idle_.exchange(false, std::memory_order_relaxed)) wake();
}

bool WorkerThread::wait_on(pthread_cond_t& condition, std::chrono::steady_clock::time_point due) {
  const auto since_epoch = std::chrono::duration_cast<std::chrono::nanoseconds>(due.time_since_epoch()).count();
  const timespec until{static_cast<time_t>(since_epoch / 1'000'000'000), static_cast<long>(since_epoch % 1'000'000'000)};
  // steady_clock is CLOCK_MONOTONIC.
  return pthread_cond_clockwait(&condition, wake_mutex_.native_handle(), CLOCK_MONOTONIC, &until) != ETIMEDOUT;
}

void WorkerThread::await_wake_locked(std::chrono::steady_clock::time_point due) {
  while (!wake_requested_ && wait_on(wake_, due)) {
  }
  wake_requested_ = false;
}

bool WorkerThread::wait_until(std::chrono::steady_clock::time_point due) {
  std::lock_guard lock(wake_mutex_);
  await_wake_locked(due);
  return std::exchange(room_requested_, false);
}

void WorkerThread::sleep(std::chrono::nanoseconds timeout) {
  const auto due = std::chrono::steady_clock::now() + timeout;
  std::lock_guard lock(wake_mutex_);
  await_wake_locked(due);
}

void WorkerThread::notify_drained() { pthread_cond_broadcast(&drained_); }

// The part's locks first, then the worker's: a part's handler may wake its worker.
void WorkerThread::before_fork() {
  if (spec_.handlers.before_fork) spec_.handlers.before_fork();
  wake_mutex_.lock();
}

void WorkerThread::after_fork_in_parent() {
  wake_mutex_.unlock();
  if (spec_.handlers.after_fork_in_parent) spec_.handlers.after_fork_in_parent();
}

// The thread is not in the child: it starts again at the next use. The conditions are
// made anew: the parent's waiters, not in the child either, would keep a signal waiting
// for them to leave.
void WorkerThread::after_fork_in_child() {
  started_.store(false, std::memory_order_relaxed);
  idle_.store(false, std::memory_order_relaxed);
  wake_requested_ = false;
  room_requested_ = false;
  wake_ = PTHREAD_COND_INITIALIZER;
  drained_ = PTHREAD_COND_INITIALIZER;
  wake_mutex_.unlock();
  if (spec_.handlers.after_fork_in_child) spec_.handlers.after_fork_in_child();
}

}  // namespace computeprof::shim
