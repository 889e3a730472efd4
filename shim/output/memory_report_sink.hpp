#pragma once
// memtrace's own outputs (docs/format.md, "Memory report" and "Memory picture"): the
// report `<log stem>.memory` and the picture `<log stem>_memory.svg`, written again at
// each flush point the program makes and at its end, and a short summary on stderr
// when the process ends.
#include "logfmt/log_file.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class MemoryReportSink final : public RecordSink {
 public:
  explicit MemoryReportSink(const config::Settings& settings) : settings_(settings) {}

  void begin() override {}
  void write(const ProfiledContext&, const records::Record&) override {}
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  void flush() override {}
  void checkpoint() override;
  void end() override;
  void abandon() override;

 private:
  void write_files();

  const config::Settings& settings_;
  const records::MemoryLedger* ledger_ = nullptr;  // RecordOutputs', set by the first event
  logfmt::LogFile report_;
  logfmt::LogFile picture_;
  bool opened_ = false;
  bool changed_ = false;
  bool ended_ = false;
};

}  // namespace computeprof::shim
