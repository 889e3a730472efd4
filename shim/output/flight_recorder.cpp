#include "shim/output/flight_recorder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "config/report.hpp"
#include "logfmt/export_path.hpp"
#include "runfile/run_header.hpp"
#include "runfile/run_reader.hpp"
#include "shim/process/secure_execution.hpp"

namespace computeprof::shim {
namespace {

std::uint64_t wall_now_ns() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

// Names carry no time: they stay, so that a window's threads keep their names.
bool is_name(const records::RangeEvent& event) {
  using Kind = records::RangeEventKind;
  return event.kind == Kind::thread_name || event.kind == Kind::category_name || event.kind == Kind::domain_create ||
         event.kind == Kind::domain_destroy;
}

// A dump gives up looking for a free number after this many taken ones.
constexpr unsigned kDumpNumberTries = 1000;

// Operations handed to a dump's sinks between two of their flushes.
constexpr std::size_t kDumpBatch = 4096;

}  // namespace

FlightRecorder::FlightRecorder(std::uint64_t window_ns, std::string log_template, std::string trigger_path,
                               ExportSinks make_exports, ExportPaths export_paths, std::size_t max_window_mib)
    : window_ns_(window_ns),
      log_template_(std::move(log_template)),
      trigger_path_(std::move(trigger_path)),
      make_exports_(std::move(make_exports)),
      export_paths_(std::move(export_paths)),
      max_window_mib_(max_window_mib),
      // No call stacks' frames: a dump's run file writes them from the process's own.
      encoder_(records::range_table(), nullptr, runfile::DictionaryPlacement::apart) {}

FlightRecorder::~FlightRecorder() = default;

std::uint64_t FlightRecorder::time_of(const records::ContextInfo& context, const records::Record& record) {
  // Its GPU work's end; a record without GPU times, its call.
  if (record.gpu_end_ns != 0) return record.gpu_end_ns;
  return context.origin.wall_ns + record.timestamp_ns;
}

std::uint64_t FlightRecorder::window_start(std::uint64_t now_wall_ns) const {
  return now_wall_ns > window_ns_ ? now_wall_ns - window_ns_ : 0;
}

void FlightRecorder::write(const ProfiledContext& context, const records::Record& record) {
  if (ended_) return;
  encoder_.operation(context, record);
  const auto number = static_cast<std::size_t>(context.number);
  if (contexts_.size() <= number) contexts_.resize(number + 1);
  contexts_[number] = &context;
  encoded(time_of(context, record), &Chunk::operations);
}

void FlightRecorder::write_range(const records::RangeEvent& event) {
  if (ended_) return;
  if (is_name(event)) {
    if (names_.size() < kMaxNames) names_.push_back(event);
    return;
  }
  encoder_.range(event);
  encoded(time_of(event), &Chunk::range_events);
}

void FlightRecorder::write_api_call(const records::ApiCall& call) {
  if (ended_) return;
  encoder_.api_call(call);
  encoded(call.end_ns, &Chunk::api_calls);
}

void FlightRecorder::encoded(std::uint64_t time, std::uint64_t Chunk::*count) {
  ++(open_.*count);
  open_.newest_ns = std::max(open_.newest_ns, time);
  newest_ns_ = std::max(newest_ns_, time);
  if (encoder_.pending_bytes() >= kChunkBytes) close_chunk();
  forget_before(newest_ns_);
}

void FlightRecorder::close_chunk() {
  const std::string_view bytes = encoder_.take_chunk();
  if (!bytes.empty()) {
    open_.bytes.assign(bytes);
    window_bytes_ += open_.bytes.size();
    window_.push_back(std::move(open_));
  }
  open_ = {};
  dictionary_ += encoder_.take_dictionary();
}

void FlightRecorder::forget_before(std::uint64_t now_wall_ns) {
  // A chunk goes once all its records ended before the window; records are in the
  // order they completed, not always of their ends, so a chunk is judged by its newest.
  const std::uint64_t start = window_start(now_wall_ns);
  auto drop_front = [&] {
    window_bytes_ -= window_.front().bytes.size();
    window_.pop_front();
  };
  while (!window_.empty() && window_.front().newest_ns < start) drop_front();
  const std::size_t bound = max_window_mib_ << 20;
  while (!window_.empty() && window_bytes_ + encoder_.pending_bytes() > bound) {
    dropped_operations_ += window_.front().operations;
    dropped_range_events_ += window_.front().range_events;
    dropped_api_calls_ += window_.front().api_calls;
    drop_front();
  }
}

namespace {

// The window read back, what ended within it handed to the dump's sinks.
class WindowReplay final : public runfile::RunVisitor {
 public:
  WindowReplay(SinkList& sinks, const std::vector<const ProfiledContext*>& contexts, std::uint64_t start,
               std::uint64_t (*operation_time)(const records::ContextInfo&, const records::Record&))
      : sinks_(sinks), contexts_(contexts), start_(start), operation_time_(operation_time) {}

  void operation(const records::ContextInfo& context, const records::Record& record) override {
    if (operation_time_(context, record) < start_) return;
    const auto number = static_cast<std::size_t>(context.number);
    if (number >= contexts_.size() || contexts_[number] == nullptr) return;
    for (auto& sink : sinks_) sink->write(*contexts_[number], record);
    // Written through in batches, as the writer does: a sink holds one batch, not the window.
    if (++written_ % kDumpBatch == 0) {
      for (auto& sink : sinks_) sink->flush();
    }
  }
  void range(const records::RangeEvent& event) override {
    if (event.end_wall_ns < start_) return;
    for (auto& sink : sinks_) sink->write_range(event);
  }
  void api_call(const records::ApiCall& call) override {
    if (call.end_ns < start_) return;
    for (auto& sink : sinks_) sink->write_api_call(call);
  }

