#include "tools/stats_reading.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace computeprof::tools {

std::vector<std::string> read_stats_inputs(const std::vector<std::string>& paths,
                                           const std::function<void(std::size_t, StatsInput&)>& reduce) {
  std::vector<std::string> warnings(paths.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < paths.size();) {
      StatsInput input;
      warnings[i] = read_stats_input(paths[i], input);
      if (warnings[i].empty()) reduce(i, input);
    }
  };
  const std::size_t threads = 
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::max<std::size_t>(paths.size(), 1));
  {
    std::vector<std::jthread> pool;  // joined at the end of this block, before `warnings` is returned
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  return warnings;
}

}  // namespace computeprof::tools
