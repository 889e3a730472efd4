#pragma once
// `summary`: nvprof's table of GPU activities, printed on stderr when the process ends
// (docs/format.md, "Summary"), and the table of NVTX ranges where the program had any.
#include <string>
#include <unordered_map>
#include <vector>

#include "reports/range_summary.hpp"
#include "reports/summary_table.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class SummarySink final : public RecordSink {
 public:
  void begin() override {}
  void write(const ProfiledContext& context, const records::Record& record) override;
  void write_range(const records::RangeEvent& event) override;
  void flush() override {}
  // The process ends: the table, once.
  void end() override;
  void abandon() override {
    summary_ = {};
    ranges_ = {};
  }

 private:
  // The names of a path's ranges, outermost first (worked out once per path).
  const std::vector<std::string>& range_names(std::uint32_t path);

  reports::GpuSummary summary_;
  reports::RangeSummary ranges_;
  std::unordered_map<std::uint32_t, std::vector<std::string>> path_names_;
  bool printed_ = false;
};

}  // namespace computeprof::shim
