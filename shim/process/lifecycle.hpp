#pragma once
// The one owner of the process's end and of fork. Every part of the shim that has work
// to do there adds its handlers to a stage; the stages run in one fixed order, whoever
// set up first (atexit and pthread_atfork alone would order them by who registered
// first). And the one way the shim starts a thread of its own.
#include <cstdint>

namespace computeprof::shim {

// At exit and before fork, in this order; after fork (parent and child), in reverse.
enum class LifecycleStage : std::uint8_t {
  operations,  // outstanding GPU operations complete (conckerneltrace events, OpenCL commands)
  activities,  // CUPTI's activity records are settled, then tracing is turned off
  counters,    // CUPTI counter sessions stop while their contexts still exist
  records,     // every record reaches its sinks, which are flushed
  contexts,    // the process's table of contexts
};
inline constexpr std::size_t kLifecycleStageCount = 5;

// Any of them may be null. after_fork_in_child only resets state: no driver calls, no
// waiting (the driver forks helpers of its own), no locks but those prepare took.
// at_abrupt_end: the process is about to end without its exit handlers (a fatal signal,
// SIGINT/SIGTERM/SIGHUP with no handler of the program's, _exit, quick_exit,
// abort): write out what is already recorded. It runs on the shim's exit thread, not in
// the signal handler, while the thread that ends the process waits for it (a bounded
// wait: a lock that thread holds can keep it from finishing); it may lock and format,
// must make no driver or CUPTI call and must not wait for the GPU (abrupt_end.hpp).
struct LifecycleHandlers {
  void (*at_exit)() = nullptr;
  void (*before_fork)() = nullptr;
  void (*after_fork_in_parent)() = nullptr;
  void (*after_fork_in_child)() = nullptr;
  void (*at_abrupt_end)() = nullptr;
};

// Adds a part's handlers (once per part). With an exit handler, it also registers the
// exit sequence with atexit again: atexit runs last-registered first, so the sequence
// then runs before the exit handlers of every library loaded so far (the CUDA driver,
// CUPTI, the OpenCL runtime). Call it after loading what the handlers use. Every
// registration runs the whole sequence; each handler must therefore be harmless when
// there is nothing left to do.
void add_lifecycle_handlers(LifecycleStage stage, const LifecycleHandlers& handlers);

// The stages' at_abrupt_end handlers, in order (on the exit thread: abrupt_end.cpp).
void run_abrupt_end_handlers();

// Starts a detached thread of the shim's own, named `name` (15 characters at most) and
// with every signal blocked, so the application's signals never land on it. False when
// it cannot be started.
bool start_internal_thread(const char* name, void* (*main)(void*), void* argument);

}  // namespace computeprof::shim
