#pragma once
// `export json` and `export json.gz`: one Chrome trace of the whole process
// (docs/format.md, "JSON trace"): a track per GPU and stream, the calls on their
// threads' tracks, a flow from each call to its GPU work. Events are formatted in place
// into one buffer reused for the life of the writer. The file is valid JSON (a valid
// gzip file of it) after every write-through: the closing part is written after the
// last event each time and replaced by the next events; with gzip, each write-through
// is complete gzip members, the closing part one of its own.
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "logfmt/log_file.hpp"
#include "traces/trace_events.hpp"
#include "exports/export_writer.hpp"
#include "exports/gzip_members.hpp"
#include "exports/output_files.hpp"
#include "exports/run_facts.hpp"

namespace computeprof::exports {

// `export json` or `export json.gz`.
enum class TraceCompression { none, gzip };

class JsonTraceWriter final : public ExportWriter {
 public:
  // Viewers (Perfetto UI, chrome://tracing) struggle beyond this many events.
  static constexpr std::uint64_t kViewerEventLimit = 1'000'000;

  JsonTraceWriter(const RunFacts& facts, OutputFiles& files, TraceCompression compression,
                  std::uint64_t viewer_event_limit = kViewerEventLimit);

  void begin() override;
  void write(const records::ContextInfo& context, const records::Record& record) override;
  // A counter event of the device's bytes in use after the event, by kind.
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  // NVTX ranges and marks on their threads' tracks (traces/range_trace_events.hpp); a
  // thread NVTX named has that name.
  void write_range(const records::RangeEvent& event) override;
  void write_api_call(const records::ApiCall& call) override;
  // Writes through when a batch is large or old enough (export_batch.hpp).
  void flush() override;
  void checkpoint() override;
  void end() override;

 private:
  // Starts the next `count` events in the buffer (the separator after the previous one).
  std::string& next_event(std::uint64_t count = 1);
  void name_tracks(const records::ContextInfo& context, traces::TraceTrack host, traces::TraceTrack gpu);
  // The names of the record's GPU event: kernels' from the names seen before.
  const traces::GpuEventNames& event_names(const records::Record& record);
  // The record's entry point and what the events take from it: the last one's, made
  // again when it changes.
  struct ApiText {
    std::string api;
    std::string quoted;         // as a JSON string
    bool graph_launch = false;  // a graph launch: its nodes' events are async, without flows
  };
  const ApiText& api_text(const records::Record& record);
  void make_tail();
  void write_through();
  // The trace's time 0 (the facts' clocks), fixed at its first event.
  void settle_base();

  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  const RunFacts& facts_;
  OutputFiles& files_;
  const bool gzip_;
  logfmt::LogFile file_;
  std::string buffer_;      // events not yet written
  std::string compressed_;  // gzip members of them
  std::string tail_;        // the closing part, made again when devices are added
  GzipMembers members_;
  std::chrono::steady_clock::time_point last_write_{};
  std::uint64_t base_ns_ = 0;       // wall clock; event times count from here
  std::uint64_t base_monotonic_ns_ = 0;
  bool header_written_ = false;
  std::uint64_t pid_ = 0;
  std::uint64_t events_ = 0;
  std::uint64_t flows_ = 0;
  std::uint64_t last_host_correlation_ = 0;
  // The tracks of the last record, named already: most records share them.
  traces::TraceTrack last_host_{~0ull, ~0ull};
  traces::TraceTrack last_gpu_{~0ull, ~0ull};
  std::set<std::uint64_t> named_processes_;
  std::set<std::pair<std::uint64_t, std::uint64_t>> named_threads_;
  std::unordered_map<std::string, traces::GpuEventNames, StringHash, std::equal_to<>> kernel_names_;
  // The last kernel's entry (an unordered_map's entries stay where they are).
  const std::pair<const std::string, traces::GpuEventNames>* last_kernel_ = nullptr;
  traces::GpuEventNames scratch_names_;
  traces::LaunchEventWriter launch_events_;
  ApiText api_;
  std::vector<std::string> devices_;  // deviceProperties entries
  std::uint64_t viewer_event_limit_;
  bool warned_limit_ = false;
  // exportlimit: the bytes written to the file so far, and the records left out once
  // the trace reached the limit.
  std::uint64_t bytes_written_ = 0;
  std::uint64_t left_out_ = 0;
  // Whether the trace reached the export limit; counts the record left out if so.
  bool past_limit();
  // Whether the trace reached the export limit (NVTX events stop there, uncounted).
  bool reached_limit() const;
  bool ended_ = false;
};

}  // namespace computeprof::exports
