#include "shim/process/lifecycle.hpp"

#include <pthread.h>
#include <signal.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "config/report.hpp"
#include "shim/process/abrupt_end.hpp"

namespace computeprof::shim {
namespace {

// A handful of parts per stage; fixed storage, read without a lock at exit and fork.
constexpr std::size_t kHandlersPerStage = 4;

struct Stage {
  std::array<LifecycleHandlers, kHandlersPerStage> handlers{};
  std::atomic<std::size_t> count{0};
};

// Constant-initialised: no constructor runs, so the table is usable at any time.
constinit std::array<Stage, kLifecycleStageCount> g_stages{};
constinit std::mutex g_add_mutex;
constinit pthread_once_t g_fork_once = PTHREAD_ONCE_INIT;

template <typename Member>
void run_forward(Member member) {
  for (Stage& stage : g_stages) {
    const std::size_t n = stage.count.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i) {
      if (auto fn = stage.handlers[i].*member) fn();
    }
  }
}

template <typename Member>
void run_backward(Member member) {
  for (auto stage = g_stages.rbegin(); stage != g_stages.rend(); ++stage) {
    const std::size_t n = stage->count.load(std::memory_order_acquire);
    for (std::size_t i = n; i-- > 0;) {
      if (auto fn = stage->handlers[i].*member) fn();
    }
  }
}

void run_exit_sequence() { run_forward(&LifecycleHandlers::at_exit); }
void before_fork() { run_forward(&LifecycleHandlers::before_fork); }
void after_fork_in_parent() { run_backward(&LifecycleHandlers::after_fork_in_parent); }
void after_fork_in_child() {
  run_backward(&LifecycleHandlers::after_fork_in_child);
  // The child is a process of its own: what was said once is said again there.
  config::reset_warned_once();
}

void register_fork_handlers() { pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); }

}  // namespace

void add_lifecycle_handlers(LifecycleStage stage, const LifecycleHandlers& handlers) {
  pthread_once(&g_fork_once, register_fork_handlers);
  {
    std::lock_guard lock(g_add_mutex);
    Stage& s = g_stages[static_cast<std::size_t>(stage)];
    const std::size_t n = s.count.load(std::memory_order_relaxed);
    // The parts of the shim are fixed: more than kHandlersPerStage is a programming error.
    if (n == kHandlersPerStage) std::abort();
    s.handlers[n] = handlers;
    s.count.store(n + 1, std::memory_order_release);
  }
  if (handlers.at_exit) std::atexit(run_exit_sequence);
  if (handlers.at_abrupt_end) watch_abrupt_end();
}

void run_abrupt_end_handlers() { run_forward(&LifecycleHandlers::at_abrupt_end); }

namespace {

struct ThreadStart {
  const char* name;
  void* (*main)(void*);
  void* argument;
};

// Named from inside, before anything else: the name is there for whoever looks first.
void* run_named(void* start) {
  const ThreadStart s = *static_cast<ThreadStart*>(start);
  delete static_cast<ThreadStart*>(start);
  pthread_setname_np(pthread_self(), s.name);
  return s.main(s.argument);
}

}  // namespace

bool start_internal_thread(const char* name, void* (*main)(void*), void* argument) {
  auto* start = new ThreadStart{name, main, argument};
  sigset_t all, previous;
  sigfillset(&all);
  // The new thread inherits the mask in force at its creation.
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_t thread;
  const int rc = pthread_create(&thread, nullptr, run_named, start);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (rc != 0) {
    delete start;
    return false;
  }
  pthread_detach(thread);
  return true;
}

}  // namespace computeprof::shim
