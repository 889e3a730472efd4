#include "shim/process/operation_ids.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "shim/process/lifecycle.hpp"

namespace computeprof::shim {
constinit thread_local std::uint32_t detail::t_thread_id = 0;
constinit thread_local std::uint64_t detail::t_operation_base = 0;
constinit thread_local std::uint64_t detail::t_operations = 0;

namespace {
std::atomic<std::uint64_t> g_threads{0};
pthread_once_t g_fork_once = PTHREAD_ONCE_INIT;

// The forked child's one thread is another thread than its parent's.
void forget_thread_in_child() { detail::t_thread_id = 0; }
void add_fork_handler() { add_lifecycle_handlers(LifecycleStage::contexts, {nullptr, nullptr, nullptr, forget_thread_in_child}); }
}  // namespace

std::uint64_t detail::first_operation_id() {
  t_operation_base = (g_threads.fetch_add(1, std::memory_order_relaxed) + 1) << 40;
  return next_operation_id();
}

std::uint32_t detail::find_thread_id() {
  pthread_once(&g_fork_once, add_fork_handler);
  t_thread_id = static_cast<std::uint32_t>(syscall(SYS_gettid));
  return t_thread_id;
}

}  // namespace computeprof::shim
