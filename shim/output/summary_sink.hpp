#pragma once
// `summary`: nvprof's table of GPU activities, printed on stderr when the process ends
// (docs/format.md, "Summary"), with its API calls where apitrace is on, the table of
// NVTX ranges where the program had any, and why each GPU sat idle where API calls were
// traced ("GPU idle"). With apitrace on it holds every CUDA operation's times and every
// traced call until the end for the idle table; the API calls are added up as they come
// (one row per entry point).
#include <string>
#include <unordered_map>
#include <vector>

#include "reports/api_summary.hpp"
#include "reports/gpu_idle.hpp"
#include "reports/range_summary.hpp"
#include "reports/summary_table.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class SummarySink final : public RecordSink {
 public:
  // `traces_api_calls`: apitrace is on, so the API calls and idle tables may be printed.
  explicit SummarySink(bool traces_api_calls) : traces_api_calls_(traces_api_calls) {}
  void begin() override {}
  void write(const ProfiledContext& context, const records::Record& record) override;
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  void write_range(const records::RangeEvent& event) override;
  void write_api_call(const records::ApiCall& call) override;
  void flush() override {}
  // The process ends: the table, once.
  void end() override;
  void abandon() override {
    summary_ = {};
    api_calls_ = {};
    ranges_ = {};
    idle_ = {};
  }

 private:
  // The names of a path's ranges, outermost first (worked out once per path).
  const std::vector<std::string>& range_names(std::uint32_t path);

  reports::GpuSummary summary_;
  reports::ApiSummary api_calls_;
  reports::RangeSummary ranges_;
  const bool traces_api_calls_;
  reports::GpuIdleInput idle_;
  bool traced_calls_ = false;
  std::unordered_map<std::uint32_t, std::vector<std::string>> path_names_;
  bool printed_ = false;
};

}  // namespace computeprof::shim
