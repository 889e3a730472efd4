#include "process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace e2e {
namespace {

bool is_profile_variable(std::string_view name) {
  for (std::string_view prefix : {"COMPUTE_PROFILE", "CUDA_PROFILE", "OPENCL_PROFILE", "COMPUTEPROF_"}) {
    if (name.starts_with(prefix)) return true;
  }
  return name == "LD_PRELOAD";
}

std::vector<std::string> build_environment(const RunOptions& o) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos || is_profile_variable(entry.substr(0, eq))) continue;
    env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  if (o.simulated_driver) {
    // The simulated driver first; the caller's path after it, where the libraries the shim
    // loads by name may be (libunwind where it is carried, not installed: docs/gpu.md).
    std::string path = o.old_driver ? SIMDRIVER_OLD_DIR : SIMDRIVER_DIR;
    if (const auto caller = env.find("LD_LIBRARY_PATH"); caller != env.end() && !caller->second.empty()) {
      path += ':' + caller->second;
    }
    env["LD_LIBRARY_PATH"] = path;
    // As on a GPU where CUPTI can trace: the simulated CUPTI works over the simulated
    // driver (the toolkit's refuses it). A test names another CUPTI in `env`.
    env["COMPUTEPROF_CUPTI_LIBRARY"] = SIMCUPTI_PATH;
  }
  std::vector<std::string> preload = o.preload_before;
  if (o.preload_shim) preload.push_back(SHIM_PATH);
  preload.insert(preload.end(), o.preload_after.begin(), o.preload_after.end());
  if (!preload.empty()) {
    // Instrumented libraries need the sanitizer runtime loaded first.
    std::string list = SANITIZER_PRELOAD;
    for (const std::string& library : preload) {
      if (!list.empty()) list += ':';
      list += library;
    }
    env["LD_PRELOAD"] = list;
  }
  if (!std::string_view(SANITIZER_PRELOAD).empty()) {
    // Faults are the program's and the shim's to handle (the abrupt-end tests fault on
    // purpose): the sanitizer reports its own findings, not a SIGSEGV it was not asked about.
    std::string& options = env["ASAN_OPTIONS"];
    options += std::string(options.empty() ? "" : ":") + "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0";
    // What ThreadSanitizer cannot see synchronised (tsan.supp says why); ignored by ASan.
    std::string& tsan = env["TSAN_OPTIONS"];
    tsan += std::string(tsan.empty() ? "" : ":") + "suppressions=" + TSAN_SUPPRESSIONS_PATH;
  }
  for (const auto& [name, value] : o.env) {
    if (value) env[name] = *value;
    else env.erase(name);
  }
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::string read_fd(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  return out;
}

}  // namespace

RunResult run(const RunOptions& o) {
  const std::string dir = o.directory.empty() ? make_scratch_directory() : o.directory;
  // Output goes to files: a pipe could fill while the child is still running.
  const std::string out_path = dir + "/.stdout", err_path = dir + "/.stderr";
  const std::vector<std::string> env = build_environment(o);
  std::vector<char*> envp, argv;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  for (const auto& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || chdir(dir.c_str()) != 0) _exit(125);
    dup2(out, 1);
    dup2(err, 2);
    alarm(static_cast<unsigned>(o.timeout_seconds));
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  bool reaped = false;
  if (o.stop_signal != 0) {
    // Stopped from outside, as a user's Ctrl-C or a job scheduler's SIGTERM would.
    struct stat st {};
    while (!(reaped = waitpid(pid, &status, WNOHANG) == pid)) {
      if (::stat(out_path.c_str(), &st) == 0 && static_cast<std::size_t>(st.st_size) >= o.stop_after_output_bytes) {
        ::kill(pid, o.stop_signal);
        break;
      }
      usleep(1000);
    }
  }
  while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return r;
}

std::string make_scratch_directory() {
  const std::string base = std::string(SCRATCH_DIR);
  ::mkdir(base.c_str(), 0755);
  std::string tmpl = base + "/run-XXXXXX";
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

std::string read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string s = read_fd(fd);
  ::close(fd);
  return s;
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> list_directory(const std::string& path) {
  std::vector<std::string> names;
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace e2e
