// Cost per kernel launch of the shim, measured as ratios within one run (this machine
// is shared and noisy): the same child program launching the empty kernel N times,
//   plain             no shim;
//   minimal           bench/minimal_interposer: two clock reads per launch into a
//                     per-thread buffer, the floor of any launch profiler;
//   dormant           shim preloaded, no variable set (what a system-wide install costs);
//   serialized        shim on, the old profiler's way: each launch timed and waited for;
//                     CUPTI kept away, so times come from event pairs;
//   serialized-cupti  the same with CUPTI's activity records (the simulated CUPTI on the
//                     simulated driver), as on a GPU;
//   concurrent        shim on with conckerneltrace, CUPTI kept away: event pairs, no
//                     wait (the resolver thread completes the records);
//   concurrent-cupti  conckerneltrace with CUPTI: no events, CUPTI's callback of each
//                     launch gives its correlation id;
//   synced            no shim, the program itself waits after each launch (the floor of
//                     any serialized timing);
//   minimal-cupti, minimal-cupti-synced
//                     bench/minimal_cupti_client, as plain and synced: CUPTI's activity
//                     records and launch callbacks turned on, nothing else done (the
//                     floor of timing with CUPTI; the shim's modes with CUPTI against it
//                     are the shim's own cost);
//   minimal-cupti-flushing
//                     minimal-cupti with a thread that flushes CUPTI's complete buffers
//                     every 5 ms, as the shim's collector does (what the flush costs);
//   serialized-excluded, concurrent-excluded
//                     serialized and concurrent with a kernel filter that excludes the
//                     launched kernel (`kernelexclude _Z5emptyv`, `kernelfilterscope all`):
//                     no launch is recorded; target: no more than a recorded launch;
//   concurrent-cupti-stack
//                     concurrent-cupti with `callstack` (depth 32), launched from the loop's
//                     own few frames (main and below);
//   concurrent-cupti-deep
//                     concurrent-cupti, each launch made from under a recursion of 40
//                     noinline frames (the "deep" workload), so that 32 frames exist;
//   concurrent-cupti-deep-stack
//                     the same with `callstack`: 32 frames captured per launch; target:
//                     <= 300 ns per launch more than concurrent-cupti-deep
//                     (bench/stack_capture measures the unwinders alone).
//                     With CUPTI, as on a GPU: the launching thread's CPU time is steady
//                     there (about 1.2 us a launch on the simulated driver), while with
//                     event pairs (concurrent) it moves by microseconds from run to run
//                     and serialized by tens of microseconds, far more than a capture.
// Each configuration runs `--rounds` times, interleaved; the median is reported, of the
// wall time per launch (up to the last launch's completion: on the simulated driver the
// simulated GPU's pace, not the host's) and of the launching thread's CPU time in its
// loop of launches per launch (what the shim adds to the program's thread).
//
// With --instructions, each configuration runs under valgrind's callgrind at two launch
// counts instead; the difference divided by the difference in launches is the
// instructions per launch, all threads, start-up and exit excluded, split by the object
// that executed them (the profiler itself, the driver and CUPTI it calls, the rest),
// the C library's services counted in the column of their caller. Of `--rounds` such
// measurements, the one with the median profiler count is reported.
//
// With --allocations, the child makes cuMemAlloc/cuMemFree pairs instead of launches,
// without the shim, with it dormant, profiling without memtrace, and with memtrace.
// With --startup, the wall time of a trivial CUDA program from spawn to exit, without
// and with the shim preloaded (profiling off), --rounds times each.
// With --exports, the writer's cost per format: concurrent-cupti with the log only, and
// with `export json`, `export sqlite`, `export json.gz`, `export nvprof`, `export json,sqlite` and
// `export json.gz,sqlite,nvprof` (all), and all under `flightrecorder 3600`: the wall time per launch
// (the application's), the CPU time per record of the writer thread and of the exports'
// own threads (their schedstat run time once they caught up), and from their sum the
// records a second one core writes; with
// --instructions, callgrind's instructions per launch of all threads and what each
// export adds to the log only.
// With --memory, resident memory (VmRSS): per launching thread, from children whose 1
// and 33 threads each make 1,000 launches and stay alive while it is read (the slope
// between the two, less plain's); then over one thread's --launches launches (10 M by
// default), read every tenth of the way, profiled under conckerneltrace.
//
// With --api-calls, the child makes a call apitrace traces (cuEventRecord) instead of
// launches: wall and the calling thread's
// CPU time per call, or with --instructions callgrind's instructions per call, untraced
// (an export with `apitrace off`) against traced.
//   launch_overhead [--allocations | --startup | --memory | --exports | --api-calls] [--instructions] [--launches N] [--rounds R]
//                   [--shim PATH] [--minimal PATH] [--cupti PATH] [--real-driver]
// Without --real-driver the children run on the simulated driver of the build tree.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda.h>

#include "bench/callgrind_costs.hpp"

extern char** environ;

