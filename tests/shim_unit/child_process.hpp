#pragma once
// Fork tests of the shim's process parts: a body run in a child process, whose handlers
// say one letter each through a pipe, so that the order they ran in reaches the test.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "catch.hpp"

namespace computeprof::test {

inline int g_pipe = -1;
inline void say(char c) { [[maybe_unused]] auto n = ::write(g_pipe, &c, 1); }

inline std::string read_all(int fd) {
  std::string text;
  char buffer[64];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  return text;
}

// Runs `body` in a child process; returns what it said and its exit status.
template <typename Body>
std::pair<std::string, int> in_child(Body&& body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::fflush(nullptr);  // the child's exit must not print the parent's buffered output
  const pid_t pid = fork();
  if (pid == 0) {
    ::close(fds[0]);
    g_pipe = fds[1];
    body();
    std::exit(0);
  }
  ::close(fds[1]);
  std::string said = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {said, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

}  // namespace computeprof::test
