#pragma once
// A process-wide export (exports/export_writer.hpp) as a sink of this process's records:
// every call handed on to the writer, which learns of the process from facts the sink
// keeps up to date (exports/run_facts.hpp) and writes to files at paths claimed from
// the log template (log_paths.hpp).
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "config/environment.hpp"
#include "exports/export_writer.hpp"
#include "exports/output_files.hpp"
#include "exports/run_facts.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class ExportWriterSink final : public RecordSink {
 public:
  using MakeWriter =
      std::function<std::unique_ptr<exports::ExportWriter>(const exports::RunFacts&, exports::OutputFiles&)>;

  // The writer `make` returns, given facts and files the sink keeps for its life; the
  // sink keeps nothing of `settings` by reference.
  ExportWriterSink(const config::Settings& settings, const MakeWriter& make);
  ExportWriterSink(const ExportWriterSink&) = delete;
  ExportWriterSink& operator=(const ExportWriterSink&) = delete;

  void begin() override;
  void write(const ProfiledContext& context, const records::Record& record) override;
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  void write_range(const records::RangeEvent& event) override;
  void flush() override;
  void checkpoint() override;
  void end() override;
  void abandon() override;

 private:
  // The exports' files at the paths claimed for the whole process (claim_export_path).
  class ClaimedFiles final : public exports::OutputFiles {
   public:
    explicit ClaimedFiles(std::string log_template) : log_template_(std::move(log_template)) {}
    bool open(logfmt::LogFile& file, std::string_view extension) override;

   private:
    std::string log_template_;
  };

  // The exports' time 0 once the process has one (export_base_clocks: the first
  // context's origin, or with memtrace the settings' reading), before a writer reads it.
  void settle_clocks();

  exports::RunFacts facts_;
  ClaimedFiles files_;
  std::unique_ptr<exports::ExportWriter> writer_;
};

}  // namespace computeprof::shim
