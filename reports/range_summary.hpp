#pragma once
// The summary's second table (docs/format.md, "Summary"): per NVTX range name (`name` or
// `name@domain`), its instances and their total, average, shortest and longest wall
// time, and the GPU time of the operations issued while it was open on their thread,
// as nsys's nvtx_sum and nvtx_gpu_proj_sum give. Shared by the shim's `summary` and
// `computeprof stats`.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace computeprof::reports {

struct RangeSummaryRow {
  std::string name;
  std::uint64_t instances = 0;
  std::uint64_t total_ns = 0;
  std::uint64_t min_ns = 0;
  std::uint64_t max_ns = 0;
  std::uint64_t gpu_ns = 0;
};

class RangeSummary {
 public:
  // One instance of range `name` that was open `wall_ns`.
  void add_range(std::string_view name, std::uint64_t wall_ns);
  // An operation of `gputime_ns` issued inside each of `names` (each once, however deep
  // it nests in itself).
  void add_gpu_time(std::span<const std::string> names, std::uint64_t gputime_ns);
  // The GPU time of an operation issued inside `path` (a path's text: names joined by
  // '/'), to each distinct name of it.
  void add_gpu_time_of_path(std::string_view path, std::uint64_t gputime_ns);
  // Every instance and GPU time of `other` (another file's), as if added here.
  void merge(const RangeSummary& other);
  // Longest total first (then the GPU time, then by name).
  std::vector<RangeSummaryRow> rows() const;
  bool empty() const { return by_name_.empty(); }

 private:
  std::map<std::string, RangeSummaryRow, std::less<>> by_name_;
  RangeSummaryRow& row(std::string_view name);
};

// The table under an "NVTX ranges:" line that starts with `prefix` ("==<pid>== "), every
// line ending with a line break; durations as the GPU activities' table writes them.
std::string format_range_summary(const std::vector<RangeSummaryRow>& rows, std::string_view prefix);

}  // namespace computeprof::reports
