// libFuzzer target for what `computeprof stats` reads from logs another person wrote:
// the input is a whole key-value or CSV log. Besides the sanitizers' checks, the rows
// read must be consistent (every row has calls, its shortest no longer than its
// longest), and every name they hold must come out of the JSON and CSV tables as valid
// UTF-8 without a raw control character, so that a script reads any table back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "logfmt/log_summary_reader.hpp"
#include "reports/report_table.hpp"
#include "reports/summary_table.hpp"

namespace {

using namespace computeprof;

bool valid_utf8_without_controls(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto lead = static_cast<unsigned char>(s[i]);
    if (lead < 0x20 && lead != '\n') return false;
    std::size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
    if (length == 0 || i + length > s.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view log(reinterpret_cast<const char*>(data), size);
  reports::GpuSummary summary;
  const auto error = logfmt::add_log_to_summary(log, summary);
  if (error && (error->line == 0 || error->what.empty())) __builtin_trap();
  reports::ReportTable table{"rows", "Rows", {{"calls", "Calls"}, {"name", "Name", false}}, {}};
  for (const reports::SummaryRow& row : summary.rows()) {
    if (row.calls == 0 || row.min_ns > row.max_ns) __builtin_trap();
    table.rows.push_back({{row.name, std::to_string(row.calls)}, {row.name, row.name}});
  }
  if (!valid_utf8_without_controls(reports::format_tables_json({table}))) __builtin_trap();
  reports::format_tables_csv({table});
  reports::format_table_text(table);
  return 0;
}
