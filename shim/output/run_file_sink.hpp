#pragma once
// The run file (docs/format.md, "Run file"): with any export or the flight recorder,
// the process's one process-wide output while it runs. On the writer thread each
// record is encoded into the chunk being gathered (runfile/run_encoder.hpp); a chunk
// is written at each flush point, or once it holds kChunkBytes, in one write, so that a
// killed process leaves every record up to its last flush readable. No export is
// written while the program runs: when the sink ends, the file is closed and handed to
// `finished` (the exports at exit, exit_exports.hpp).
#include <cstddef>
#include <functional>
#include <string>

#include "logfmt/log_file.hpp"
#include "runfile/run_encoder.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class RunFileSink final : public RecordSink {
 public:
  // A chunk is written once it holds this many bytes, flush point or not.
  static constexpr std::size_t kChunkBytes = 1 << 20;
  // The run file's path once it is whole and closed; "" when none could be made.
  using Finished = std::function<void(const std::string& path)>;

  // `log_template`: the exports' stem is made from it (the log's own, or a flight
  // recorder dump's).
  RunFileSink(const config::Settings& settings, std::string log_template, Finished finished);

  void begin() override;
  void write(const ProfiledContext& context, const records::Record& record) override;
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  void write_range(const records::RangeEvent& event) override;
  void write_api_call(const records::ApiCall& call) override;
  void flush() override;
  void end() override;
  void abandon() override;

 private:
  // Before the first record of each chunk: what the exports must know before it.
  void start_chunk();
  void write_chunk();

  const config::Settings& settings_;
  std::string log_template_;
  Finished finished_;
  logfmt::LogFile file_;
  runfile::RunEncoder encoder_;
  bool chunk_started_ = false;
  bool ended_ = false;
};

}  // namespace computeprof::shim
