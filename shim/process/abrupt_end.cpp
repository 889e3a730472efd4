#include "shim/process/abrupt_end.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

#include "shim/process/lifecycle.hpp"

namespace computeprof::shim {
namespace {

constexpr int kWatchedSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGINT, SIGTERM, SIGHUP};
constexpr int kMaxSignal = 65;
// How long the ending thread waits for the exit thread, in 1 ms steps.
constexpr int kWaitSteps = 1000;

// Plain data written once before the handlers are installed: read in signal handlers.
int g_wake_fd = -1;
pid_t g_watch_pid = 0;
std::atomic<std::uint64_t> g_done{0};
struct sigaction g_previous[kMaxSignal];
pthread_once_t g_once = PTHREAD_ONCE_INIT;

// The raw system call: glibc's getpid() is not cached, but neither is it documented
// async-signal-safe in every version.
pid_t current_pid() { return static_cast<pid_t>(syscall(SYS_getpid)); }

void* exit_thread_main(void*) {
  for (;;) {
    std::uint64_t requests = 0;
    if (::read(g_wake_fd, &requests, sizeof requests) != sizeof requests) {
      if (errno == EINTR) continue;
      return nullptr;
    }
    run_abrupt_end_handlers();
    g_done.fetch_add(1, std::memory_order_release);
  }
}

void on_signal(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const struct sigaction& previous = g_previous[signal];
  if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
    // The program's own handler decides what happens; a process that goes on, or
    // exits, is flushed then.
    previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
  } else {
    abrupt_end();
    // The default disposition again, then the same signal: the process ends as it
    // would have without the shim (a fault repeats when the handler returns).
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal, &fallback, nullptr);
    raise(signal);
  }
  errno = saved_errno;
}

void install_handlers() {
  for (int signal : kWatchedSignals) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
    g_previous[signal] = current;
    struct sigaction ours {};
    ours.sa_sigaction = on_signal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&ours.sa_mask);
    sigaction(signal, &ours, nullptr);
  }
}

void on_quick_exit() { abrupt_end(); }

void start_watching() {
  g_wake_fd = eventfd(0, EFD_CLOEXEC);
  if (g_wake_fd < 0) return;
  g_watch_pid = current_pid();
  if (!start_internal_thread("cprof-exit", exit_thread_main, nullptr)) return;
  install_handlers();
  at_quick_exit(on_quick_exit);
}

}  // namespace

void watch_abrupt_end() { pthread_once(&g_once, start_watching); }

void abrupt_end() {
  if (g_wake_fd < 0 || g_watch_pid != current_pid()) return;
  const std::uint64_t before = g_done.load(std::memory_order_acquire);
  const std::uint64_t one = 1;
  if (::write(g_wake_fd, &one, sizeof one) != sizeof one) return;
  const timespec step{0, 1'000'000};
  for (int i = 0; i < kWaitSteps && g_done.load(std::memory_order_acquire) == before; ++i) nanosleep(&step, nullptr);
}

}  // namespace computeprof::shim

// _exit and _Exit: what is recorded is written first. The end is glibc's own: the
// exit_group system call (no libc function to find, which a vforked child must not do).
extern "C" __attribute__((visibility("default"))) void _exit(int status) {
  computeprof::shim::abrupt_end();
  for (;;) syscall(SYS_exit_group, status);
}

extern "C" __attribute__((visibility("default"))) void _Exit(int status) {
  computeprof::shim::abrupt_end();
  for (;;) syscall(SYS_exit_group, status);
}
