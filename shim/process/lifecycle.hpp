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
struct LifecycleHandlers {
  void (*at_exit)() = nullptr;
  void (*before_fork)() = nullptr;
  void (*after_fork_in_parent)() = nullptr;
  void (*after_fork_in_child)() = nullptr;
};

// Adds a part's handlers (once per part). With an exit handler, it also registers the
// exit sequence with atexit again: atexit runs last-registered first, so the sequence
// then runs before the exit handlers of every library loaded so far (the CUDA driver,
// CUPTI, the OpenCL runtime). Call it after loading what the handlers use. Every
// registration runs the whole sequence; each handler must therefore be harmless when
// there is nothing left to do.
void add_lifecycle_handlers(LifecycleStage stage, const LifecycleHandlers& handlers);

// Starts a detached thread of the shim's own, named `name` (15 characters at most) and
// with every signal blocked, so the application's signals never land on it. False when
// it cannot be started.
bool start_internal_thread(const char* name, void* (*main)(void*), void* argument);

}  // namespace computeprof::shim
