#include "shim/output/memory_report_sink.hpp"

#include <unistd.h>

#include "config/report.hpp"
#include "reports/memory_report.hpp"
#include "reports/memory_svg.hpp"
#include "shim/output/log_paths.hpp"
#include "shim/process/call_stacks.hpp"

namespace computeprof::shim {

void MemoryReportSink::write_memory(const records::MemoryEvent&, const records::MemoryLedger& ledger) {
  ledger_ = &ledger;
  changed_ = true;
}

void MemoryReportSink::write_files() {
  if (!ledger_ || !changed_) return;
  changed_ = false;
  if (!opened_) {
    // Claimed and opened when there is something to say: a process that allocates
    // nothing leaves no empty report.
    opened_ = true;
    open_output_file(report_, claim_export_path(settings_.log_template, ".memory"));
    open_output_file(picture_, claim_export_path(settings_.log_template, "_memory.svg"));
  }
  const auto call_site = [](std::uint32_t stack) {
    const auto& frames = symbolized_stack(stack);
    return frames.empty() ? std::string("??") : describe_frame(frames.front());
  };
  if (report_.is_open()) report_.rewrite(reports::memory_report(*ledger_, call_site));
  if (picture_.is_open()) picture_.rewrite(reports::memory_svg(*ledger_));
}

void MemoryReportSink::checkpoint() { write_files(); }

void MemoryReportSink::end() {
  if (ended_) return;
  ended_ = true;
  write_files();
  if (!ledger_ || !report_.is_open()) return;
  const std::string summary =
      reports::memory_report_summary(*ledger_, config::escape_for_warning(report_.path()));
  // One write: the lines stay whole beside the program's own output.
  std::string_view rest = summary;
  while (!rest.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
    if (n <= 0) break;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  report_.close();
  picture_.close();
}

void MemoryReportSink::abandon() {
  report_.abandon();
  picture_.abandon();
  ledger_ = nullptr;
}

}  // namespace computeprof::shim
