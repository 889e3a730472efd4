#pragma once
// What every file of exported entry points shares.
#include <cudaTypedefs.h>

#include "sim.hpp"

#undef cuGetProcAddress
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync
#undef cuEventElapsedTime

#define SIM_API extern "C" __attribute__((visibility("default")))

// An entry point taking a stream and its per-thread variant (PT_NAME, whose NULL stream
// is the calling thread's): one body, told which by `per_thread`.
#define SIM_STREAM_PAIR(RET_NAME, PT_NAME, PARAMS, ARGS, ...) \
  namespace {                                                 \
  CUresult RET_NAME##_impl(bool per_thread, SIM_UNPAREN PARAMS) __VA_ARGS__ \
  }                                                            \
  SIM_API CUresult RET_NAME PARAMS { return RET_NAME##_impl(false, SIM_UNPAREN ARGS); } \
  SIM_API CUresult PT_NAME PARAMS { return RET_NAME##_impl(true, SIM_UNPAREN ARGS); }
#define SIM_UNPAREN(...) __VA_ARGS__

namespace sim {
#ifdef SIMCUDA_OLD_DRIVER
constexpr int kDriverVersion = 12020;
#else
constexpr int kDriverVersion = 13000;
#endif
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kWarpSize = 32;
constexpr int kMaxThreadsPerSm = 2048;
constexpr int kMaxBlocksPerSm = 32;
constexpr int kRegistersPerSm = 65536;
constexpr int kSharedPerSm = 233472;
constexpr int kSharedPerBlock = 49152;
}  // namespace sim
