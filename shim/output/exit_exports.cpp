#include "shim/output/exit_exports.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "config/report.hpp"
#include "exports/run_conversion.hpp"
#include "runfile/file_bytes.hpp"
#include "shim/output/log_paths.hpp"

namespace computeprof::shim {

namespace {

constexpr config::ExportFormat kConverted[] = {config::ExportFormat::json, config::ExportFormat::json_gz,
                                               config::ExportFormat::sqlite, config::ExportFormat::nvprof};

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

struct Conversion {
  config::ExportFormat format;
  const std::string* run_path;
  ClaimedPath* files;
  std::atomic<std::uint64_t> read{0};
  std::atomic<std::uint64_t> total{1};
  std::atomic<bool> done{false};
  exports::ConversionResult result;
  std::string unreadable;  // why the run file could not be read
};

void* convert(void* argument) {
  auto* c = static_cast<Conversion*>(argument);
  std::string why;
  if (auto bytes = runfile::read_file_bytes(*c->run_path, why)) {
    c->total.store(std::max<std::uint64_t>(bytes->size(), 1));
    c->result = exports::convert_run(*bytes, c->format, *c->files,
                                     [c](std::uint64_t read, std::uint64_t) { c->read.store(read); });
  } else {
    c->unreadable = why;
  }
  c->done.store(true);
  return nullptr;
}

std::uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

// Runs every conversion on a thread of its own (signals blocked, as every thread of
// the shim's) and waits for them; on a terminal, after two seconds, one line of
// progress is redrawn every half second.
void run_conversions(std::vector<Conversion>& conversions) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  std::vector<pthread_t> threads(conversions.size());
  std::vector<bool> started(conversions.size());
  for (std::size_t i = 0; i < conversions.size(); ++i) {
    started[i] = pthread_create(&threads[i], nullptr, convert, &conversions[i]) == 0;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  for (std::size_t i = 0; i < conversions.size(); ++i) {
    if (!started[i]) convert(&conversions[i]);  // no thread: here, one after another
  }
  const bool terminal = isatty(STDERR_FILENO) == 1;
  const std::uint64_t start = now_ns();
  std::uint64_t next_progress = start + 2'000'000'000ULL;
  bool progress_shown = false;
  for (;;) {
    bool all_done = true;
    std::uint64_t read = 0, total = 0;
    for (const Conversion& c : conversions) {
      all_done = all_done && c.done.load();
      read += c.read.load();
      total += c.total.load();
    }
    if (all_done) break;
    if (terminal && now_ns() >= next_progress) {
      const std::string line = fmt::format("\rcomputeprof: exports {:3}% ", read * 100 / std::max<std::uint64_t>(total, 1));
      progress_shown = ::write(STDERR_FILENO, line.data(), line.size()) > 0 || progress_shown;
      next_progress = now_ns() + 500'000'000ULL;
    }
    const timespec pause{0, 20'000'000};
    nanosleep(&pause, nullptr);
  }
  if (progress_shown) {
    const std::string_view clear = "\rcomputeprof: exports 100%\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, clear.data(), clear.size());
  }
  for (std::size_t i = 0; i < conversions.size(); ++i) {
    if (started[i]) pthread_join(threads[i], nullptr);
  }
}

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
  for (config::ExportFormat f : kConverted) {
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
    const std::string& path = paths.emplace_back(claim_export_path(log_template, exports::export_extension(f)), opening).path();
    written += written.empty() ? "" : ", ";
    written += config::escape_for_warning(path);
  }
  // Said where a person watches; a program's captured stderr stays as it was.
  if (isatty(STDERR_FILENO) == 1) config::warn(fmt::format("writing {} from '{}'", written, run));
  std::vector<Conversion> conversions(formats.size());
  for (std::size_t i = 0; i < formats.size(); ++i) {
    conversions[i].format = formats[i];
    conversions[i].run_path = &run_path;
    conversions[i].files = &paths[i];
  }
  run_conversions(conversions);

  bool failed = false;
  for (const Conversion& c : conversions) {
    const std::string_view name = exports::export_format_name(c.format);
    if (!c.unreadable.empty()) {
      failed = true;
      config::warn(fmt::format("export {}: the run file '{}' cannot be read: {}", name, run, c.unreadable));
    } else if (const auto& error = c.result.summary.error) {
      failed = true;
      config::warn(fmt::format("export {}: the run file '{}' is damaged at byte {}: {}; the records before it are "
                               "written",
                               name, run, error->offset, error->what));
    } else if (c.result.not_written) {
      failed = true;
    }
  }
  if (failed) {
    config::warn(fmt::format("the run file '{}' is kept: convert it again with: computeprof export '{}' --to {} -f", run,
                             run, formats_text(formats)));
  } else if (!config.exports_to(config::ExportFormat::cprof)) {
    ::unlink(run_path.c_str());
  }
}

}  // namespace computeprof::shim
