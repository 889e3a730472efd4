// Cost per kernel launch of the shim, measured as ratios within one run (this machine
// is shared and noisy): the same child program launching the empty kernel N times,
//   plain      no shim;
//   dormant    shim preloaded, no variable set (what a system-wide install costs);
//   serialized shim on: events around each launch and a wait (the old profiler's way);
//   concurrent shim on with conckerneltrace, CUPTI kept away: events around each
//              launch, no wait (the resolver thread completes the records);
//   cupti      the same with CUPTI's activity records: an external correlation id
//              pushed and popped around each launch on top (the CUPTI of --cupti, else
//              the one the shim finds; where it cannot trace, this is `concurrent`);
//   synced     no shim, the program itself waits after each launch (the floor of any
//              serialized timing).
// Each configuration runs `--rounds` times, interleaved; the median is reported.
//
//   launch_overhead [--launches N] [--rounds R] [--shim PATH] [--cupti PATH] [--real-driver]
// Without --real-driver the children run on the simulated driver of the build tree.
#include <dlfcn.h>
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

#include <cuda.h>

extern char** environ;

namespace {

constexpr char kModuleImage[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry _Z5emptyv() { ret; }\n";

std::uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

#define CHECK_CU(call)                                               \
  do {                                                               \
    CUresult r_ = (call);                                            \
    if (r_ != CUDA_SUCCESS) {                                        \
      std::fprintf(stderr, "%s failed: %d\n", #call, static_cast<int>(r_)); \
      std::exit(1);                                                  \
    }                                                                \
  } while (0)

// The child: N launches through the linked driver API; prints ns per launch.
int run_child(long launches, bool sync_each) {
  CHECK_CU(cuInit(0));
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_CU(cuCtxSetCurrent(ctx));
  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, kModuleImage));
  CUfunction empty;
  CHECK_CU(cuModuleGetFunction(&empty, module, "_Z5emptyv"));
  // Warm-up: first-use costs (the shim's settings, the writer thread) are not per launch.
  for (int i = 0; i < 100; ++i) CHECK_CU(cuLaunchKernel(empty, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
  CHECK_CU(cuCtxSynchronize());
  const auto start = now_ns();
  for (long i = 0; i < launches; ++i) {
    CHECK_CU(cuLaunchKernel(empty, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
    if (sync_each) CHECK_CU(cuStreamSynchronize(nullptr));
  }
  CHECK_CU(cuCtxSynchronize());
  std::printf("%.1f\n", static_cast<double>(now_ns() - start) / static_cast<double>(launches));
  return 0;
}

struct Config {
  const char* name;
  bool shim;
  bool profile;
  bool sync_each;
  const char* profile_config;  // COMPUTE_PROFILE_CONFIG text, or null
  enum class Cupti { found, none } cupti = Cupti::found;
};

double run_config(const char* self, const Config& c, long launches, const std::string& shim, const std::string& sim,
                  const std::string& cupti, const std::string& dir) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) && std::strncmp(*e, "COMPUTE_PROFILE", 15) &&
        std::strncmp(*e, "LD_LIBRARY_PATH=", 16) && std::strncmp(*e, "COMPUTEPROF_CUPTI_LIBRARY=", 26)) {
      env.emplace_back(*e);
    }
  }
  if (!sim.empty()) env.push_back("LD_LIBRARY_PATH=" + sim);
  if (c.shim) env.push_back("LD_PRELOAD=" + shim);
  if (c.cupti == Config::Cupti::none) env.push_back("COMPUTEPROF_CUPTI_LIBRARY=" + dir + "/no-libcupti.so");
  if (c.cupti == Config::Cupti::found && !cupti.empty()) env.push_back("COMPUTEPROF_CUPTI_LIBRARY=" + cupti);
  if (c.profile) {
    env.push_back("COMPUTE_PROFILE=1");
    env.push_back("COMPUTE_PROFILE_LOG=" + dir + "/bench_%p.log");
  }
  if (c.profile_config) {
    const std::string path = dir + "/" + c.name + ".cfg";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f || std::fputs(c.profile_config, f) < 0 || std::fclose(f) != 0) std::exit(1);
    env.push_back("COMPUTE_PROFILE_CONFIG=" + path);
  }
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string n = std::to_string(launches);
  const char* argv[] = {self, "--child", n.c_str(), c.sync_each ? "sync" : "nosync", nullptr};
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  pid_t pid;
  if (posix_spawn(&pid, self, &actions, nullptr, const_cast<char**>(argv), envp.data()) != 0) std::exit(1);
  close(fds[1]);
  char buf[64] = {};
  const ssize_t got = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "launch_overhead: configuration '%s' failed\n", c.name);
    std::exit(1);
  }
  return std::atof(buf);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "--child") == 0) return run_child(std::atol(argv[2]), std::strcmp(argv[3], "sync") == 0);

  long launches = 20000;
  int rounds = 5;
  std::string shim = SHIM_PATH;
  std::string sim = SIMDRIVER_DIR;
  std::string cupti;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--launches" && i + 1 < argc) launches = std::atol(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (a == "--shim" && i + 1 < argc) shim = argv[++i];
    else if (a == "--cupti" && i + 1 < argc) cupti = argv[++i];
    else if (a == "--real-driver") sim.clear();
    else {
      std::fprintf(stderr, "usage: %s [--launches N] [--rounds R] [--shim PATH] [--cupti PATH] [--real-driver]\n", argv[0]);
      return 2;
    }
  }
  char dir_template[] = "/tmp/computeprof-bench-XXXXXX";
  const std::string dir = mkdtemp(dir_template);

  const Config configs[] = {{"plain", false, false, false, nullptr},
                            {"dormant", true, false, false, nullptr},
                            {"serialized", true, true, false, nullptr},
                            {"concurrent", true, true, false, "conckerneltrace\n", Config::Cupti::none},
                            {"cupti", true, true, false, "conckerneltrace\n"},
                            {"synced", false, false, true, nullptr}};
  std::map<std::string, std::vector<double>> samples;
  for (int r = 0; r < rounds; ++r) {
    for (const auto& c : configs) samples[c.name].push_back(run_config(argv[0], c, launches, shim, sim, cupti, dir));
  }
  std::map<std::string, double> median;
  for (auto& [name, v] : samples) {
    std::sort(v.begin(), v.end());
    median[name] = v[v.size() / 2];
  }
  std::printf("%s driver, %ld launches x %d rounds, median ns per launch\n", sim.empty() ? "real" : "simulated",
              launches, rounds);
  for (const auto& c : configs) std::printf("  %-10s %10.1f\n", c.name, median[c.name]);
  std::printf("dormant/plain %.2f  serialized/plain %.2f  serialized/synced %.2f  (serialized adds %.0f ns over synced)\n",
              median["dormant"] / median["plain"], median["serialized"] / median["plain"],
              median["serialized"] / median["synced"], median["serialized"] - median["synced"]);
  std::printf("concurrent/plain %.2f  concurrent/serialized %.2f  (concurrent adds %.0f ns over plain)\n",
              median["concurrent"] / median["plain"], median["concurrent"] / median["serialized"],
              median["concurrent"] - median["plain"]);
  std::printf("cupti/plain %.2f  cupti/concurrent %.2f  (CUPTI activity tracing adds %.0f ns over concurrent)\n",
              median["cupti"] / median["plain"], median["cupti"] / median["concurrent"],
              median["cupti"] - median["concurrent"]);
  std::string cleanup = "rm -rf '" + dir + "'";
  return std::system(cleanup.c_str()) == 0 ? 0 : 1;
}
