#include "exports/run_conversion.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "exports/json_trace_writer.hpp"
#include "exports/nvprof_database_writer.hpp"
#include "exports/pftrace_writer.hpp"
#include "exports/run_facts.hpp"
#include "exports/sqlite_export_writer.hpp"
#include "records/memory_ledger.hpp"

namespace computeprof::exports {

std::string_view export_extension(config::ExportFormat format) {
  switch (format) {
    case config::ExportFormat::json: return ".json";
    case config::ExportFormat::json_gz: return ".json.gz";
    case config::ExportFormat::sqlite: return ".sqlite";
    case config::ExportFormat::nvprof: return ".nvvp";
    case config::ExportFormat::cprof: return ".cprof";
    case config::ExportFormat::pftrace: return ".pftrace";
  }
  return "";
}

std::string_view export_format_name(config::ExportFormat format) {
  switch (format) {
    case config::ExportFormat::json: return "json";
    case config::ExportFormat::json_gz: return "json.gz";
    case config::ExportFormat::sqlite: return "sqlite";
    case config::ExportFormat::nvprof: return "nvprof";
    case config::ExportFormat::cprof: return "cprof";
    case config::ExportFormat::pftrace: return "pftrace";
  }
  return "";
}

namespace {

// Whether the writer asked for its file, and got it.
class TrackedFiles final : public OutputFiles {
 public:
  explicit TrackedFiles(OutputFiles& files) : files_(files) {}
  bool open(logfmt::LogFile& file, std::string_view extension) override {
    asked_ = true;
    const bool opened = files_.open(file, extension);
    opened_ = opened_ || opened;
    return opened;
  }
  bool failed() const { return asked_ && !opened_; }

 private:
  OutputFiles& files_;
  bool asked_ = false;
  bool opened_ = false;
};

std::unique_ptr<ExportWriter> make_writer(config::ExportFormat format, const RunFacts& facts, OutputFiles& files) {
  switch (format) {
    case config::ExportFormat::json: return std::make_unique<JsonTraceWriter>(facts, files, TraceCompression::none);
    case config::ExportFormat::json_gz: return std::make_unique<JsonTraceWriter>(facts, files, TraceCompression::gzip);
    case config::ExportFormat::sqlite: return std::make_unique<SqliteExportWriter>(facts, files);
    case config::ExportFormat::nvprof: return std::make_unique<NvprofDatabaseWriter>(facts, files);
    case config::ExportFormat::pftrace: return std::make_unique<PftraceWriter>(facts, files);
    case config::ExportFormat::cprof: break;
  }
  return nullptr;
}

// The run's records to the writer, begun before the first one, with a flush after
// every batch (the writer writes through when a batch is large enough, as it did live).
class Replay final : public runfile::RunVisitor {
 public:
  static constexpr std::uint64_t kBatch = 4096;

  Replay(RunFacts& facts, ExportWriter& writer, const ConversionProgress& progress, std::uint64_t total)
      : facts_(facts), writer_(writer), progress_(progress), total_(total) {}

  void operation(const records::ContextInfo& context, const records::Record& record) override {
    begin();
    writer_.write(context, record);
    tick();
  }
  void memory(const records::MemoryEvent& event) override {
    begin();
    // Completed again by a ledger of the run's events so far (the same answer the
    // process's ledger gave), which the writer reads as the memory picture.
    records::MemoryEvent completed = event;
    ledger_.apply(completed);
    writer_.write_memory(completed, ledger_);
    tick();
  }
  void range(const records::RangeEvent& event) override {
    begin();
    writer_.write_range(event);
    tick();
  }
  void api_call(const records::ApiCall& call) override {
    begin();
    writer_.write_api_call(call);
    tick();
  }
  void facts(const runfile::ProcessFacts& f) override {
    facts_.cuda_runtime_present = f.cuda_runtime_present;
    if (f.export_wall_ns != 0) facts_.clocks = {f.export_wall_ns, f.export_monotonic_ns};
  }
  void chunk_read(std::uint64_t bytes) override {
    if (progress_) progress_(bytes, total_);
  }
  void finish() {
    if (begun_) writer_.end();
  }

