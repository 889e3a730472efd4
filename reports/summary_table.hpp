#pragma once
// nvprof's summary of GPU activities (docs/format.md, "Summary"): per kernel and per
// kind of copy, the calls and their total, average, shortest and longest gputime, and
// the share of all GPU time, longest total first. Shared by the shim's `summary` and
// `computeprof stats`.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace computeprof::reports {

// The row a log's method goes in: a kernel's demangled name, "[CUDA memcpy HtoD]" for
// memcpyHtoD and memcpyHtoDasync alike, "[CUDA memset]".
std::string summary_row_name(std::string_view method);

struct SummaryRow {
  std::string name;
  std::uint64_t calls = 0;
  std::uint64_t total_ns = 0;
  std::uint64_t min_ns = 0;
  std::uint64_t max_ns = 0;
};

class GpuSummary {
 public:
  // One operation of `method` that took `gputime_ns` on the GPU.
  void add(std::string_view method, std::uint64_t gputime_ns);
  // Every operation of `other` (another file's), as if each had been added here.
  void merge(const GpuSummary& other);
  // The rows, longest total first (then by name).
  std::vector<SummaryRow> rows() const;
  bool empty() const { return by_method_.empty(); }

 private:
  struct Totals {
    std::uint64_t calls = 0, total_ns = 0, min_ns = 0, max_ns = 0;
  };
  std::map<std::string, Totals, std::less<>> by_method_;
};

// A duration as nvprof printed it: "992ns", "2.6560us", "183.00us", "1.5741ms",
// "1.70004s".
std::string format_summary_duration(std::uint64_t ns);

// One section of the table, as nvprof had them: "GPU activities", "API calls". Its Type
// cell names it on its first row; Time(%) is a row's share of its section's time.
struct SummarySection {
  std::string_view type;
  std::vector<SummaryRow> rows;
};

// The table under a "Profiling result:" line that starts with `prefix` (nvprof's
// "==<pid>== "), every line ending with a line break: the GPU activities' rows, then
// the other sections' in one table. Without GPU activities, "No kernels were profiled."
// comes first, as nvprof printed it.
std::string format_summary(const std::vector<SummaryRow>& gpu_activities, std::string_view prefix,
                           const std::vector<SummarySection>& other_sections = {});

}  // namespace computeprof::reports
