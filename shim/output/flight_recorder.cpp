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

template <typename T>
T& FlightRecorder::Window<T>::push() {
  if (size == bound) {
    pop();
    ++dropped;
  } else if (size == slots.size()) {
    // Grows by doubling up to the bound: a short window takes little memory. The ring is
    // unrolled into its new slots, oldest first.
    std::vector<T> grown;
    grown.reserve(std::min(bound, std::max<std::size_t>(64, slots.size() * 2)));
    for (std::size_t i = 0; i < size; ++i) grown.push_back(std::move(at(i)));
    grown.resize(grown.capacity());
    slots.swap(grown);
    head = 0;
  }
  ++size;
  return slots[(head + size - 1) % slots.size()];
}

FlightRecorder::FlightRecorder(std::uint64_t window_ns, std::string log_template, std::string trigger_path,
                               ExportSinks make_exports, ExportPaths export_paths)
    : window_ns_(window_ns),
      log_template_(std::move(log_template)),
      trigger_path_(std::move(trigger_path)),
      make_exports_(std::move(make_exports)),
      export_paths_(std::move(export_paths)) {
  operations_.bound = kMaxOperations;
  ranges_.bound = kMaxRangeEvents;
}

FlightRecorder::~FlightRecorder() = default;

std::uint64_t FlightRecorder::time_of(const Operation& op) {
  // Its GPU work's end; a record without GPU times, its call.
  if (op.record.gpu_end_ns != 0) return op.record.gpu_end_ns;
  return op.context->origin.wall_ns + op.record.timestamp_ns;
}

std::string_view FlightRecorder::kept_name(std::string_view name) {
  auto it = methods_.find(name);
  if (it == methods_.end()) it = methods_.emplace(name).first;
  return *it;
}

void FlightRecorder::write(const ProfiledContext& context, const records::Record& record) {
  if (ended_) return;
  Operation& op = operations_.push();
  op.context = &context;
  op.record = record;
  op.record.method = kept_name(record.method);
  op.counters.reset();
  if (record.counters != nullptr) {
    op.counters = std::make_unique<records::CounterValues>(*record.counters);
    op.record.counters = op.counters.get();
  }
  newest_ns_ = std::max(newest_ns_, time_of(op));
  forget_before(newest_ns_);
}

void FlightRecorder::write_range(const records::RangeEvent& event) {
  if (ended_) return;
  if (is_name(event)) {
    if (names_.size() < kMaxNames) names_.push_back(event);
    return;
  }
  ranges_.push() = event;
  newest_ns_ = std::max(newest_ns_, time_of(event));
  forget_before(newest_ns_);
}

void FlightRecorder::forget_before(std::uint64_t now_wall_ns) {
  const std::uint64_t oldest = now_wall_ns > window_ns_ ? now_wall_ns - window_ns_ : 0;
  while (operations_.size != 0 && time_of(operations_.front()) < oldest) {
    operations_.front().counters.reset();
    operations_.pop();
  }
  while (ranges_.size != 0 && time_of(ranges_.front()) < oldest) ranges_.pop();
}

void FlightRecorder::write_window(const std::string& log_template, std::uint64_t now_wall_ns) {
  forget_before(now_wall_ns);
  // The rings are in the order things completed, not always of their ends: each is
  // looked at, and what ended before the window left out.
  const std::uint64_t oldest = now_wall_ns > window_ns_ ? now_wall_ns - window_ns_ : 0;
  SinkList sinks = make_exports_(log_template);
  for (auto& sink : sinks) sink->begin();
  for (const records::RangeEvent& name : names_) {
    for (auto& sink : sinks) sink->write_range(name);
  }
  for (std::size_t i = 0; i < ranges_.size; ++i) {
    const records::RangeEvent& event = ranges_.at(i);
    if (time_of(event) < oldest) continue;
    for (auto& sink : sinks) sink->write_range(event);
  }
  for (std::size_t i = 0; i < operations_.size; ++i) {
    const Operation& op = operations_.at(i);
    if (time_of(op) < oldest) continue;
    for (auto& sink : sinks) sink->write(*op.context, op.record);
    // Written through in batches, as the writer does: a sink holds one batch, not the window.
    if (i % kDumpBatch == kDumpBatch - 1) {
      for (auto& sink : sinks) sink->flush();
    }
  }
  for (auto& sink : sinks) sink->end();
  if (operations_.dropped != 0 || ranges_.dropped != 0) {
    config::warn(fmt::format("flightrecorder: the window held at most {} operations and {} NVTX events; {} older "
                             "operations and {} older NVTX events were left out",
                             kMaxOperations, kMaxRangeEvents, operations_.dropped, ranges_.dropped));
    operations_.dropped = 0;
    ranges_.dropped = 0;
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

void FlightRecorder::poll() {
  if (ended_ || trigger_path_.empty() || secure_execution()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_look_ < kTriggerInterval) return;
  last_look_ = now;
  if (!trigger_present()) return;
  dump(wall_now_ns());
  if (::unlink(trigger_path_.c_str()) != 0 && errno != ENOENT) {
    // Left there, it would ask for a dump every look.
    config::warn(fmt::format("flightrecordertrigger '{}' cannot be removed: {}; no further dumps are made",
                             config::escape_for_warning(trigger_path_), std::strerror(errno)));
    trigger_path_.clear();
  }
}

void FlightRecorder::end() {
  if (ended_) return;
  write_window(log_template_, wall_now_ns());
  abandon();
}

void FlightRecorder::abandon() {
  ended_ = true;
  operations_.clear();
  ranges_.clear();
  names_ = {};
  methods_ = {};
}

}  // namespace computeprof::shim
