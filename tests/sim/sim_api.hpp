#pragma once
// What every file of exported entry points shares.
#include <cudaTypedefs.h>

#include "sim.hpp"

#undef cuGetProcAddress
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync
#undef cuEventElapsedTime

#define SIM_API extern "C" __attribute__((visibility("default")))

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
