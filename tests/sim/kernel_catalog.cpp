// The kernels the samples and tests launch, implemented on the CPU by their mangled
// names. GPU time is what the body takes on the stream's worker thread, except for
// _Z4spiny, whose duration is its argument (device_busy_for).
#include <cstring>

#include "sim.hpp"

namespace sim {
namespace {

template <typename T>
T arg(const std::vector<std::vector<unsigned char>>& args, std::size_t i) {
  T v{};
  std::memcpy(&v, args[i].data(), sizeof v);
  return v;
}

std::size_t threads(const LaunchGeometry& g) {
  return static_cast<std::size_t>(g.grid[0]) * g.grid[1] * g.grid[2] * g.block[0] * g.block[1] * g.block[2];
}

void vec_add(const LaunchGeometry& g, const std::vector<std::vector<unsigned char>>& args) {
  const auto* a = arg<const float*>(args, 0);
  const auto* b = arg<const float*>(args, 1);
  auto* c = arg<float*>(args, 2);
  const int n = arg<int>(args, 3);
  const std::size_t total = threads(g);
  for (std::size_t i = 0; i < total && i < static_cast<std::size_t>(n); ++i) c[i] = a[i] + b[i];
}

void spin(const LaunchGeometry&, const std::vector<std::vector<unsigned char>>& args) {
  device_busy_for(arg<unsigned long long>(args, 0));
}

void block_sum(const LaunchGeometry& g, const std::vector<std::vector<unsigned char>>& args) {
  const auto* in = arg<const float*>(args, 0);
  auto* out = arg<float*>(args, 1);
  const int n = arg<int>(args, 2);
  const std::size_t blocks = static_cast<std::size_t>(g.grid[0]) * g.grid[1] * g.grid[2];
  for (std::size_t b = 0; b < blocks; ++b) {
    float sum = 0;
    for (std::size_t t = 0; t < g.block[0]; ++t) {
      const std::size_t i = b * g.block[0] + t;
      if (i < static_cast<std::size_t>(n)) sum += in[i];
    }
    out[b] = sum;
  }
}

const KernelSpec kCatalog[] = {
    {"_Z6vecAddPKfS0_Pfi", 16, 0, {8, 8, 8, 4}, vec_add},
    {"_Z4spiny", 8, 0, {8}, spin},
    {"_Z8blockSumPKfPfi", 12, 1024, {8, 8, 4}, block_sum},
    {"_Z5emptyv", 2, 0, {}, nullptr},
};

}  // namespace

const KernelSpec& kernel_spec(const std::string& name) {
  for (const auto& k : kCatalog) {
    if (k.name == name) return k;
  }
  // Unknown entries: a no-op kernel; leaked, one per name.
  static std::mutex mutex;
  static auto* unknown = new std::map<std::string, KernelSpec>;
  std::lock_guard lock(mutex);
  auto [it, inserted] = unknown->try_emplace(name, KernelSpec{name, 32, 0, {}, nullptr});
  return it->second;
}

}  // namespace sim
