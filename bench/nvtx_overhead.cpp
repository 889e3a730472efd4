// What an NVTX push and pop cost the calling thread with profiling on (docs/format.md,
// "NVTX ranges"): a program built with the header-only NVTX3, whose loader finds the
// shim through NVTX_INJECTION64_PATH (the shim sets it at load), against the same
// program without the shim, where NVTX is a no-op.
//
//   nvtx_overhead [--pairs N] [--rounds R] [--instructions] [--shim PATH]
//
// Time: the calling thread's CPU time per push+pop pair (CLOCK_THREAD_CPUTIME_ID), the
// median of R rounds (default 5) of N pairs (default 1,000,000), once the name was met.
// With --instructions: callgrind's count on the calling thread per pair (the difference
// between N and a quarter of N pairs, N default 200,000), the C library's clocks charged
// to their callers, by object: the shim, NVTX's own code in the program, the rest.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <nvtx3/nvToolsExt.h>

#include "bench/callgrind_costs.hpp"

extern char** environ;

namespace {

std::uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

// The pairs measured; not inlined, so that its loop is the same in every configuration.
__attribute__((noinline)) void push_pop_pairs(long pairs) {
  for (long i = 0; i < pairs; ++i) {
    nvtxRangePushA("step");
    nvtxRangePop();
  }
}

int run_child(long pairs) {
  push_pop_pairs(16);  // NVTX's initialisation, the thread's first name and path
  const std::uint64_t start = thread_cpu_ns();
  push_pop_pairs(pairs);
  const std::uint64_t end = thread_cpu_ns();
  std::printf("%.3f\n", static_cast<double>(end - start) / static_cast<double>(pairs));
  return 0;
}

struct Paths {
  std::string self, shim = SHIM_PATH, dir;
};

std::vector<std::string> child_environment(bool profiled, const Paths& paths) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (name == "LD_PRELOAD" || name == "NVTX_INJECTION64_PATH" || name.starts_with("COMPUTE_PROFILE") ||
        name.starts_with("CUDA_PROFILE") || name.starts_with("OPENCL_PROFILE")) {
      continue;
    }
    env.push_back(entry);
  }
  if (profiled) {
    env.push_back("LD_PRELOAD=" + paths.shim);
    env.push_back("COMPUTE_PROFILE=1");
    env.push_back("COMPUTE_PROFILE_LOG=" + paths.dir + "/bench.log");
  }
  return env;
}

std::string run(const std::vector<std::string>& args, std::vector<std::string> env, const Paths& paths) {
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  const std::string errors = paths.dir + "/stderr";
  posix_spawn_file_actions_addopen(&actions, 2, errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) {
    std::fprintf(stderr, "nvtx_overhead: cannot run %s\n", argv[0]);
    std::exit(1);
  }
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  char buf[256];
  for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(got));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "nvtx_overhead: %s failed; see %s\n", argv[0], errors.c_str());
    std::exit(1);
  }
  return out;
}

double median_ns(bool profiled, long pairs, int rounds, const Paths& paths) {
  std::vector<double> runs;
  for (int r = 0; r < rounds; ++r) {
    runs.push_back(std::atof(run({paths.self, "--child", std::to_string(pairs)}, child_environment(profiled, paths),
                                 paths).c_str()));
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

// The calling thread's instructions by object: the shim, the program (NVTX's code
// inlined in it), the rest.
std::map<std::string, double> instructions(bool profiled, long pairs, const Paths& paths) {
  const std::string out = paths.dir + "/callgrind." + (profiled ? "shim." : "plain.") + std::to_string(pairs);
  std::vector<std::string> args = {"valgrind", "--tool=callgrind", "--separate-threads=yes",
                                   "--callgrind-out-file=" + out, "--fn-skip=clock_gettime*", "--fn-skip=__tls_get_addr",
                                   paths.self, "--child", std::to_string(pairs)};
  run(args, child_environment(profiled, paths), paths);
  std::map<std::string, std::uint64_t> costs;
  if (!computeprof::bench::read_object_costs(out + "-01", costs)) {
    std::fprintf(stderr, "nvtx_overhead: cannot read %s-01\n", out.c_str());
    std::exit(1);
  }
  std::map<std::string, double> parts;
  for (const auto& [object, ir] : costs) {
    const std::string part = object.find("libcomputeprof") != std::string::npos ? "shim"
                             : object == paths.self                             ? "program"
                                                                                : "other";
    parts[part] += static_cast<double>(ir);
  }
  return parts;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child") == 0) return run_child(std::atol(argv[2]));
  Paths paths;
  // callgrind names the program by its full path.
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  paths.self = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string(argv[0]);
  long pairs = 0;
  int rounds = 5;
  bool count_instructions = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--pairs" && i + 1 < argc) pairs = std::atol(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (a == "--shim" && i + 1 < argc) paths.shim = argv[++i];
    else if (a == "--instructions") count_instructions = true;
    else {
      std::fprintf(stderr, "usage: %s [--pairs N] [--rounds R] [--instructions] [--shim PATH]\n", argv[0]);
      return 2;
    }
  }
  char dir[] = "/tmp/nvtx_overhead.XXXXXX";
  if (!mkdtemp(dir)) return 1;
  paths.dir = dir;
  if (count_instructions) {
    if (pairs == 0) pairs = 200'000;
    const long fewer = pairs / 4;
    std::printf("callgrind, instructions of the calling thread per push+pop pair (%ld minus %ld pairs)\n", pairs, fewer);
    std::printf("  %-10s %8s %8s %8s %8s\n", "", "total", "shim", "program", "other");
    for (bool profiled : {false, true}) {
      auto many = instructions(profiled, pairs, paths);
      auto few = instructions(profiled, fewer, paths);
      const auto each = [&](const char* part) { return (many[part] - few[part]) / static_cast<double>(pairs - fewer); };
      std::printf("  %-10s %8.1f %8.1f %8.1f %8.1f\n", profiled ? "profiled" : "no shim",
                  each("shim") + each("program") + each("other"), each("shim"), each("program"), each("other"));
    }
    return 0;
  }
  if (pairs == 0) pairs = 1'000'000;
  std::printf("calling thread's CPU time per push+pop pair, the median of %d rounds of %ld pairs\n", rounds, pairs);
  std::printf("  no shim (NVTX a no-op): %8.1f ns\n", median_ns(false, pairs, rounds, paths));
  std::printf("  profiled:               %8.1f ns\n", median_ns(true, pairs, rounds, paths));
  return 0;
}