 private:
  void begin() {
    if (begun_) return;
    begun_ = true;
    writer_.begin();
  }
  void tick() {
    if (++since_flush_ == kBatch) {
      since_flush_ = 0;
      writer_.flush();
    }
  }

  RunFacts& facts_;
  ExportWriter& writer_;
  const ConversionProgress& progress_;
  std::uint64_t total_;
  records::MemoryLedger ledger_;
  std::uint64_t since_flush_ = 0;
  bool begun_ = false;
};

}  // namespace

ConversionResult convert_run(std::string_view run, config::ExportFormat format, OutputFiles& files,
                             const ConversionProgress& progress) {
  ConversionResult result;
  runfile::RunReader reader(run);
  const runfile::RunHeader* header = reader.header();
  if (header == nullptr) {
    result.summary.error = reader.header_error();
    return result;
  }
  RunFacts facts;
  facts.pid = header->pid;
  facts.program_name = header->program;
  facts.host_name = header->host;
  facts.distributed_rank = header->rank;
  facts.clocks = {header->wall_ns, header->monotonic_ns};
  for (std::uint16_t id : header->counters) facts.counters.push_back(id);
  facts.export_limit = header->export_limit;
  facts.ranges = &reader.ranges();
  facts.stack = [&reader](std::uint32_t id) -> const std::vector<symbols::Frame>& { return reader.stack(id); };
  TrackedFiles tracked(files);
  const std::unique_ptr<ExportWriter> writer = make_writer(format, facts, tracked);
  if (!writer) return result;
  Replay replay(facts, *writer, progress, run.size());
  result.summary = reader.read(replay);
  replay.finish();
  result.not_written = tracked.failed();
  return result;
}


namespace {

struct ParallelConversion {
  std::string_view run;
  ExportTarget* target = nullptr;
  std::atomic<std::uint64_t> read{0};
  std::atomic<bool> done{false};
};

void* convert_target(void* argument) {
  auto* c = static_cast<ParallelConversion*>(argument);
  pthread_setname_np(pthread_self(), "cprof-export");
  c->target->result = convert_run(c->run, c->target->format, *c->target->files,
                                  [c](std::uint64_t read, std::uint64_t) { c->read.store(read); });
  c->done.store(true);
  return nullptr;
}

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

void write_stderr(std::string_view text) {
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
}

}  // namespace

void convert_run_in_parallel(std::string_view run, std::span<ExportTarget> targets) {
  std::vector<ParallelConversion> conversions(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    conversions[i].run = run;
    conversions[i].target = &targets[i];
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  std::vector<pthread_t> threads(conversions.size());
  std::vector<bool> started(conversions.size());
  for (std::size_t i = 0; i < conversions.size(); ++i) {
    started[i] = pthread_create(&threads[i], nullptr, convert_target, &conversions[i]) == 0;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  for (std::size_t i = 0; i < conversions.size(); ++i) {
    if (!started[i]) convert_target(&conversions[i]);
  }
  const bool terminal = isatty(STDERR_FILENO) == 1;
  std::uint64_t next_progress = monotonic_ns() + 2'000'000'000ULL;
  bool progress_shown = false;
  for (;;) {
    const bool all_done = std::all_of(conversions.begin(), conversions.end(),
                                      [](const ParallelConversion& c) { return c.done.load(); });
    if (all_done) break;
    if (terminal && monotonic_ns() >= next_progress) {
      std::uint64_t read = 0;
      for (const ParallelConversion& c : conversions) read += c.read.load();
      const std::uint64_t total = std::max<std::uint64_t>(run.size() * conversions.size(), 1);
      write_stderr(fmt::format("\rcomputeprof: exports {:3}% ", read * 100 / total));
      progress_shown = true;
      next_progress = monotonic_ns() + 500'000'000ULL;
    }
    const timespec pause{0, 20'000'000};
    nanosleep(&pause, nullptr);
  }
  if (progress_shown) write_stderr("\rcomputeprof: exports 100%\n");
  for (std::size_t i = 0; i < conversions.size(); ++i) {
    if (started[i]) pthread_join(threads[i], nullptr);
  }
}

}  // namespace computeprof::exports
