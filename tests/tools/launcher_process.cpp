#include "launcher_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include "catch.hpp"
#include <fstream>
#include <sstream>
#include <thread>

namespace {

std::vector<char*> exec_array(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

LauncherProcess::LauncherProcess(const std::vector<std::string>& args, const std::vector<std::string>& environment) {
  std::vector<std::string> argv{COMPUTEPROF_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> argv_pointers = exec_array(argv);
  std::vector<char*> envp_pointers = exec_array(environment);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, (capture_ / "out").c_str(), O_WRONLY | O_CREAT, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, (capture_ / "err").c_str(), O_WRONLY | O_CREAT, 0600);
  const int error = posix_spawn(&pid_, argv[0].c_str(), &actions, nullptr, argv_pointers.data(), envp_pointers.data());
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(error == 0);
}

LauncherProcess::~LauncherProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

LauncherResult LauncherProcess::wait(std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      FAIL("computeprof did not exit within " << limit.count() << " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  LauncherResult result;
  result.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  result.out = read_file(capture_ / "out");
  result.err = read_file(capture_ / "err");
  return result;
}
