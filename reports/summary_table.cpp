#include "reports/summary_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "records/kernel_names.hpp"

namespace computeprof::reports {

std::string summary_row_name(std::string_view method) {
  if (method == "memset") return "[CUDA memset]";
  if (method.starts_with("memcpy") && method.size() >= 10) {
    return fmt::format("[CUDA memcpy {}]", method.substr(6, 4));
  }
  return records::demangled_name(method);
}

void GpuSummary::add(std::string_view method, std::uint64_t gputime_ns) {
  auto it = by_method_.find(method);
  if (it == by_method_.end()) it = by_method_.emplace(std::string(method), Totals{0, 0, gputime_ns, gputime_ns}).first;
  Totals& t = it->second;
  ++t.calls;
  t.total_ns += gputime_ns;
  t.min_ns = std::min(t.min_ns, gputime_ns);
  t.max_ns = std::max(t.max_ns, gputime_ns);
}

void GpuSummary::merge(const GpuSummary& other) {
  for (const auto& [method, theirs] : other.by_method_) {
    auto [it, inserted] = by_method_.try_emplace(method, theirs);
    if (inserted) continue;
    Totals& t = it->second;
    t.calls += theirs.calls;
    t.total_ns += theirs.total_ns;
    t.min_ns = std::min(t.min_ns, theirs.min_ns);
    t.max_ns = std::max(t.max_ns, theirs.max_ns);
  }
}

std::vector<SummaryRow> GpuSummary::rows() const {
  std::map<std::string, SummaryRow> merged;
  for (const auto& [method, t] : by_method_) {
    const std::string name = summary_row_name(method);
    auto [it, inserted] = merged.try_emplace(name, SummaryRow{name, 0, 0, t.min_ns, t.max_ns});
    SummaryRow& row = it->second;
    row.calls += t.calls;
    row.total_ns += t.total_ns;
    row.min_ns = std::min(row.min_ns, t.min_ns);
    row.max_ns = std::max(row.max_ns, t.max_ns);
  }
  std::vector<SummaryRow> out;
  for (auto& [name, row] : merged) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(), [](const SummaryRow& a, const SummaryRow& b) { return a.total_ns > b.total_ns; });
  return out;
}

std::string format_summary_duration(std::uint64_t ns) {
  if (ns < 1000) return fmt::format("{}ns", ns);
  // Five significant digits below a second, six from there (nvprof's widths).
  static constexpr struct {
    double scale;
    const char* unit;
    int digits;
  } kUnits[] = {{1e3, "us", 5}, {1e6, "ms", 5}, {1e9, "s", 6}};
  for (std::size_t u = 0; u < std::size(kUnits); ++u) {
    const double v = static_cast<double>(ns) / kUnits[u].scale;
    const int integer_digits = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : 4;
    const int decimals = std::max(0, kUnits[u].digits - integer_digits);
    std::string text = fmt::format("{:.{}f}", v, decimals);
    // Rounding up to 1000 belongs to the next unit.
    if (u + 1 < std::size(kUnits) && std::stod(text) >= 1000.0) continue;
    return text + kUnits[u].unit;
  }
  return fmt::format("{}ns", ns);
}

std::string format_summary(const std::vector<SummaryRow>& gpu_activities, std::string_view prefix,
                           const std::vector<SummarySection>& other_sections) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{}Profiling result:\n", prefix);
  if (gpu_activities.empty()) fmt::format_to(it, "{}No kernels were profiled.\n", prefix);
  const SummarySection gpu{"GPU activities", gpu_activities};
  std::vector<const SummarySection*> sections{&gpu};
  for (const SummarySection& section : other_sections) sections.push_back(&section);
  std::erase_if(sections, [](const SummarySection* section) { return section->rows.empty(); });
  if (sections.empty()) return out;
  fmt::format_to(it, "{:>16}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {}\n", "Type", "Time(%)", "Time", "Calls",
                 "Avg", "Min", "Max", "Name");
  for (const SummarySection* section : sections) {
    std::uint64_t all_ns = 0;
    for (const SummaryRow& row : section->rows) all_ns += row.total_ns;
    const std::string type = fmt::format("{}:", section->type);
    for (std::size_t i = 0; i < section->rows.size(); ++i) {
      const SummaryRow& row = section->rows[i];
      const double percent =
          all_ns == 0 ? 0.0 : 100.0 * static_cast<double>(row.total_ns) / static_cast<double>(all_ns);
      fmt::format_to(it, "{:>16}  {:>7}  {:>8}  {:>8}  {:>8}  {:>8}  {:>8}  {}\n", i == 0 ? type : std::string(),
                     fmt::format("{:.2f}%", percent), format_summary_duration(row.total_ns), row.calls,
                     format_summary_duration(row.total_ns / row.calls), format_summary_duration(row.min_ns),
                     format_summary_duration(row.max_ns), row.name);
    }
  }
  return out;
}

}  // namespace computeprof::reports