 private:
  SinkList& sinks_;
  const std::vector<const ProfiledContext*>& contexts_;
  std::uint64_t start_;
  std::uint64_t (*operation_time_)(const records::ContextInfo&, const records::Record&);
  std::size_t written_ = 0;
};

}  // namespace

void FlightRecorder::write_window(const std::string& log_template, std::uint64_t now_wall_ns) {
  close_chunk();
  forget_before(now_wall_ns);
  // A run file of the window in memory: a header, what its records name, its chunks.
  std::string run = runfile::encode_header({});
  std::size_t bytes = run.size() + dictionary_.size();
  for (const Chunk& chunk : window_) bytes += chunk.bytes.size();
  run.reserve(bytes);
  run += dictionary_;
  for (const Chunk& chunk : window_) run += chunk.bytes;

  SinkList sinks = make_exports_(log_template);
  for (auto& sink : sinks) sink->begin();
  for (const records::RangeEvent& name : names_) {
    for (auto& sink : sinks) sink->write_range(name);
  }
  WindowReplay replay(sinks, contexts_, window_start(now_wall_ns), &FlightRecorder::time_of);
  runfile::RunReader reader(run);
  const runfile::ReadSummary summary = reader.read(replay);
  for (auto& sink : sinks) sink->end();
  if (summary.error) {
    // The recorder's own bytes: only a defect of its own would bring this.
    config::warn(fmt::format("flightrecorder: the window could not be read back at byte {}: {}; the dump holds what "
                             "came before it",
                             summary.error->offset, summary.error->what));
  }
  if (dropped_operations_ != 0 || dropped_range_events_ != 0 || dropped_api_calls_ != 0) {
    config::warn(fmt::format("flightrecorder: the window held at most {} MiB of records; {} older operations, {} "
                             "older NVTX events and {} older API calls were left out",
                             max_window_mib_, dropped_operations_, dropped_range_events_, dropped_api_calls_));
    dropped_operations_ = 0;
    dropped_range_events_ = 0;
    dropped_api_calls_ = 0;
  }
}

FlightRecorder::DumpFiles FlightRecorder::make_dump_files(unsigned number, std::string& log_template) {
  log_template = logfmt::export_path_template(log_template_, fmt::format(".{}.log", number));
  std::vector<std::string> made;
  for (const std::string& path : export_paths_(log_template)) {
    // A dump makes its files: it never writes over one it did not create, nor through
    // a symbolic link.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd < 0) {
      const int err = errno;
      for (const std::string& own : made) ::unlink(own.c_str());
      if (err == EEXIST) return DumpFiles::taken;
      config::warn(fmt::format("flightrecorder: cannot make '{}': {}; no dump is written",
                               config::escape_for_warning(path), std::strerror(err)));
      return DumpFiles::failed;
    }
    ::close(fd);
    made.push_back(path);
  }
  return DumpFiles::made;
}

unsigned FlightRecorder::dump(std::uint64_t now_wall_ns) {
  if (ended_) return 0;
  std::string log_template;
  for (unsigned tries = 0; tries < kDumpNumberTries; ++tries, ++next_dump_) {
    const DumpFiles files = make_dump_files(next_dump_, log_template);
    if (files == DumpFiles::failed) return 0;
    if (files == DumpFiles::taken) continue;
    write_window(log_template, now_wall_ns);
    return next_dump_++;
  }
  config::warn(fmt::format("flightrecorder: the files of dumps {} to {} all exist already; no dump is written",
                           next_dump_ - kDumpNumberTries, next_dump_ - 1));
  return 0;
}

bool FlightRecorder::trigger_present() {
  struct stat st{};
  // lstat: a symbolic link there is not followed, and not taken for the file.
  if (::lstat(trigger_path_.c_str(), &st) != 0) return false;
  if (S_ISREG(st.st_mode)) return true;
  // Left where it is, and said once.
  if (!warned_trigger_) {
    warned_trigger_ = true;
    config::warn(fmt::format("flightrecordertrigger '{}' is {}; ignored", config::escape_for_warning(trigger_path_),
                             S_ISLNK(st.st_mode) ? "a symbolic link, not followed" : "not a regular file"));
  }
  return false;
}

RecordSink::PollNeed FlightRecorder::poll() {
  if (ended_ || trigger_path_.empty() || secure_execution()) return PollNeed::nothing;
  if (!trigger_seen_) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_look_ < kTriggerInterval) return PollNeed::nothing;
    last_look_ = now;
    if (!trigger_present()) return PollNeed::nothing;
    trigger_seen_ = true;
    return PollNeed::drain_first;
  }
  trigger_seen_ = false;
  dump(wall_now_ns());
  if (::unlink(trigger_path_.c_str()) != 0 && errno != ENOENT) {
    // Left there, it would ask for a dump every look.
    config::warn(fmt::format("flightrecordertrigger '{}' cannot be removed: {}; no further dumps are made",
                             config::escape_for_warning(trigger_path_), std::strerror(errno)));
    trigger_path_.clear();
  }
  return PollNeed::nothing;
}

void FlightRecorder::end() {
  if (ended_) return;
  write_window(log_template_, wall_now_ns());
  abandon();
}

void FlightRecorder::abandon() {
  ended_ = true;
  window_ = {};
  window_bytes_ = 0;
  dictionary_ = {};
  names_ = {};
  contexts_ = {};
}

}  // namespace computeprof::shim
