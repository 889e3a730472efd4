#include "reports/api_summary.hpp"

#include <algorithm>

namespace computeprof::reports {

void ApiSummary::add(std::string_view name, std::uint64_t ns, bool failed) {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    it = by_name_.emplace(std::string(name), ApiSummaryRow{{std::string(name), 0, 0, ns, ns}, 0}).first;
  }
  ApiSummaryRow& row = it->second;
  ++row.time.calls;
  row.time.total_ns += ns;
  row.time.min_ns = std::min(row.time.min_ns, ns);
  row.time.max_ns = std::max(row.time.max_ns, ns);
  if (failed) ++row.errors;
}

void ApiSummary::add_traced_call(const records::ApiCall& call) {
  add(call.name, call.end_ns > call.start_ns ? call.end_ns - call.start_ns : 0, call.result != 0);
}

void ApiSummary::add_operation_call(const records::Record& operation) {
  if (operation.correlation_id != 0 && operation.correlation_id == last_operation_call_) return;
  last_operation_call_ = operation.correlation_id;
  add(operation.api, operation.cputime_ns, false);
}

void ApiSummary::add_memory_call(const records::MemoryEvent& event) {
  add(event.api, event.wall_ns > event.start_ns ? event.wall_ns - event.start_ns : 0, false);
}

void ApiSummary::merge(const ApiSummary& other) {
  for (const auto& [name, theirs] : other.by_name_) {
    auto [it, inserted] = by_name_.try_emplace(name, theirs);
    if (inserted) continue;
    ApiSummaryRow& row = it->second;
    row.time.calls += theirs.time.calls;
    row.time.total_ns += theirs.time.total_ns;
    row.time.min_ns = std::min(row.time.min_ns, theirs.time.min_ns);
    row.time.max_ns = std::max(row.time.max_ns, theirs.time.max_ns);
    row.errors += theirs.errors;
  }
}

std::vector<ApiSummaryRow> ApiSummary::rows() const {
  std::vector<ApiSummaryRow> out;
  for (const auto& [name, row] : by_name_) out.push_back(row);
  std::stable_sort(out.begin(), out.end(),
                   [](const ApiSummaryRow& a, const ApiSummaryRow& b) { return a.time.total_ns > b.time.total_ns; });
  return out;
}

SummarySection api_calls_section(const std::vector<ApiSummaryRow>& rows) {
  SummarySection section{"API calls", {}};
  for (const ApiSummaryRow& row : rows) section.rows.push_back(row.time);
  return section;
}

}  // namespace computeprof::reports
