#include "shim/output/export_writer_sink.hpp"

#include <limits.h>
#include <unistd.h>

#include <cerrno>  // program_invocation_short_name

#include "config/distributed_rank.hpp"
#include "shim/output/log_paths.hpp"
#include "shim/process/call_stacks.hpp"
#include "shim/process/cuda_runtime_presence.hpp"

namespace computeprof::shim {

bool ExportWriterSink::ClaimedFiles::open(logfmt::LogFile& file, std::string_view extension) {
  return open_output_file(file, claim_export_path(log_template_, extension));
}

ExportWriterSink::ExportWriterSink(const config::Settings& settings, const MakeWriter& make)
    : files_(settings.log_template) {
  facts_.pid = static_cast<std::uint64_t>(getpid());
  facts_.program_name = program_invocation_short_name;
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0) facts_.host_name = host;
  facts_.distributed_rank = config::distributed_rank(config::process_env, nullptr);
  for (std::size_t id = 0; id < config::kLegacyCounterCount; ++id) {
    if (settings.config.counters.test(id)) facts_.counters.push_back(id);
  }
  facts_.export_limit = settings.config.export_limit;
  facts_.ranges = &records::range_table();
  facts_.stack = symbolized_stack;
  writer_ = make(facts_, files_);
}

void ExportWriterSink::settle_clocks() {
  if (facts_.clocks.wall_ns == 0) facts_.clocks = export_base_clocks();
}

void ExportWriterSink::begin() {
  settle_clocks();
  writer_->begin();
}

void ExportWriterSink::write(const ProfiledContext& context, const records::Record& record) {
  settle_clocks();
  facts_.cuda_runtime_present = cuda_runtime_present();
  writer_->write(context, record);
}

void ExportWriterSink::write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) {
  settle_clocks();
  facts_.cuda_runtime_present = cuda_runtime_present();
  writer_->write_memory(event, ledger);
}

void ExportWriterSink::write_range(const records::RangeEvent& event) {
  settle_clocks();
  writer_->write_range(event);
}

void ExportWriterSink::flush() {
  settle_clocks();
  writer_->flush();
}

void ExportWriterSink::checkpoint() {
  settle_clocks();
  writer_->checkpoint();
}

void ExportWriterSink::end() {
  settle_clocks();
  writer_->end();
}

void ExportWriterSink::abandon() { writer_->abandon(); }

}  // namespace computeprof::shim
