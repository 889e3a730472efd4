#include "reports/range_summary.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "reports/summary_table.hpp"

namespace computeprof::reports {

RangeSummaryRow& RangeSummary::row(std::string_view name) {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) it = by_name_.emplace(std::string(name), RangeSummaryRow{std::string(name)}).first;
  return it->second;
}

void RangeSummary::add_range(std::string_view name, std::uint64_t wall_ns) {
  RangeSummaryRow& r = row(name);
  r.min_ns = r.instances == 0 ? wall_ns : std::min(r.min_ns, wall_ns);
  r.max_ns = std::max(r.max_ns, wall_ns);
  ++r.instances;
  r.total_ns += wall_ns;
}

void RangeSummary::add_gpu_time(std::span<const std::string> names, std::uint64_t gputime_ns) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
        names.begin() + static_cast<std::ptrdiff_t>(i)) {
      continue;  // nested in itself: counted once
    }
    row(names[i]).gpu_ns += gputime_ns;
  }
}

void RangeSummary::add_gpu_time_of_path(std::string_view path, std::uint64_t gputime_ns) {
  std::vector<std::string> names;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    names.emplace_back(path.substr(0, slash));
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  add_gpu_time(names, gputime_ns);
}

void RangeSummary::merge(const RangeSummary& other) {
  for (const auto& [name, theirs] : other.by_name_) {
    RangeSummaryRow& r = row(name);
    if (theirs.instances > 0) {
      r.min_ns = r.instances == 0 ? theirs.min_ns : std::min(r.min_ns, theirs.min_ns);
      r.max_ns = std::max(r.max_ns, theirs.max_ns);
    }
    r.instances += theirs.instances;
    r.total_ns += theirs.total_ns;
    r.gpu_ns += theirs.gpu_ns;
  }
}

std::vector<RangeSummaryRow> RangeSummary::rows() const {
  std::vector<RangeSummaryRow> out;
  for (const auto& [name, row] : by_name_) out.push_back(row);
  std::stable_sort(out.begin(), out.end(), [](const RangeSummaryRow& a, const RangeSummaryRow& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.gpu_ns > b.gpu_ns;
  });
  return out;
}

std::string format_range_summary(const std::vector<RangeSummaryRow>& rows, std::string_view prefix) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{}NVTX ranges:\n", prefix);
  fmt::format_to(it, "{:>9}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {}\n", "Instances", "Time", "Avg", "Min", "Max",
                 "GPU time", "Name");
  for (const RangeSummaryRow& r : rows) {
    const auto duration = [&](std::uint64_t ns) { return r.instances == 0 ? std::string("-") : format_summary_duration(ns); };
    fmt::format_to(it, "{:>9}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {}\n", r.instances, duration(r.total_ns),
                   duration(r.instances == 0 ? 0 : r.total_ns / r.instances), duration(r.min_ns),
                   duration(r.max_ns), format_summary_duration(r.gpu_ns), r.name);
  }
  return out;
}

}  // namespace computeprof::reports