namespace {

constexpr char kModuleImage[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry _Z5emptyv() { ret; }\n";

std::uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t now_ns() { return clock_ns(CLOCK_MONOTONIC); }

#define CHECK_CU(call)                                               \
  do {                                                               \
    CUresult r_ = (call);                                            \
    if (r_ != CUDA_SUCCESS) {                                        \
      std::fprintf(stderr, "%s failed: %d\n", #call, static_cast<int>(r_)); \
      std::exit(1);                                                  \
    }                                                                \
  } while (0)

// The child, allocations: N pairs of cuMemAlloc and cuMemFree of 256 bytes through the
// linked driver API; prints ns per pair.
int run_allocation_child(long pairs) {
  CHECK_CU(cuInit(0));
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_CU(cuCtxSetCurrent(ctx));
  CUdeviceptr p = 0;
  for (int i = 0; i < 100; ++i) {  // first-use costs are not per pair
    CHECK_CU(cuMemAlloc(&p, 256));
    CHECK_CU(cuMemFree(p));
  }
  const auto start = now_ns();
  for (long i = 0; i < pairs; ++i) {
    CHECK_CU(cuMemAlloc(&p, 256));
    CHECK_CU(cuMemFree(p));
  }
  std::printf("%.1f\n", static_cast<double>(now_ns() - start) / static_cast<double>(pairs));
  return 0;
}

// The child, API calls: N calls of cuEventRecord on a stream of its own, through the
// linked driver API (a call apitrace traces that the simulated driver makes without a
// system call, so that the shim's part is not lost in the driver's); prints wall and the
// thread's CPU ns per call.
int run_api_call_child(long calls) {
  CHECK_CU(cuInit(0));
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_CU(cuCtxSetCurrent(ctx));
  CUstream stream;
  CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUevent event;
  CHECK_CU(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  for (int i = 0; i < 100; ++i) CHECK_CU(cuEventRecord(event, stream));  // first-use costs are not per call
  const auto start = now_ns();
  const auto cpu_start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  for (long i = 0; i < calls; ++i) CHECK_CU(cuEventRecord(event, stream));
  const auto cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
  const auto wall = now_ns() - start;
  std::printf("%.1f %.1f\n", static_cast<double>(wall) / static_cast<double>(calls),
              static_cast<double>(cpu) / static_cast<double>(calls));
  CHECK_CU(cuEventDestroy(event));
  CHECK_CU(cuStreamDestroy(stream));
  return 0;
}

// The child, start-up: a trivial CUDA program (cuInit, then exit).
int run_start_child() {
  CHECK_CU(cuInit(0));
  std::printf("0\n");
  return 0;
}

// The "deep" workload launches from under this many frames (callstack captures 32).
constexpr int kDeepFrames = 40;

struct LaunchLoop {
  CUfunction kernel;
  long launches;
  bool sync_each;
};

// Prints the wall time per launch up to the last one's completion, and the calling
// thread's CPU time per launch in the loop.
// The run time so far, ns (schedstat), of the record writer thread ("cprof-writer") and
// of the exports' own threads ("cprof-export"); 0 without them.
struct OutputThreadsCpu {
  std::uint64_t writer = 0;
  std::uint64_t exports = 0;
};

OutputThreadsCpu output_threads_cpu_ns() {
  OutputThreadsCpu cpu;
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return cpu;
  while (const dirent* t = readdir(tasks)) {
    if (t->d_name[0] == '.') continue;
    const std::string dir = std::string("/proc/self/task/") + t->d_name;
    char comm[32] = {};
    FILE* f = std::fopen((dir + "/comm").c_str(), "r");
    if (!f) continue;
    const bool read = std::fgets(comm, sizeof comm, f) != nullptr;
    std::fclose(f);
    std::uint64_t* into = !read                                          ? nullptr
                          : std::strncmp(comm, "cprof-writer", 12) == 0 ? &cpu.writer
                          : std::strncmp(comm, "cprof-export", 12) == 0 ? &cpu.exports
                                                                        : nullptr;
    if (!into || !(f = std::fopen((dir + "/schedstat").c_str(), "r"))) continue;
    unsigned long long run = 0;
    if (std::fscanf(f, "%llu", &run) == 1) *into += run;
    std::fclose(f);
  }
  closedir(tasks);
  return cpu;
}

__attribute__((noinline)) void launch_loop(const LaunchLoop& loop) {
  // Warm-up: first-use costs (the shim's settings, the writer thread, the first capture
  // of this stack) are not per launch.
  for (int i = 0; i < 100; ++i) CHECK_CU(cuLaunchKernel(loop.kernel, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
  CHECK_CU(cuCtxSynchronize());
  const auto start = now_ns();
  const auto cpu_start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  for (long i = 0; i < loop.launches; ++i) {
    CHECK_CU(cuLaunchKernel(loop.kernel, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
    if (loop.sync_each) CHECK_CU(cuStreamSynchronize(nullptr));
  }
  const auto cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
  const auto loop_wall = now_ns() - start;
  CHECK_CU(cuCtxSynchronize());
  const auto wall = now_ns() - start;
  // The writer and the exports catch up within the writer's interval (20 ms) once the
  // launches are done.
  usleep(100'000);
  const OutputThreadsCpu outputs = output_threads_cpu_ns();
  const auto n = static_cast<double>(loop.launches);
  std::printf("%.1f %.1f %.1f %.1f %.1f\n", static_cast<double>(wall) / n, static_cast<double>(cpu) / n,
              static_cast<double>(outputs.writer) / n, static_cast<double>(loop_wall) / n,
              static_cast<double>(outputs.exports) / n);
}

__attribute__((noinline, noclone)) int descend(int n, const LaunchLoop& loop) {
  int r = 0;
  if (n > 0) {
    r = descend(n - 1, loop);
  } else {
    launch_loop(loop);
  }
  // Something after the call, so that neither call is a tail call nor the recursion a loop.
  asm volatile("" : "+r"(r) : : "memory");
  return r + 1;
}

// The primary context of device 0, current, and the empty kernel loaded in it.
CUfunction load_empty_kernel(CUcontext& ctx) {
  CHECK_CU(cuInit(0));
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));
  CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_CU(cuCtxSetCurrent(ctx));
  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, kModuleImage));
  CUfunction empty;
  CHECK_CU(cuModuleGetFunction(&empty, module, "_Z5emptyv"));
  return empty;
}

// The child, launches: N launches through the linked driver API, from `depth` frames of
// recursion (0: from here).
int run_child(long launches, bool sync_each, int depth) {
  CUcontext ctx;
  const LaunchLoop loop{load_empty_kernel(ctx), launches, sync_each};
  if (depth > 0) {
    descend(depth - 1, loop);
  } else {
    launch_loop(loop);
  }
  return 0;
}

// The process's resident memory, in KiB (VmRSS of /proc/self/status).
long resident_kib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) std::exit(1);
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f)) {
    if (std::sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib;
}

struct ThreadsChild {
  CUcontext context;
  CUfunction kernel;
  long launches;
  pthread_barrier_t launched;  // every thread made its launches
  pthread_barrier_t measured;  // the main thread read the resident memory
};

void* launching_thread(void* arg) {
  auto& child = *static_cast<ThreadsChild*>(arg);
  CHECK_CU(cuCtxSetCurrent(child.context));
  // Each launch waited for: no backlog of the simulated GPU's queue counts as memory
  // the threads hold.
  for (long i = 0; i < child.launches; ++i) {
    CHECK_CU(cuLaunchKernel(child.kernel, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
    CHECK_CU(cuCtxSynchronize());
  }
  pthread_barrier_wait(&child.launched);
  pthread_barrier_wait(&child.measured);
  return nullptr;
}

// The child, threads: `threads` threads make `launches` launches each; prints the
// resident KiB while all of them are still alive.
int run_threads_child(long launches, int threads) {
  ThreadsChild child;
  child.kernel = load_empty_kernel(child.context);
  child.launches = launches;
  pthread_barrier_init(&child.launched, nullptr, static_cast<unsigned>(threads) + 1);
  pthread_barrier_init(&child.measured, nullptr, static_cast<unsigned>(threads) + 1);
  std::vector<pthread_t> ids(static_cast<std::size_t>(threads));
  for (auto& id : ids) {
    if (pthread_create(&id, nullptr, launching_thread, &child) != 0) std::exit(1);
  }
  pthread_barrier_wait(&child.launched);
  usleep(300'000);  // the writer and CUPTI's buffers catch up with what the threads queued
  std::printf("%ld\n", resident_kib());
  pthread_barrier_wait(&child.measured);
  for (auto id : ids) pthread_join(id, nullptr);
  return 0;
}

// The child, a long run: `launches` launches from one thread; prints the resident KiB
// after each tenth of them.
int run_long_child(long launches) {
  CUcontext ctx;
  const CUfunction empty = load_empty_kernel(ctx);
  for (int tenth = 1; tenth <= 10; ++tenth) {
    for (long i = 0; i < launches / 10; ++i) {
      CHECK_CU(cuLaunchKernel(empty, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
    }
    CHECK_CU(cuCtxSynchronize());
    std::printf("%ld ", resident_kib());
  }
  std::printf("\n");
  return 0;
}

struct Config {
  const char* name;
  enum class Preload { none, minimal, minimal_cupti, minimal_cupti_flushing, shim } preload;
  bool profile;  // COMPUTE_PROFILE=1
  const char* workload;  // the child's: "nosync", "sync", "deep" (launches), "allocate", "start"
  const char* profile_config;  // COMPUTE_PROFILE_CONFIG text, or null
  bool cupti;  // whether CUPTI may trace activities
};

const Config kLaunchConfigs[] = {
    {"plain", Config::Preload::none, false, "nosync", nullptr, false},
    {"minimal", Config::Preload::minimal, false, "nosync", nullptr, false},
    {"dormant", Config::Preload::shim, false, "nosync", nullptr, false},
    {"serialized", Config::Preload::shim, true, "nosync", nullptr, false},
    {"serialized-cupti", Config::Preload::shim, true, "nosync", nullptr, true},
    {"concurrent", Config::Preload::shim, true, "nosync", "conckerneltrace\n", false},
    {"concurrent-cupti", Config::Preload::shim, true, "nosync", "conckerneltrace\n", true},
    {"synced", Config::Preload::none, false, "sync", nullptr, false},
    {"minimal-cupti", Config::Preload::minimal_cupti, false, "nosync", nullptr, true},
    {"minimal-cupti-synced", Config::Preload::minimal_cupti, false, "sync", nullptr, true},
    {"minimal-cupti-flushing", Config::Preload::minimal_cupti_flushing, false, "nosync", nullptr, true},
    {"serialized-excluded", Config::Preload::shim, true, "nosync", "kernelexclude _Z5emptyv\nkernelfilterscope all\n",
     false},
    {"concurrent-excluded", Config::Preload::shim, true, "nosync",
     "conckerneltrace\nkernelexclude _Z5emptyv\nkernelfilterscope all\n", false},
    {"concurrent-cupti-stack", Config::Preload::shim, true, "nosync", "conckerneltrace\ncallstack\n", true},
    {"concurrent-cupti-deep", Config::Preload::shim, true, "deep", "conckerneltrace\n", true},
    {"concurrent-cupti-deep-stack", Config::Preload::shim, true, "deep", "conckerneltrace\ncallstack\n", true},
};

// --exports: the log only, then each export beside it, as a user runs them.
const Config kExportConfigs[] = {
    {"log", Config::Preload::shim, true, "nosync", "conckerneltrace\n", true},
    {"json", Config::Preload::shim, true, "nosync", "conckerneltrace\nexport json\n", true},
    {"sqlite", Config::Preload::shim, true, "nosync", "conckerneltrace\nexport sqlite\n", true},
    {"json.gz", Config::Preload::shim, true, "nosync", "conckerneltrace\nexport json.gz\n", true},
    {"nvprof", Config::Preload::shim, true, "nosync", "conckerneltrace\nexport nvprof\n", true},
    {"json+sqlite", Config::Preload::shim, true, "nosync", "conckerneltrace\nexport json,sqlite\n", true},
    // As the GPU check runs PyTorch: every kind of export at once.
    {"all", Config::Preload::shim, true, "nosync", "conckerneltrace\nexport json.gz,sqlite,nvprof\n", true},
    // The same under the flight recorder, whose window holds the whole run.
    {"all-flight", Config::Preload::shim, true, "nosync",
     "conckerneltrace\nexport json.gz,sqlite,nvprof\nflightrecorder 3600\n", true},
};

// --allocations: profiled without memtrace, the allocation calls' trampolines jump
// straight to the driver; with memtrace each pair makes two events.
const Config kAllocationConfigs[] = {
    {"plain", Config::Preload::none, false, "allocate", nullptr, false},
    {"dormant", Config::Preload::shim, false, "allocate", nullptr, false},
    {"profiled", Config::Preload::shim, true, "allocate", nullptr, false},
    {"memtrace", Config::Preload::shim, true, "allocate", "memtrace\n", false},
};

// --api-calls: a call apitrace traces, without it (profiled, with an export and
// `apitrace off`: their trampolines jump straight to the driver) and with it (the
// export's default); target: at most 150 ns of the calling thread per traced call.
const Config kApiCallConfigs[] = {
    {"plain", Config::Preload::none, false, "api", nullptr, false},
    {"dormant", Config::Preload::shim, false, "api", nullptr, false},
    {"untraced", Config::Preload::shim, true, "api", "export json\napitrace off\n", false},
    {"apitrace", Config::Preload::shim, true, "api", "export json\n", false},
    {"apitrace-all", Config::Preload::shim, true, "api", "export json.gz,sqlite,nvprof\n", false},
};

// --memory: resident memory per launching thread.
const Config kMemoryConfigs[] = {
    {"plain", Config::Preload::none, false, "threads", nullptr, false},
    {"serialized", Config::Preload::shim, true, "threads", nullptr, false},
    {"serialized-cupti", Config::Preload::shim, true, "threads", nullptr, true},
    {"concurrent", Config::Preload::shim, true, "threads", "conckerneltrace\n", false},
    {"concurrent-cupti", Config::Preload::shim, true, "threads", "conckerneltrace\n", true},
};

struct Paths {
  std::string self;
  std::string shim = SHIM_PATH;
  std::string minimal = MINIMAL_INTERPOSER_PATH;
  std::string minimal_cupti = MINIMAL_CUPTI_CLIENT_PATH;
  std::string sim = SIMDRIVER_DIR;  // empty: the real driver
  std::string cupti;                // empty: the simulated CUPTI, or the loader's on a GPU
  std::string dir;                  // scratch
};

std::vector<std::string> child_environment(const Config& c, const Paths& paths) {
  std::vector<std::string> env;
  // On the real driver the caller's library path stays: it may be where libcuda, or
  // the libunwind that callstack loads, is found.
  const bool simulated = !paths.sim.empty();
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) && std::strncmp(*e, "COMPUTE_PROFILE", 15) &&
        std::strncmp(*e, "MINIMAL_CUPTI_", 14) &&
        (!simulated || std::strncmp(*e, "LD_LIBRARY_PATH=", 16)) && std::strncmp(*e, "COMPUTEPROF_CUPTI_LIBRARY=", 26)) {
      env.emplace_back(*e);
    }
  }
  if (simulated) env.push_back("LD_LIBRARY_PATH=" + paths.sim);
  if (c.preload == Config::Preload::shim) env.push_back("LD_PRELOAD=" + paths.shim);
  if (c.preload == Config::Preload::minimal) env.push_back("LD_PRELOAD=" + paths.minimal);
  if (c.preload == Config::Preload::minimal_cupti || c.preload == Config::Preload::minimal_cupti_flushing) {
    env.push_back("LD_PRELOAD=" + paths.minimal_cupti);
  }
  // The shim's collector's interval (shim/activity/activity_trace.cpp, kPollIntervalNs).
  if (c.preload == Config::Preload::minimal_cupti_flushing) env.push_back("MINIMAL_CUPTI_FLUSH_MS=5");
  if (!c.cupti) {
    env.push_back("COMPUTEPROF_CUPTI_LIBRARY=" + paths.dir + "/no-libcupti.so");
  } else if (!paths.cupti.empty()) {
    env.push_back("COMPUTEPROF_CUPTI_LIBRARY=" + paths.cupti);
  } else if (!paths.sim.empty()) {
    env.push_back("COMPUTEPROF_CUPTI_LIBRARY=" SIMCUPTI_PATH);
  }
  if (c.profile) {
    env.push_back("COMPUTE_PROFILE=1");
    env.push_back("COMPUTE_PROFILE_LOG=" + paths.dir + "/bench_%p.log");
  }
  if (c.profile_config) {
    const std::string path = paths.dir + "/" + c.name + ".cfg";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f || std::fputs(c.profile_config, f) < 0 || std::fclose(f) != 0) std::exit(1);
    env.push_back("COMPUTE_PROFILE_CONFIG=" + path);
  }
  return env;
}

// Runs argv with env, its stdout read back and its stderr kept in `errors` (shown if it
// fails); exits on any failure.
std::string run_child_process(const std::vector<std::string>& args, std::vector<std::string> env, const char* what,
                              const std::string& errors) {
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
  posix_spawn_file_actions_addopen(&actions, 2, errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) {
    std::fprintf(stderr, "launch_overhead: cannot run %s\n", argv[0]);
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
    std::fprintf(stderr, "launch_overhead: configuration '%s' failed; its stderr:\n", what);
    const std::string show = "cat '" + errors + "' >&2";
    if (std::system(show.c_str()) != 0) std::fprintf(stderr, "launch_overhead: cannot show %s\n", errors.c_str());
    std::exit(1);
  }
  return out;
}

double time_per_unit(const Config& c, long units, const Paths& paths) {
  const std::string out = run_child_process({paths.self, "--child", std::to_string(units), c.workload},
                                            child_environment(c, paths), c.name, paths.dir + "/stderr");
  return std::atof(out.c_str());
}

// A launch child's two times per launch: wall (to the last completion) and the
// launching thread's CPU time in the loop.
struct LaunchTimes {
  double wall = 0;
  double cpu = 0;
  double writer = 0;   // the writer thread's CPU time per launch
  double loop = 0;     // wall time per launch in the loop of launches, before the wait
  double exports = 0;  // the exports' own threads' CPU time per launch
};

LaunchTimes launch_times(const Config& c, long launches, const Paths& paths,
                         const std::vector<std::string>& more_env = {}) {
  std::vector<std::string> env = child_environment(c, paths);
  env.insert(env.end(), more_env.begin(), more_env.end());
  const std::string out = run_child_process({paths.self, "--child", std::to_string(launches), c.workload},
                                            std::move(env), c.name, paths.dir + "/stderr");
  LaunchTimes t;
  if (std::sscanf(out.c_str(), "%lf %lf %lf %lf %lf", &t.wall, &t.cpu, &t.writer, &t.loop, &t.exports) != 5) {
    std::fprintf(stderr, "launch_overhead: configuration '%s' printed '%s'\n", c.name, out.c_str());
    std::exit(1);
  }
  return t;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Each time of a LaunchTimes on its own.
LaunchTimes median_of(const std::vector<LaunchTimes>& v) {
  std::vector<double> wall, cpu, writer, loop, exports;
  for (const LaunchTimes& t : v) {
    wall.push_back(t.wall);
    cpu.push_back(t.cpu);
    writer.push_back(t.writer);
    loop.push_back(t.loop);
    exports.push_back(t.exports);
  }
  return {median_of(std::move(wall)), median_of(std::move(cpu)), median_of(std::move(writer)),
          median_of(std::move(loop)), median_of(std::move(exports))};
}

// Each configuration's median of `measure(config)` over `rounds` runs, interleaved.
template <typename Measure>
auto median_times(std::span<const Config> configs, int rounds, Measure&& measure) {
  using Sample = std::decay_t<std::invoke_result_t<Measure&, const Config&>>;
  std::map<std::string, std::vector<Sample>> samples;
  for (int r = 0; r < rounds; ++r) {
    for (const auto& c : configs) samples[c.name].push_back(measure(c));
  }
  std::map<std::string, Sample> median;
  for (auto& [name, v] : samples) median[name] = median_of(std::move(v));
  return median;
}

// --startup: what preloading the shim costs every process, profiling off: the wall time
// of a trivial CUDA program from spawn to exit, without and with the shim preloaded.
const Config kStartupConfigs[] = {
    {"plain", Config::Preload::none, false, "start", nullptr, false},
    {"dormant", Config::Preload::shim, false, "start", nullptr, false},
};

double startup_time(const Config& c, const Paths& paths) {
  const auto start = now_ns();
  run_child_process({paths.self, "--child", "0", c.workload}, child_environment(c, paths), c.name,
                    paths.dir + "/stderr");
  return static_cast<double>(now_ns() - start);
}

void report_startup_times(int runs, const Paths& paths) {
  std::map<std::string, double> median =
      median_times(kStartupConfigs, runs, [&](const Config& c) { return startup_time(c, paths); });
  std::printf("%s driver, a trivial CUDA program (cuInit) spawned %d times each, interleaved, median us\n",
              paths.sim.empty() ? "real" : "simulated", runs);
  for (const auto& c : kStartupConfigs) std::printf("  %-17s %10.1f\n", c.name, median[c.name] / 1000);
  std::printf("the preloaded shim adds %.0f us to start-up\n", (median["dormant"] - median["plain"]) / 1000);
}

void report_allocation_times(long pairs, int rounds, const Paths& paths) {
  std::map<std::string, double> median =
      median_times(kAllocationConfigs, rounds, [&](const Config& c) { return time_per_unit(c, pairs, paths); });
  std::printf("%s driver, %ld cuMemAlloc+cuMemFree pairs x %d rounds, median ns per pair, added over plain\n",
              paths.sim.empty() ? "real" : "simulated", pairs, rounds);
  for (const auto& c : kAllocationConfigs) {
    std::printf("  %-17s %10.1f  %+8.1f ns  %5.2fx\n", c.name, median[c.name], median[c.name] - median["plain"],
                median[c.name] / median["plain"]);
  }
  std::printf("memtrace adds %.0f ns per allocation or free over profiled\n",
              (median["memtrace"] - median["profiled"]) / 2);
}

// An API-call child's wall and CPU time per call.
std::pair<double, double> api_call_times(const Config& c, long calls, const Paths& paths) {
  const std::string out = run_child_process({paths.self, "--child", std::to_string(calls), c.workload},
                                            child_environment(c, paths), c.name, paths.dir + "/stderr");
  std::pair<double, double> t;
  if (std::sscanf(out.c_str(), "%lf %lf", &t.first, &t.second) != 2) {
    std::fprintf(stderr, "launch_overhead: configuration '%s' printed '%s'\n", c.name, out.c_str());
    std::exit(1);
  }
  return t;
}

void report_api_call_times(long calls, int rounds, const Paths& paths) {
  std::map<std::string, double> wall, cpu;
  for (const auto& c : kApiCallConfigs) {
    std::vector<double> walls, cpus;
    for (int r = 0; r < rounds; ++r) {
      const auto [w, u] = api_call_times(c, calls, paths);
      walls.push_back(w);
      cpus.push_back(u);
    }
    wall[c.name] = median_of(std::move(walls));
    cpu[c.name] = median_of(std::move(cpus));
  }
  std::printf("%s driver, %ld cuEventRecord calls x %d rounds, median ns per call: wall, "
              "the calling thread's CPU time, and its CPU time over untraced\n",
              paths.sim.empty() ? "real" : "simulated", calls, rounds);
  for (const auto& c : kApiCallConfigs) {
    std::printf("  %-13s %8.1f %8.1f  %+8.1f\n", c.name, wall[c.name], cpu[c.name], cpu[c.name] - cpu["untraced"]);
  }
  std::printf("apitrace adds %.0f ns of the calling thread per traced call (target 150)\n",
              cpu["apitrace"] - cpu["untraced"]);
}

void report_times(long launches, int rounds, const Paths& paths) {
  std::map<std::string, LaunchTimes> times =
      median_times(kLaunchConfigs, rounds, [&](const Config& c) { return launch_times(c, launches, paths); });
  std::map<std::string, double> median;  // wall
  for (const auto& [name, t] : times) median[name] = t.wall;
  std::printf("%s driver, %ld launches x %d rounds, median ns per launch: wall (to the last launch's completion)\n"
              "and over plain; the launching thread's CPU time in its loop of launches\n",
              paths.sim.empty() ? "real" : "simulated", launches, rounds);
  for (const auto& c : kLaunchConfigs) {
    std::printf("  %-27s %10.1f  %5.2fx  %10.1f\n", c.name, median[c.name], median[c.name] / median["plain"],
                times[c.name].cpu);
  }
  std::printf("serialized/synced %.2f  serialized-cupti/synced %.2f  concurrent-cupti/plain %.2f  minimal/plain %.2f\n",
              median["serialized"] / median["synced"], median["serialized-cupti"] / median["synced"],
              median["concurrent-cupti"] / median["plain"], median["minimal"] / median["plain"]);
  std::printf("CUPTI's floor: minimal-cupti-synced/synced %.2f  minimal-cupti/plain %.2f; the shim over it: "
              "serialized-cupti/minimal-cupti-synced %.2f  concurrent-cupti/minimal-cupti %.2f\n",
              median["minimal-cupti-synced"] / median["synced"], median["minimal-cupti"] / median["plain"],
              median["serialized-cupti"] / median["minimal-cupti-synced"],
              median["concurrent-cupti"] / median["minimal-cupti"]);
  std::printf("CUPTI flushed every 5 ms: minimal-cupti-flushing/minimal-cupti %.2f\n",
              median["minimal-cupti-flushing"] / median["minimal-cupti"]);
  // What an option adds per launch: `with` minus `without`, CPU time of the launching
  // thread (wall in brackets).
  auto added = [&](const char* with, const char* without) {
    std::printf("  %-27s - %-21s %+9.1f ns cpu  (%+.1f wall)\n", with, without, times[with].cpu - times[without].cpu,
                times[with].wall - times[without].wall);
  };
  std::printf("callstack (depth 32) per launch, %d frames deep (target: <= +300 ns), and from the loop's own frames:\n",
              kDeepFrames);
  added("concurrent-cupti-deep-stack", "concurrent-cupti-deep");
  added("concurrent-cupti-stack", "concurrent-cupti");
  std::printf("a launch excluded by kernelexclude (kernelfilterscope all) against a recorded one (target: <= 0):\n");
  added("serialized-excluded", "serialized");
  added("concurrent-excluded", "concurrent");
}

void report_export_times(long launches, int rounds, const Paths& paths) {
  // On the simulated driver, kernels without launch latency: the host's pace, not the
  // simulated GPU's, is the wall time.
  std::vector<std::string> env;
  if (!paths.sim.empty()) env.push_back("SIMCUDA_LAUNCH_LATENCY_NS=0");
  std::map<std::string, LaunchTimes> times =
      median_times(kExportConfigs, rounds, [&](const Config& c) { return launch_times(c, launches, paths, env); });
  std::printf("%s driver, conckerneltrace with CUPTI, %ld launches x %d rounds, medians per launch: the\n"
              "application's wall ns in its loop of launches, and to the last completion, each against the log only;\n"
              "CPU ns per record of the writer thread and of the exports' own threads, their sum, and records a\n"
              "second one core writes at that sum\n",
              paths.sim.empty() ? "real" : "simulated", launches, rounds);
  const LaunchTimes& log = times["log"];
  for (const auto& c : kExportConfigs) {
    const LaunchTimes& t = times[c.name];
    const double both = t.writer + t.exports;
    std::printf("  %-11s loop %8.1f %5.2fx  completed %9.1f %5.2fx  writer %7.1f + exports %7.1f = %7.1f ns %5.2f M/s\n",
                c.name, t.loop, t.loop / log.loop, t.wall, t.wall / log.wall, t.writer, t.exports, both,
                both > 0 ? 1e3 / both : 0.0);
  }
}

// What ran the instructions, in the table's columns.
enum Part { profiler, driver, cupti, system, program, kParts };

Part part_of(const std::string& object, const Paths& paths) {
  if (object == paths.shim || object == paths.minimal || object == paths.minimal_cupti) return profiler;
  if (object.find("libcuda.so") != std::string::npos) return driver;
  if (object.find("cupti") != std::string::npos) return cupti;
  if (object == paths.self) return program;
  return system;
}

using PartCosts = std::array<double, kParts>;

// The C and C++ libraries' services (locks, allocation, clocks, thread-locals): their
// instructions are charged to whoever called them (callgrind's --fn-skip), so that the
// table says which part of the process asked for them.
constexpr const char* kCharged[] = {
    "__tls_get_addr", "pthread_*", "__pthread_*", "_pthread_*", "__lll_*", "__condvar_*", "__futex*",
    "malloc", "free", "calloc", "realloc", "_int_malloc", "_int_free", "malloc_consolidate", "unlink_chunk*",
    "alloc_perturb", "sysmalloc", "tcache_*", "__mem*", "clock_gettime*", "clock_nanosleep*", "syscall", "getpid",
    "std::condition_variable::*", "operator new*", "operator delete*"};

// The whole process's instructions by part, and the profiler's own on the thread that
// launches (the application's time).
struct Instructions {
  PartCosts all{};
  double profiler_on_launching_thread = 0;
};

Instructions instructions(const Config& c, long launches, const Paths& paths) {
  const std::string out = paths.dir + "/callgrind." + c.name + "." + std::to_string(launches);
  std::vector<std::string> args = {"valgrind", "--tool=callgrind", "--separate-threads=yes",
                                   "--callgrind-out-file=" + out};
  for (const char* f : kCharged) args.push_back(std::string("--fn-skip=") + f);
  for (const std::string& a : {paths.self, std::string("--child"), std::to_string(launches), std::string(c.workload)}) {
    args.push_back(a);
  }
  run_child_process(args, child_environment(c, paths), c.name, paths.dir + "/stderr");
  // One file per thread: <out>-01 is the main thread, the one that launches.
  Instructions result;
  for (int thread = 1;; ++thread) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "-%02d", thread);
    std::map<std::string, std::uint64_t> costs;
    if (!computeprof::bench::read_object_costs(out + suffix, costs)) {
      if (thread == 1) {
        std::fprintf(stderr, "launch_overhead: cannot read %s%s\n", out.c_str(), suffix);
        std::exit(1);
      }
      break;
    }
    for (const auto& [object, ir] : costs) {
      const Part part = part_of(object, paths);
      result.all[part] += static_cast<double>(ir);
      if (thread == 1 && part == profiler) result.profiler_on_launching_thread += static_cast<double>(ir);
    }
  }
  return result;
}

// Instructions per launch of `c`: the difference between `launches` and a quarter of them.
Instructions instructions_per_launch(const Config& c, long launches, const Paths& paths) {
  const long fewer = launches / 4;
  const Instructions many = instructions(c, launches, paths);
  const Instructions few = instructions(c, fewer, paths);
  Instructions each;
  const auto n = static_cast<double>(launches - fewer);
  for (int p = 0; p < kParts; ++p) each.all[p] = (many.all[p] - few.all[p]) / n;
  each.profiler_on_launching_thread = (many.profiler_on_launching_thread - few.profiler_on_launching_thread) / n;
  return each;
}

// Each configuration's row is that of the round whose profiler count is the median: how
// the threads interleave moves work between them (resolving, batching, the collector's
// rounds), and with it the count, from run to run.
// `baseline`: the configuration the "added" columns subtract.
void report_instructions(std::span<const Config> configs, const char* unit, long launches, int rounds,
                         const Paths& paths, const char* baseline = "plain") {
  std::map<std::string, Instructions> per_launch;
  for (const auto& c : configs) {
    std::vector<Instructions> runs;
    for (int r = 0; r < rounds; ++r) runs.push_back(instructions_per_launch(c, launches, paths));
    std::sort(runs.begin(), runs.end(),
              [](const Instructions& a, const Instructions& b) { return a.all[profiler] < b.all[profiler]; });
    per_launch[c.name] = runs[runs.size() / 2];
  }
  const PartCosts& plain = per_launch[baseline].all;
  std::printf("%s driver, callgrind, instructions per %s (all threads; %ld minus %ld of them; the median of %d "
              "runs);\n"
              "the C and C++ libraries' locks, allocations, clocks and thread-locals counted in their callers' columns;\n"
              "added: over %s\n",
              paths.sim.empty() ? "real" : "simulated", unit, launches, launches / 4, rounds, baseline);
  std::printf("  %-27s %8s %8s   %s\n", "", "total", "added",
              "added in: profiler (calling thread)   driver    CUPTI    other");
  for (const auto& c : configs) {
    const Instructions& cost = per_launch[c.name];
    double total = 0, added = 0;
    for (int p = 0; p < kParts; ++p) {
      total += cost.all[p];
      added += cost.all[p] - plain[p];
    }
    std::printf("  %-27s %8.0f %8.0f   %18.0f %20.0f %8.0f %8.0f %8.0f\n", c.name, total, added,
                cost.all[profiler] - plain[profiler], cost.profiler_on_launching_thread,
                cost.all[driver] - plain[driver], cost.all[cupti] - plain[cupti], cost.all[system] - plain[system]);
  }
}

// A memory child's environment: one malloc arena, so that VmRSS says what the threads
// hold rather than how many arenas glibc gave them; on the simulated driver, kernels
// without launch latency (its sleeps would make 10 M launches take hours).
std::vector<std::string> memory_child_environment(const Config& c, const Paths& paths) {
  std::vector<std::string> env = child_environment(c, paths);
  env.push_back("MALLOC_ARENA_MAX=1");
  if (!paths.sim.empty()) env.push_back("SIMCUDA_LAUNCH_LATENCY_NS=0");
  return env;
}

// Resident KiB of a child whose `threads` threads made 1,000 launches each.
double resident_with_threads(const Config& c, int threads, const Paths& paths) {
  const std::string out = run_child_process({paths.self, "--child", "1000", "threads", std::to_string(threads)},
                                            memory_child_environment(c, paths), c.name, paths.dir + "/stderr");
  return std::atof(out.c_str());
}

void report_resident_memory(long launches, int rounds, const Paths& paths) {
  constexpr int kFew = 1, kMany = 33;
  std::map<std::string, double> per_thread;
  for (const auto& c : kMemoryConfigs) {
    std::vector<double> slopes;
    for (int r = 0; r < rounds; ++r) {
      slopes.push_back((resident_with_threads(c, kMany, paths) - resident_with_threads(c, kFew, paths)) /
                       (kMany - kFew));
    }
    per_thread[c.name] = median_of(slopes);
  }
  std::printf("%s driver, resident memory per launching thread (VmRSS, %d and %d threads of 1000 launches, "
              "median of %d), KiB\n",
              paths.sim.empty() ? "real" : "simulated", kFew, kMany, rounds);
  for (const auto& c : kMemoryConfigs) {
    std::printf("  %-17s %8.1f  %+8.1f over plain\n", c.name, per_thread[c.name], per_thread[c.name] - per_thread["plain"]);
  }
  const Config long_run{"concurrent", Config::Preload::shim, true, "long", "conckerneltrace\n", false};
  const std::string out = run_child_process({paths.self, "--child", std::to_string(launches), "long"},
                                            memory_child_environment(long_run, paths), long_run.name,
                                            paths.dir + "/stderr");
  std::printf("%ld launches from one thread under conckerneltrace, VmRSS KiB after each tenth:\n  %s", launches,
              out.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "--child") == 0) {
    if (std::strcmp(argv[3], "allocate") == 0) return run_allocation_child(std::atol(argv[2]));
    if (std::strcmp(argv[3], "api") == 0) return run_api_call_child(std::atol(argv[2]));
    if (std::strcmp(argv[3], "start") == 0) return run_start_child();
    if (std::strcmp(argv[3], "threads") == 0 && argc >= 5) return run_threads_child(std::atol(argv[2]), std::atoi(argv[4]));
    if (std::strcmp(argv[3], "long") == 0) return run_long_child(std::atol(argv[2]));
    return run_child(std::atol(argv[2]), std::strcmp(argv[3], "sync") == 0,
                     std::strcmp(argv[3], "deep") == 0 ? kDeepFrames : 0);
  }

  long launches = 0;
  int rounds = 5;
  bool count_instructions = false;
  bool allocations = false;
  bool startup = false;
  bool memory = false;
  bool exports = false;
  bool api_calls = false;
  Paths paths;
  paths.self = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--launches" && i + 1 < argc) launches = std::atol(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (a == "--shim" && i + 1 < argc) paths.shim = argv[++i];
    else if (a == "--minimal" && i + 1 < argc) paths.minimal = argv[++i];
    else if (a == "--cupti" && i + 1 < argc) paths.cupti = argv[++i];
    else if (a == "--real-driver") paths.sim.clear();
    else if (a == "--instructions") count_instructions = true;
    else if (a == "--allocations") allocations = true;
    else if (a == "--startup") startup = true;
    else if (a == "--memory") memory = true;
    else if (a == "--exports") exports = true;
    else if (a == "--api-calls") api_calls = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--allocations | --startup | --memory | --exports | --api-calls] [--instructions] [--launches N] [--rounds R] [--shim PATH] [--minimal PATH] "
                   "[--cupti PATH] [--real-driver]\n",
                   argv[0]);
      return 2;
    }
  }
  if (launches <= 0) launches = count_instructions ? 4000 : memory ? 10'000'000 : exports ? 100'000 : 20000;
  char dir_template[] = "/tmp/computeprof-bench-XXXXXX";
  if (!mkdtemp(dir_template)) return 1;
  paths.dir = dir_template;
  if (startup) {
    report_startup_times(rounds, paths);
  } else if (memory) {
    report_resident_memory(launches, rounds, paths);
  } else if (count_instructions) {
    if (allocations) {
      report_instructions(kAllocationConfigs, "cuMemAlloc+cuMemFree pair", launches, rounds, paths);
    } else if (api_calls) {
      report_instructions(kApiCallConfigs, "traced call", launches, rounds, paths, "untraced");
    } else if (exports) {
      report_instructions(kExportConfigs, "launch", launches, rounds, paths, "log");
    } else {
      report_instructions(kLaunchConfigs, "launch", launches, rounds, paths);
    }
  } else if (allocations) {
    report_allocation_times(launches, rounds, paths);
  } else if (api_calls) {
    report_api_call_times(launches, rounds, paths);
  } else if (exports) {
    report_export_times(launches, rounds, paths);
  } else {
    report_times(launches, rounds, paths);
  }
  std::string cleanup = "rm -rf '" + paths.dir + "'";
  return std::system(cleanup.c_str()) == 0 ? 0 : 1;
}
