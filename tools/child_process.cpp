#include "tools/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "tools/launch_error.hpp"

namespace computeprof::tools {
namespace {

// While the application runs, the launcher takes SIGCHLD, SIGINT and SIGTERM
// synchronously (sigwaitinfo) instead of in handlers: no signal can arrive between a
// check and a wait, and none is forwarded to a pid that was already reaped and reused.
class BlockedSignals {
 public:
  BlockedSignals() {
    sigemptyset(&signals_);
    for (int signal_number : {SIGCHLD, SIGINT, SIGTERM}) sigaddset(&signals_, signal_number);
    ::sigprocmask(SIG_BLOCK, &signals_, &previous_mask_);
    // An ignored SIGCHLD (inherited through exec) would reap the child unseen.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    ::sigaction(SIGCHLD, &default_action, &previous_sigchld_);
  }
  ~BlockedSignals() {
    // A SIGINT or SIGTERM that came after the application exited would, once unblocked,
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

// Waits for the child to exit, passing SIGINT and SIGTERM on; returns its exit code.
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
      if (reaped == child) return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
      continue;
    }
    // A signal from the terminal (Ctrl-C) went to the whole foreground process group,
    // the application included: passing it on would deliver it twice. One sent to the
    // launcher alone (kill, a batch system) is the application's to handle.
    if (info.si_code != SI_KERNEL) ::kill(child, signal_number);
  }
}

}  // namespace

ChildOutcome run_child(const std::vector<std::string>& command, const std::vector<std::string>& environment) {
  std::vector<char*> argv = exec_array(command);
  std::vector<char*> envp = exec_array(environment);

  // Close-on-exec: a successful exec closes the child's end, a failed one reports errno.
  int exec_error_pipe[2];
  if (::pipe2(exec_error_pipe, O_CLOEXEC) != 0) {
    throw LaunchError(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }

  const BlockedSignals blocked;
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    ::close(exec_error_pipe[0]);
    ::close(exec_error_pipe[1]);
    throw LaunchError(fmt::format("cannot start the application: {}", std::strerror(error)));
  }
  if (child == 0) {
    ::close(exec_error_pipe[0]);
    blocked.restore_in_child();
    ::execvpe(argv[0], argv.data(), envp.data());
    const int error = errno;
    [[maybe_unused]] const ssize_t written = ::write(exec_error_pipe[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(exec_error_pipe[1]);
  const int exec_error = read_exec_error(exec_error_pipe[0]);
  ::close(exec_error_pipe[0]);

  const int exit_code = wait_forwarding_signals(child, blocked.signals());
  return ChildOutcome{exec_error, exit_code};
}

}  // namespace computeprof::tools
