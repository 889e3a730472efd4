#pragma once
// nvprof's "API calls" rows of the summary (docs/format.md, "Summary"): per entry point,
// its calls and their total, average, shortest and longest host time, and the share of
// all calls' time, longest total first; and how many of them failed. The calls `apitrace`
// traces, the calls that made operations (one per correlation id: a graph launch's nodes
// share theirs) and memtrace's allocation calls, as the databases have a call row for
// each. Shared by the shim's `summary` and `computeprof stats`.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "records/api_call.hpp"
#include "records/memory_event.hpp"
#include "records/record.hpp"
#include "reports/summary_table.hpp"

namespace computeprof::reports {

struct ApiSummaryRow {
  SummaryRow time;  // name, calls, total, min, max
  std::uint64_t errors = 0;  // calls that returned an error
};

class ApiSummary {
 public:
  // One call of `name` that took `ns` on its thread; `failed`: it returned an error.
  void add(std::string_view name, std::uint64_t ns, bool failed);
  // A call apitrace traced.
  void add_traced_call(const records::ApiCall& call);
  // The call that made `operation`, unless the operation before it came from the same
  // call (a graph launch's nodes). The driver accepted it: it is recorded only then.
  void add_operation_call(const records::Record& operation);
  // The call that made a memory event (memtrace); recorded only where it succeeded.
  void add_memory_call(const records::MemoryEvent& event);
  // Every call of `other` (another file's), as if each had been added here.
  void merge(const ApiSummary& other);
  // Longest total first (then by name).
  std::vector<ApiSummaryRow> rows() const;
  bool empty() const { return by_name_.empty(); }

 private:
  std::map<std::string, ApiSummaryRow, std::less<>> by_name_;
  std::uint64_t last_operation_call_ = 0;  // correlation id
};

// The rows as the summary's "API calls" section.
SummarySection api_calls_section(const std::vector<ApiSummaryRow>& rows);

}  // namespace computeprof::reports
