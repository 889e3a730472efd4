#include "shim/output/exit_exports.hpp"

#include <unistd.h>

#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "config/report.hpp"
#include "exports/run_conversion.hpp"
#include "runfile/file_bytes.hpp"
#include "shim/output/log_paths.hpp"

namespace computeprof::shim {

namespace {

// Opens the path claimed for the export; one open at a time (the path registry and the
// log index are the writer thread's, and the exports' threads share them here).
class ClaimedPath final : public exports::OutputFiles {
 public:
  ClaimedPath(std::string path, std::mutex& opening) : path_(std::move(path)), opening_(opening) {}
  bool open(logfmt::LogFile& file, std::string_view) override {
    std::lock_guard lock(opening_);
    return open_output_file(file, path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::mutex& opening_;
};

std::string formats_text(const std::vector<config::ExportFormat>& formats) {
  std::string text;
  for (config::ExportFormat f : formats) {
    if (!text.empty()) text += ',';
    text += exports::export_format_name(f);
  }
  return text;
}

}  // namespace

void make_exports_from_run(const config::ProfileConfig& config, const std::string& log_template,
                           const std::string& run_path) {
  if (run_path.empty()) return;
  std::vector<config::ExportFormat> formats;
  for (config::ExportFormat f : exports::kConvertedFormats) {
    if (config.exports_to(f)) formats.push_back(f);
  }
  const std::string run = config::escape_for_warning(run_path);
  if (config.export_later) {
    if (!formats.empty()) {
      config::warn(fmt::format("the run is in '{}'; make its exports with: computeprof export '{}' --to {}", run, run,
                               formats_text(formats)));
    }
    return;
  }
  if (formats.empty()) return;

  std::mutex opening;
  std::vector<ClaimedPath> paths;
  paths.reserve(formats.size());
  std::string written;
  for (config::ExportFormat f : formats) {
    const ClaimedPath& claimed =
        paths.emplace_back(claim_export_path(log_template, exports::export_extension(f)), opening);
    written += written.empty() ? "" : ", ";
    written += config::escape_for_warning(claimed.path());
  }
  // The process may take seconds more to end: the line says why, and where the files
  // go, unless a launcher says where they went.
  if (!launcher_lists_outputs()) config::warn(fmt::format("writing {} from '{}'", written, run));

  bool failed = false;
  std::string why;
  if (const auto bytes = runfile::read_file_bytes(run_path, why)) {
    std::vector<exports::ExportTarget> targets(formats.size());
    for (std::size_t i = 0; i < formats.size(); ++i) targets[i] = {formats[i], &paths[i], {}};
    exports::convert_run_in_parallel(*bytes, targets);
    // Every target read the same bytes: the same damage, said once.
    if (const auto& error = targets.front().result.summary.error) {
      config::warn(fmt::format("the run file '{}' is damaged at byte {}: {}; the records before it are written", run,
                               error->offset, error->what));
      failed = true;
    }
    for (const exports::ExportTarget& t : targets) failed = failed || t.result.not_written;
  } else {
    failed = true;
    config::warn(fmt::format("the run file '{}' cannot be read: {}", run, why));
  }
  if (failed) {
    config::warn(fmt::format("the run file '{}' is kept: convert it again with: computeprof export '{}' --to {} -f", run,
                             run, formats_text(formats)));
  } else if (!config.exports_to(config::ExportFormat::cprof)) {
    ::unlink(run_path.c_str());
  }
}

}  // namespace computeprof::shim
