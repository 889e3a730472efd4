#pragma once
// `callstack`: the stacks the records and memory events name, `<log stem>.stacks`
// (docs/format.md, "Call stacks"): each written once, when a record first names it,
// symbolized then by this (the writer) thread; beside it `<log stem>.modules`, the
// modules the stacks name with their build-ids, rewritten when one is added.
#include <cstdint>
#include <set>

#include "logfmt/log_file.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class StackFileSink final : public RecordSink {
 public:
  explicit StackFileSink(const config::Settings& settings) : settings_(settings) {}

  void begin() override;
  void write(const ProfiledContext& context, const records::Record& record) override;
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  void flush() override;
  void end() override;
  void abandon() override;

 private:
  void write_stack(std::uint32_t id);
  void write_modules();

  const config::Settings& settings_;
  logfmt::LogFile file_;
  logfmt::LogFile modules_;
  std::size_t modules_written_ = 0;
  std::set<std::uint32_t> written_;
};

}  // namespace computeprof::shim
