#include "tools/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "config/report.hpp"
#include "tools/launch_error.hpp"

namespace computeprof::tools {
namespace {

// The signals the launcher passes on to the application: those a user, a terminal or a
// batch system sends to stop, interrupt or poke a program.
constexpr int kForwardedSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};

// What the application gets when the launcher dies first (killed with SIGKILL, which it
// cannot pass on). SIGTERM, not SIGKILL: the application ends as if a batch system had
// stopped it, so that its own handlers clean up and the shim writes out every record
// (it flushes at SIGTERM); SIGKILL would lose the writer's last 20 ms. A program that
// handles SIGTERM by going on is as free to do so as it is without the launcher.
constexpr int kParentDeathSignal = SIGTERM;

// While the application runs, the launcher takes SIGCHLD and the forwarded signals
// synchronously (sigwaitinfo) instead of in handlers: no signal can arrive between a
// check and a wait, and none is forwarded to a pid that was already reaped and reused.
class BlockedSignals {
 public:
  BlockedSignals() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGCHLD);
    for (int signal_number : kForwardedSignals) sigaddset(&signals_, signal_number);
    ::sigprocmask(SIG_BLOCK, &signals_, &previous_mask_);
    // An ignored SIGCHLD (inherited through exec) would reap the child unseen.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    ::sigaction(SIGCHLD, &default_action, &previous_sigchld_);
  }
  ~BlockedSignals() {
    // A forwarded signal that came after the application exited would, once unblocked,
    // end the launcher before it reports the logs: it is dropped, as the launcher is
    // about to exit with the application's status anyway.
    const timespec no_wait{};
    while (::sigtimedwait(&signals_, nullptr, &no_wait) > 0) {
    }
    ::sigaction(SIGCHLD, &previous_sigchld_, nullptr);
    ::sigprocmask(SIG_SETMASK, &previous_mask_, nullptr);
  }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

  const sigset_t& signals() const { return signals_; }

  // In the child before exec: the application starts with the launcher's original
  // signal mask and SIGCHLD disposition.
  void restore_in_child() const {
    ::sigaction(SIGCHLD, &previous_sigchld_, nullptr);
    ::sigprocmask(SIG_SETMASK, &previous_mask_, nullptr);
  }

 private:
  sigset_t signals_;
  sigset_t previous_mask_;
  struct sigaction previous_sigchld_;
};

// NULL-terminated pointer arrays for exec, built before fork so that the child calls
// nothing but async-signal-safe functions.
std::vector<char*> exec_array(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// Reads the errno the child sends when exec fails; 0 once exec closed the pipe.
int read_exec_error(int fd) {
  int error = 0;
  ssize_t n;
  do {
    n = ::read(fd, &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof error) ? error : 0;
}

[[noreturn]] void throw_wait_failure() {
  throw LaunchError(fmt::format("waiting for the application failed: {}", std::strerror(errno)));
}

// Waits for the child to exit, passing the forwarded signals on; returns its wait status.
int wait_forwarding_signals(pid_t child, const sigset_t& signals) {
  while (true) {
    siginfo_t info{};
    const int signal_number = ::sigwaitinfo(&signals, &info);
    if (signal_number < 0) {
      if (errno == EINTR) continue;
      throw_wait_failure();
    }
    if (signal_number == SIGCHLD) {
      int status = 0;
      const pid_t reaped = ::waitpid(child, &status, WNOHANG);
      if (reaped < 0) throw_wait_failure();
      // 0: the child only stopped or continued.
      if (reaped == child) return status;
      continue;
    }
    // A signal from the terminal (Ctrl-C, Ctrl-\, a hangup) went to the whole foreground
    // process group, the application included: passing it on would deliver it twice. One
    // sent to the launcher alone (kill, a batch system) is the application's to handle.
    if (info.si_code != SI_KERNEL) ::kill(child, signal_number);
  }
}

// In the child: the application is sent kParentDeathSignal when the launcher dies (when
// the thread that forked ends, strictly: the launcher's only thread), and the setting
// survives exec. The launcher may have died already, before prctl: then the child was
// reparented, and it ends as the signal would have ended it.
void end_with_launcher(pid_t launcher) {
  ::prctl(PR_SET_PDEATHSIG, kParentDeathSignal);
  if (::getppid() != launcher) ::_exit(128 + kParentDeathSignal);
}

ChildOutcome outcome_of(int exec_error, int status) {
  if (WIFSIGNALED(status)) return ChildOutcome{exec_error, 128 + WTERMSIG(status), WTERMSIG(status)};
  return ChildOutcome{exec_error, WEXITSTATUS(status), 0};
}

}  // namespace

ChildOutcome run_child(const std::vector<std::string>& command, const std::vector<std::string>& environment,
                       const std::function<void(pid_t)>& started) {
  std::vector<char*> argv = exec_array(command);
  std::vector<char*> envp = exec_array(environment);

  // Close-on-exec: a successful exec closes the child's end, a failed one reports errno.
  int exec_error_pipe[2];
  if (::pipe2(exec_error_pipe, O_CLOEXEC) != 0) {
    throw LaunchError(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }

  const BlockedSignals blocked;
  const pid_t launcher = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    ::close(exec_error_pipe[0]);
    ::close(exec_error_pipe[1]);
    throw LaunchError(fmt::format("cannot start the application: {}", std::strerror(error)));
  }
  if (child == 0) {
    ::close(exec_error_pipe[0]);
    end_with_launcher(launcher);
    blocked.restore_in_child();
    ::execvpe(argv[0], argv.data(), envp.data());
    const int error = errno;
    [[maybe_unused]] const ssize_t written = ::write(exec_error_pipe[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(exec_error_pipe[1]);
  if (started) started(child);
  const int exec_error = read_exec_error(exec_error_pipe[0]);
  ::close(exec_error_pipe[0]);

  return outcome_of(exec_error, wait_forwarding_signals(child, blocked.signals()));
}

std::vector<std::string> current_environment() {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) entries.emplace_back(*entry);
  return entries;
}

int report_exec_failure(const std::string& program, int exec_error) {
  config::warn(fmt::format("cannot run '{}': {}", program, std::strerror(exec_error)));
  const bool permission = exec_error == EACCES || exec_error == EPERM;
  return permission ? 126 : 127;
}

}  // namespace computeprof::tools
