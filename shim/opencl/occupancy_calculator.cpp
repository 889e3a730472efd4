#include "shim/opencl/occupancy_calculator.hpp"

#include <algorithm>

namespace computeprof::shim {
namespace {

constexpr int kWarpSize = 32;
constexpr int kRegisterUnit = 256;  // registers are allocated per warp in units of 256
constexpr int kSharedUnit = 128;    // shared memory is allocated in units of 128 bytes

int round_up(std::uint64_t v, int unit) { return static_cast<int>((v + unit - 1) / unit * unit); }

}  // namespace

// CUDA C Programming Guide, "Technical Specifications per Compute Capability".
std::optional<SmLimits> sm_limits(int major, int minor) {
  switch (major * 10 + minor) {
    case 60: return SmLimits{64, 32, 65536, 65536, 0};
    case 61: return SmLimits{64, 32, 65536, 98304, 0};
    case 62: return SmLimits{64, 32, 65536, 65536, 0};
    case 70:
    case 72: return SmLimits{64, 32, 65536, 98304, 0};
    case 75: return SmLimits{32, 16, 65536, 65536, 0};
    case 80: return SmLimits{64, 32, 65536, 167936, 1024};
    case 86: return SmLimits{48, 16, 65536, 102400, 1024};
    case 87: return SmLimits{48, 16, 65536, 167936, 1024};
    case 89: return SmLimits{48, 24, 65536, 102400, 1024};
    case 90: return SmLimits{64, 32, 65536, 233472, 1024};
    case 100:
    case 103: return SmLimits{64, 32, 65536, 233472, 1024};
    case 120: return SmLimits{48, 32, 65536, 102400, 1024};
    default: return std::nullopt;
  }
}

double theoretical_occupancy(const SmLimits& sm, const BlockResources& block) {
  if (block.threads == 0 || sm.max_warps == 0) return 0.0;
  const int warps_per_block = static_cast<int>((block.threads + kWarpSize - 1) / kWarpSize);
  int blocks = std::min(sm.max_blocks, sm.max_warps / warps_per_block);
  if (block.registers_per_thread > 0) {
    const int per_warp = round_up(std::uint64_t{block.registers_per_thread} * kWarpSize, kRegisterUnit);
    blocks = std::min(blocks, sm.registers / per_warp / warps_per_block);
  }
  const int shared = round_up(block.shared_bytes, kSharedUnit) + sm.shared_reserved_bytes;
  if (shared > 0) blocks = std::min(blocks, sm.shared_bytes / shared);
  return static_cast<double>(std::max(blocks, 0) * warps_per_block) / sm.max_warps;
}

}  // namespace computeprof::shim
