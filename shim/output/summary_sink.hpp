#pragma once
// `summary`: nvprof's table of GPU activities, printed on stderr when the process ends
// (docs/format.md, "Summary").
#include "formats/summary_table.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class SummarySink final : public RecordSink {
 public:
  void begin() override {}
  void write(const ProfiledContext& context, const records::Record& record) override;
  void flush() override {}
  // The process ends: the table, once.
  void end() override;
  void abandon() override { summary_ = {}; }

 private:
  formats::GpuSummary summary_;
  bool printed_ = false;
};

}  // namespace computeprof::shim
