// The floor any launch profiler is measured against: the least an interposer that
// times launches can do. It finds the next cuLaunchKernel once, reads the clock before
// and after the call and stores both in a per-thread buffer that wraps; it writes
// nothing and keeps nothing else.
#include <dlfcn.h>
#include <time.h>

#include <cstddef>
#include <cstdint>

#include <cuda.h>

namespace {

using LaunchKernel = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  CUstream, void**, void**);

struct LaunchTimes {
  std::uint64_t start_ns;
  std::uint64_t end_ns;
};

constexpr std::size_t kTimes = 4096;
thread_local LaunchTimes times[kTimes];
thread_local std::size_t next_time = 0;

std::uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                                                                          unsigned gz, unsigned bx, unsigned by,
                                                                          unsigned bz, unsigned shared, CUstream stream,
                                                                          void** params, void** extra) {
  static const auto next = reinterpret_cast<LaunchKernel>(dlsym(RTLD_NEXT, "cuLaunchKernel"));
  const std::uint64_t start = now_ns();
  const CUresult result = next(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
  times[next_time % kTimes] = {start, now_ns()};
  ++next_time;
  return result;
}
