#pragma once
// `export json`: one Chrome trace of the whole process (docs/format.md, "JSON trace"):
// a track per GPU and stream, the calls on their threads' tracks, a flow from each call
// to its GPU work. The file is valid JSON after every flush: the closing part is
// written after the last event each time and replaced by the next events.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "formats/log_file.hpp"
#include "formats/trace_events.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class JsonTraceSink final : public RecordSink {
 public:
  // Viewers (Perfetto UI, chrome://tracing) struggle beyond this many events.
  static constexpr std::uint64_t kViewerEventLimit = 1'000'000;

  explicit JsonTraceSink(const config::Settings& settings, std::uint64_t viewer_event_limit = kViewerEventLimit);

  void begin() override;
  void write(const ProfiledContext& context, const records::Record& record) override;
  // A counter event of the device's bytes in use after the event, by kind.
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  // NVTX ranges and marks on their threads' tracks (formats/range_trace_events.hpp); a
  // thread NVTX named has that name.
  void write_range(const records::RangeEvent& event) override;
  void flush() override;
  void end() override;
  void abandon() override;

 private:
  // Starts the next event in the buffer (the separator after the previous one).
  std::string& next_event();
  void name_tracks(const ProfiledContext& context, formats::TraceTrack host, formats::TraceTrack gpu);
  std::string tail() const;
  // The trace's time 0 (log_paths.hpp, export_base_wall_ns), fixed at its first event.
  void settle_base();

  const config::Settings& settings_;
  std::vector<std::size_t> counters_;  // the configured legacy counters
  formats::LogFile file_;
  std::string buffer_;
  std::uint64_t base_ns_ = 0;  // wall clock; event times count from here
  bool header_written_ = false;
  std::uint64_t pid_ = 0;
  std::uint64_t events_ = 0;
  std::uint64_t flows_ = 0;
  std::uint64_t last_host_correlation_ = 0;
  std::set<std::uint64_t> named_processes_;
  std::set<std::pair<std::uint64_t, std::uint64_t>> named_threads_;
  std::vector<std::string> devices_;  // deviceProperties entries
  std::uint64_t viewer_event_limit_;
  bool warned_limit_ = false;
  bool ended_ = false;
};

}  // namespace computeprof::shim
