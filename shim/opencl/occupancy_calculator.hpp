#pragma once
// Theoretical occupancy from a kernel's resources, by the rules of NVIDIA's occupancy
// calculator, for devices whose driver cannot be asked (OpenCL on NVIDIA GPUs; CUDA
// asks cuOccupancyMaxActiveBlocksPerMultiprocessor instead).
#include <cstdint>
#include <optional>

namespace computeprof::shim {

// What one SM of a compute capability offers.
struct SmLimits {
  int max_warps = 0;
  int max_blocks = 0;
  int registers = 65536;
  int shared_bytes = 0;           // the most a carveout gives to shared memory
  int shared_reserved_bytes = 0;  // per block, taken by the system (sm_80 and later)
};

// Empty for a compute capability this table does not know.
std::optional<SmLimits> sm_limits(int major, int minor);

struct BlockResources {
  std::uint32_t threads = 0;
  std::uint32_t registers_per_thread = 0;
  std::uint64_t shared_bytes = 0;  // static and dynamic
};

// Active warps per SM over the SM's maximum; 0 when a block cannot fit at all.
double theoretical_occupancy(const SmLimits& sm, const BlockResources& block);

}  // namespace computeprof::shim
