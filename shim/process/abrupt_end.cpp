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
// Of a program's handler, the flags that shape how it runs, kept on the shim's handler
// that calls it: interrupted calls restart or not, the signal is blocked meanwhile or
// not, the disposition goes back to the default on delivery or not.
constexpr int kProgramHandlerFlags = SA_RESTART | SA_NODEFER | SA_RESETHAND;
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

bool is_default(const struct sigaction& action) {
  return !(action.sa_flags & SA_SIGINFO) && action.sa_handler == SIG_DFL;
}

bool is_fault(int signal) { return signal == SIGSEGV || signal == SIGBUS || signal == SIGFPE || signal == SIGILL; }

// After the program's handler returned: whether the process ends as soon as this
// handler returns too, skipping its exit handlers. It does when the program's handler
// set the default disposition back (or SA_RESETHAND did) and either raised the signal
// again, which waits, blocked, until this handler returns, or returns to an instruction
// that faulted, which faults again. (A signal sent again with kill to the whole process
// may reach another thread at once: that end is not seen here.)
bool ends_after_program_handler(int signal, const siginfo_t* info) {
  struct sigaction now {};
  if (sigaction(signal, nullptr, &now) != 0 || !is_default(now)) return false;
  sigset_t pending;
  if (sigpending(&pending) == 0 && sigismember(&pending, signal) == 1) return true;
  // si_code > 0: sent by the kernel for this instruction, not by kill or raise.
  return is_fault(signal) && info != nullptr && info->si_code > 0;
}

// Calls the program's handler of `signal`, if it has one (not the default disposition).
bool call_program_handler(const struct sigaction& previous, int signal, siginfo_t* info, void* context) {
  if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
    previous.sa_sigaction(signal, info, context);
    return true;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
    return true;
  }
  return false;
}

void on_signal(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  if (call_program_handler(g_previous[signal], signal, info, context)) {
    // The program's own handler decides what happens. A process that goes on is
    // flushed later; one that exits (exit, _exit, abort) is flushed then; one that ends
    // by this signal again once this handler returns is flushed now.
    if (ends_after_program_handler(signal, info)) abrupt_end();
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
    // The program's handler runs as it asked: its mask and flags. With the default
    // disposition they are empty, and the process ends in this handler anyway.
    struct sigaction ours {};
    ours.sa_sigaction = on_signal;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK | (current.sa_flags & kProgramHandlerFlags);
    ours.sa_mask = current.sa_mask;
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
